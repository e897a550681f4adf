"""Maintainers' reviews as plain values: who asked to accept a claim, on which commit, and
what the repository says their permission is (asked at decision time, never from an event).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

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

    def as_json(self) -> dict[str, JSON]:
        return {
            "accepted_by": self.login,
            "reason": self.reason,
            "at": format_rfc3339(self.at),
            "review_id": self.review_id,
            "commit_id": self.commit_id,
            "permission": self.permission,
            "accepted_state": self.accepted_state,
        }
