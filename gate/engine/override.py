"""Maintainers can overrule: whether a review's `/claim-gate accept` applies to a verdict.

Pure: the reviews and the reviewers' permissions were observed by the collector
(`gate/evidence/github/reviews.py`). An acceptance counts only when it is an APPROVED review,
made on the head commit the verdict is about (a new push voids it), naming the digest of the
claim decided (an edited claim voids it, pushed or not), by someone who is neither the PR's
author nor an agent (by the same rule that gates PRs), whose permission on the repository is
write, maintain or admin now, and who gave a reason; a refuted verdict is accepted only when the
base policy says `override: {refuted: true}`. The result is an `Override` beside the verdict,
which stays as the engine decided it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gate.claim.model import VerdictState

if TYPE_CHECKING:
    from gate.claim.review_facts import Acceptances, Override, ReviewCommand

ACCEPTING_PERMISSIONS = frozenset({"admin", "maintain", "write"})
#: The shortest digest prefix a command may name: 16 hex digits (64 bits) cannot be matched
#: by an agent crafting a second claim.
MIN_DIGEST_CHARS = 16


@dataclass(frozen=True)
class OverrideDecision:
    override: Override | None
    #: Why each acceptance that was seen does not count (for the summary and the record).
    refused: tuple[str, ...]


NO_OVERRIDE = OverrideDecision(None, ())


def accept_line(claim_sha256: str) -> str:
    """The command a maintainer writes to accept this claim (shown on the check)."""
    return f"/claim-gate accept sha256:{claim_sha256[:MIN_DIGEST_CHARS]} <reason>"


def _claim_refusal(command: ReviewCommand, claim_sha256: str) -> str | None:
    named = command.claim_sha256
    if named is None:
        return f"it names no claim: write `{accept_line(claim_sha256)}`"
    if len(named) < MIN_DIGEST_CHARS:
        return (f"its claim digest sha256:{named} is shorter than {MIN_DIGEST_CHARS} hex"
                f" digits: write `{accept_line(claim_sha256)}`")
    if not claim_sha256.startswith(named):
        return (f"it accepted the claim sha256:{named[:MIN_DIGEST_CHARS]}, but the claim decided"
                f" is sha256:{claim_sha256[:MIN_DIGEST_CHARS]}: a changed claim voids an"
                " acceptance")
    return None


def _refusal(command: ReviewCommand, head_sha: str, claim_sha256: str,
             seen: Acceptances) -> str | None:
    if command.login.lower() == seen.author.lower() or (
            seen.author_id is not None and command.account_id == seen.author_id):
        return "the PR's author cannot accept their own claim"
    if (agent := seen.agents.account_is_agent(command.login, command.account_id)) is not None:
        return f"it is an agent's account ({agent})"
    if command.state != "APPROVED":
        return f"the review is {command.state}, not an approval"
    if command.commit_id != head_sha:
        return (f"it was made on {command.commit_id[:12]}, not on the head {head_sha[:12]}:"
                " a new push voids an acceptance")
    if not command.latest:
        return "a later review by the same person on the head replaced it"
    if not command.reason.strip():
        return "it gives no reason: write `/claim-gate accept sha256:<digest> <reason>`"
    if (why := _claim_refusal(command, claim_sha256)) is not None:
        return why
    if command.permission not in ACCEPTING_PERMISSIONS:
        held = command.permission or "unknown (it could not be read)"
        return f"their permission on the repository is {held}; write, maintain or admin is needed"
    return None


def judge_override(
    state: VerdictState, seen: Acceptances, *, head_sha: str, claim_sha256: str,
    allow_refuted: bool,
) -> OverrideDecision:
    """The first acceptance that counts (oldest first), or None with every refusal named."""
    if state is VerdictState.VERIFIED:
        return NO_OVERRIDE
    # Imported here: a claim with no acceptance to judge never loads the review facts (issue 23).
    from gate.claim.review_facts import Override

    refused: list[str] = []
    for command in sorted(seen.commands, key=lambda c: (c.submitted_at is None, c.submitted_at,
                                                         c.review_id)):
        why = _refusal(command, head_sha, claim_sha256, seen)
        if why is None and state is VerdictState.REFUTED and not allow_refuted:
            why = ("the verdict is refuted, and the base policy does not let a refuted claim be"
                   " accepted (override: {refuted: true})")
        if why is None and command.submitted_at is not None and command.permission:
            return OverrideDecision(Override(
                command.login, command.reason.strip(), command.submitted_at, command.review_id,
                command.commit_id, command.permission, str(state), claim_sha256),
                tuple(refused))
        refused.append(f"review {command.review_id} by @{command.login}:"
                       f" {why or 'it has no submission time'}")
    return OverrideDecision(None, tuple(refused))
