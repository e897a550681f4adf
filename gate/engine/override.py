"""Maintainers can overrule: whether a review's `/claim-gate accept` applies to a verdict.

Pure: the reviews and the reviewers' permissions were observed by the collector
(`gate/evidence/github/reviews.py`). An acceptance counts only when it is an APPROVED review,
made on the head commit the verdict is about (a new push voids it), by someone who is
neither the PR's author nor one of the agents' accounts, whose permission on the repository
is write, maintain or admin now, and who gave a reason; a refuted verdict is accepted only
when the base policy says `override: {refuted: true}`. The result is an `Override` beside the
verdict, which stays as the engine decided it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from gate.claim.model import VerdictState
from gate.claim.review_facts import Override, ReviewCommand

ACCEPTING_PERMISSIONS = frozenset({"admin", "maintain", "write"})


@dataclass(frozen=True)
class OverrideDecision:
    override: Override | None
    #: Why each acceptance that was seen does not count (for the summary and the record).
    refused: tuple[str, ...]


def _refusal(command: ReviewCommand, head_sha: str, author: str,
             agents: Sequence[str]) -> str | None:
    if command.login.lower() == author.lower():
        return "the PR's author cannot accept their own claim"
    # A login is compared as written too: `[bot]` in a glob would be a character class.
    if any(command.login.lower() == g.lower() or fnmatchcase(command.login, g) for g in agents):
        return "it is one of the agents' accounts (agent-authors)"
    if command.state != "APPROVED":
        return f"the review is {command.state}, not an approval"
    if command.commit_id != head_sha:
        return (f"it was made on {command.commit_id[:12]}, not on the head {head_sha[:12]}:"
                " a new push voids an acceptance")
    if not command.latest:
        return "a later review by the same person on the head replaced it"
    if not command.reason.strip():
        return "it gives no reason: write `/claim-gate accept <reason>`"
    if command.permission not in ACCEPTING_PERMISSIONS:
        held = command.permission or "unknown (it could not be read)"
        return f"their permission on the repository is {held}; write, maintain or admin is needed"
    return None


def judge_override(
    state: VerdictState, commands: Sequence[ReviewCommand], *, head_sha: str, author: str,
    agents: Sequence[str], allow_refuted: bool,
) -> OverrideDecision:
    """The first acceptance that counts (oldest first), or None with every refusal named."""
    if state is VerdictState.VERIFIED:
        return OverrideDecision(None, ())
    refused: list[str] = []
    for command in sorted(commands, key=lambda c: (c.submitted_at is None, c.submitted_at,
                                                    c.review_id)):
        why = _refusal(command, head_sha, author, agents)
        if why is None and state is VerdictState.REFUTED and not allow_refuted:
            why = ("the verdict is refuted, and the base policy does not let a refuted claim be"
                   " accepted (override: {refuted: true})")
        if why is None and command.submitted_at is not None and command.permission:
            return OverrideDecision(Override(
                command.login, command.reason.strip(), command.submitted_at, command.review_id,
                command.commit_id, command.permission, str(state)), tuple(refused))
        refused.append(f"review {command.review_id} by @{command.login}:"
                       f" {why or 'it has no submission time'}")
    return OverrideDecision(None, tuple(refused))
