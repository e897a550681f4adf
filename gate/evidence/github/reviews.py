"""Maintainers' `/claim-gate accept <reason>` reviews, observed for the override decision.

Only reviews are read, never comments: a review is bound to the commit it was made on
(`commit_id`), so a new push voids it. Each reviewer's permission is asked of the repository
now, never read from the event, and only for approvals of the head that give a reason (the
others cannot count whatever the permission). The command names the claim it accepts
(`sha256:<digest>`, shown on the check), so an edit of the claim without a push (a PR body)
is not accepted. Whether one counts is the engine's (`gate/engine/override.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from gate.claim.agents import AgentRule
from gate.claim.errors import CouldNotDecide
from gate.claim.github_facts import PullRequestRef
from gate.claim.review_facts import Acceptances, Review, ReviewCommand

_COMMAND = re.compile(r"^[ \t]*/claim-gate[ \t]+accept\b[ \t]*(?P<reason>[^\r\n]*)$",
                      re.MULTILINE)
_DIGEST = re.compile(r"^sha256:(?P<hex>[0-9a-fA-F]+)(?:[ \t]+|$)")
#: Review states that replace a person's earlier verdict on the PR (a comment does not).
_DECISIVE = frozenset({"APPROVED", "CHANGES_REQUESTED", "DISMISSED"})


class ReviewSource(Protocol):
    def reviews(self, number: int) -> list[Review]: ...
    def permission(self, login: str) -> str: ...


def command_reason(body: str) -> str | None:
    """The reason of the first `/claim-gate accept` line ("" without one); None: no command."""
    parsed = parse_command(body)
    return None if parsed is None else parsed[1]


def parse_command(body: str) -> tuple[str | None, str] | None:
    """(claim digest named, reason) of the first `/claim-gate accept [sha256:<hex>] <reason>`
    line; None: no command."""
    match = _COMMAND.search(body)
    if match is None:
        return None
    rest = match["reason"].strip()
    digest = _DIGEST.match(rest)
    if digest is None:
        return None, rest
    return digest["hex"].lower(), rest[digest.end():].strip()


def _latest_decisive(reviews: Sequence[Review], head_sha: str) -> dict[str, int]:
    latest: dict[str, int] = {}
    for review in reviews:
        if review.commit_id == head_sha and review.state in _DECISIVE:
            latest[review.login.lower()] = review.id
    return latest


def review_commands(source: ReviewSource, number: int, head_sha: str) -> list[ReviewCommand]:
    """Every review holding the command, with the reviewer's permission where it matters."""
    reviews = source.reviews(number)
    latest = _latest_decisive(reviews, head_sha)
    found = []
    for review in reviews:
        parsed = parse_command(review.body)
        if parsed is None:
            continue
        digest, reason = parsed
        permission = None
        if review.state == "APPROVED" and review.commit_id == head_sha and reason and digest:
            try:
                permission = source.permission(review.login)
            except CouldNotDecide:
                permission = None  # unreadable: the acceptance does not count, and says so
        found.append(ReviewCommand(
            review.id, review.login, review.state, review.commit_id, review.submitted_at,
            reason, permission, latest.get(review.login.lower()) == review.id,
            review.user_id, digest,
        ))
    return found


class ReviewAcceptances:
    """The acceptances of one PR's head, read when the pipeline asks (a verdict short of
    verified), with who may not accept: its author and the agents."""

    def __init__(self, source: ReviewSource, pull: PullRequestRef, agents: AgentRule) -> None:
        self._source, self._pull, self._agents = source, pull, agents
        self.head_sha = pull.head_sha

    def read(self) -> Acceptances:
        commands = review_commands(self._source, self._pull.number, self._pull.head_sha)
        return Acceptances(tuple(commands), self._pull.author, self._pull.author_id,
                           self._agents)
