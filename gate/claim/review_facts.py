"""Maintainers' reviews as plain values: who asked to accept a claim, on which commit, and
what the repository says their permission is (asked at decision time, never from an event).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gate.claim.agents import AgentRule
from gate.claim.model import JSON
from gate.claim.timefmt import format_rfc3339


@dataclass(frozen=True)
class Review:
    """A pull request review as GitHub lists it."""

    id: int
    login: str
    state: str
    body: str
    commit_id: str
    submitted_at: datetime | None
    user_id: int | None = None  # the reviewer's account id (an agent is known by it too)


@dataclass(frozen=True)
class ReviewCommand:
    """A review holding `/claim-gate accept <reason>` (reason "" when none was given)."""

    review_id: int
    login: str
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    commit_id: str
    submitted_at: datetime | None
    reason: str
    #: The reviewer's permission on the repository now (admin, maintain, write, triage, read,
    #: none); None when it was not asked (the review could not count anyway) or unreadable.
    permission: str | None = None
    #: Whether this is the reviewer's latest approving or blocking review of the head.
    latest: bool = True
    account_id: int | None = None
    #: The claim digest the command names (`sha256:<hex>`, lower case), None when it names none:
    #: the acceptance is bound to that claim, so an edited claim (a PR body) is not accepted.
    claim_sha256: str | None = None


@dataclass(frozen=True)
class Acceptances:
    """What the acceptance rule reads: the commands seen, and who may never accept (the PR's
    author, and every agent by the same rule that gates PRs: ids, apps, presets, logins)."""

    commands: tuple[ReviewCommand, ...]
    author: str
    author_id: int | None
    agents: AgentRule


@dataclass(frozen=True)
class Override:
    """A person's decision to accept the engine's verdict: recorded beside it, never in it."""

    login: str
    reason: str
    at: datetime
    review_id: int
    commit_id: str
    permission: str
    accepted_state: str  # the engine's verdict the person accepted
    claim_sha256: str = ""  # the digest of the claim accepted (the one decided)

    def as_json(self) -> dict[str, JSON]:
        return {
            "claim_sha256": self.claim_sha256,
            "accepted_by": self.login,
            "reason": self.reason,
            "at": format_rfc3339(self.at),
            "review_id": self.review_id,
            "commit_id": self.commit_id,
            "permission": self.permission,
            "accepted_state": self.accepted_state,
        }
