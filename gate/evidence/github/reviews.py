"""Maintainers' `/claim-gate accept <reason>` reviews, observed for the override decision.

Only reviews are read, never comments: a review is bound to the commit it was made on
(`commit_id`), so a new push voids it. Each reviewer's permission is asked of the repository
now, never read from the event, and only for approvals of the head that give a reason (the
others cannot count whatever the permission). Whether one counts is the engine's
(`gate/engine/override.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from gate.claim.errors import CouldNotDecide
from gate.claim.review_facts import Review, ReviewCommand

_COMMAND = re.compile(r"^[ \t]*/claim-gate[ \t]+accept\b[ \t]*(?P<reason>[^\r\n]*)$",
                      re.MULTILINE)
#: Review states that replace a person's earlier verdict on the PR (a comment does not).
_DECISIVE = frozenset({"APPROVED", "CHANGES_REQUESTED", "DISMISSED"})


class ReviewSource(Protocol):
    def reviews(self, number: int) -> list[Review]: ...
    def permission(self, login: str) -> str: ...


def command_reason(body: str) -> str | None:
    """The reason of the first `/claim-gate accept` line ("" without one); None: no command."""
    match = _COMMAND.search(body)
    return None if match is None else match["reason"].strip()


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
        reason = command_reason(review.body)
        if reason is None:
            continue
        permission = None
        if review.state == "APPROVED" and review.commit_id == head_sha and reason:
            try:
                permission = source.permission(review.login)
            except CouldNotDecide:
                permission = None  # unreadable: the acceptance does not count, and says so
        found.append(ReviewCommand(
            review.id, review.login, review.state, review.commit_id, review.submitted_at,
            reason, permission, latest.get(review.login.lower()) == review.id,
        ))
    return found
