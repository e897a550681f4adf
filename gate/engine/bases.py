"""Which base a PR may be verified into, and how a check says the PR and base it was for.

The base branch is the agent's choice: it can open its PR into a branch it pushed (whose
policy and workflows it wrote), get a green check there, then retarget the PR. So only the
bases the operator names (default: the repository's default branch) are decided at all; a
PR into any other base is unverified, saying so. Each check the gate posts carries the PR
and the base it was decided for (`external_id`), so the merge queue can refuse a check
decided for another base.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.claim.decimal_text import decimal

_PREFIX = "claim-gate"


def protected_bases(named: Sequence[str], default_branch: str | None) -> tuple[str, ...]:
    """The operator's list, else the repository's default branch (none if not learnt)."""
    if named:
        return tuple(named)
    return (default_branch,) if default_branch else ()


def refuse_base(base_ref: str, protected: Sequence[str]) -> str | None:
    """None when the PR's base is protected; else why the claim cannot be verified."""
    if base_ref in protected:
        return None
    if not protected:
        return (f"the PR targets {base_ref!r}, and the repository's default branch could not"
                " be learnt to tell whether that base is protected; name the protected bases"
                " in the action's `protected-bases` input")
    listed = ", ".join(repr(b) for b in protected)
    return (f"the PR targets {base_ref!r}, which is not a protected base ({listed}): a"
            " branch the agent can push decides its own policy and workflows, so nothing"
            " decided there can be trusted. Retarget the PR to a protected base (the gate"
            " decides again on the `edited` event), or add the branch to `protected-bases`")


def external_id(number: int, base_ref: str) -> str:
    """What a posted check says it was decided for (branch names hold no spaces)."""
    return f"{_PREFIX} pr={number} base={base_ref}"


def decided_for(text: str | None) -> tuple[int, str] | None:
    """(PR number, base) from a check's external_id, or None when it does not say."""
    parts = (text or "").split(" ")
    if len(parts) != 3 or parts[0] != _PREFIX:
        return None
    number, base = parts[1].removeprefix("pr="), parts[2].removeprefix("base=")
    pull = decimal(number)
    if pull is None or not base or not parts[2].startswith("base="):
        return None
    return pull, base


@dataclass(frozen=True)
class PostCandidate:
    """One PR on the head, as far as choosing what to post needs it. A check is per commit and
    name, so every PR with this head shares it: the choice decides what branch protection sees."""

    base_ref: str
    protected: bool  # its base is one the operator protects
    required: bool  # it needs a claim (an agent's PR, or `require-claim: always`)
    severity: int  # -1 not required, 0 verified (or accepted), 1 unverified, 2 refuted, 9 failed


def posting_order(candidates: Sequence[PostCandidate]) -> list[int]:
    """The indices of the PRs whose checks the commit ends with, in posting order (the last
    is the commit's latest; the others' checks are posted before them). Only PRs into
    protected bases when there are any (an agent-made base decides nothing and lowers
    nothing); only PRs that need a claim when any does (an outsider's PR with the same head
    neither lowers the check nor, with "not required", raises it); among PRs with the same
    head into the same base, the best verdict (a fork PR reusing the honest PR's head cannot
    block it); between bases, the worst posted last, as before."""
    keep = list(range(len(candidates)))
    if any(candidates[i].protected for i in keep):
        keep = [i for i in keep if candidates[i].protected]
    if any(candidates[i].required for i in keep):
        keep = [i for i in keep if candidates[i].required]
    best: dict[str, int] = {}
    for index in keep:
        chosen = best.get(candidates[index].base_ref)
        if chosen is None or candidates[index].severity < candidates[chosen].severity:
            best[candidates[index].base_ref] = index
    return sorted(best.values(), key=lambda i: (candidates[i].severity, i))
