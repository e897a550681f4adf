"""Fail-to-pass: does a test exercise what the change did?

The owner's `fail_to_pass` setting: `off`; `report` (default), the tests that fail on the
base's code and pass on the head are listed and nothing else changes; `require`, a claim with
code-change mutations needs at least one, from a run over the base's code bound to this head
(`claim-gate base-code`, then the plugin's `claim-gate.base_code` property), or it is
unverified (`no_fail_to_pass`): a test that passes on both is no evidence of a fix. A test
that passes on the base's code and fails on the head is a regression, shown; it is a failure
on the head too, so the head's own run already refutes. On GitHub the run over the base's code
comes from CI runs (`BaseCodeComparison.runs`), judged here as every CI item is: one the PR
could reach, or not bound to the subject, makes the comparison not count, named.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from gate.claim.facts import EvidenceItem, Facts
from gate.claim.fail_to_pass import BaseCodeComparison, FailToPass
from gate.claim.model import Claim, VerdictState
from gate.claim.policy import Policy
from gate.claim.wording import plural
from gate.engine.completeness import item_problem
from gate.engine.results import Judgement, Unmet, Verdict

#: The attestation's level for a verdict whose policy required fail-to-pass and found it.
FAIL_TO_PASS_LEVEL = "CLAIM_GATE_FAIL_TO_PASS"  # noqa: S105 (a level name, not a secret)

SUBJECT = "rule fail_to_pass"
NO_FAIL_TO_PASS = "no_fail_to_pass"  # noqa: S105 (a reason code)
_SHOWN = 10


def _names(tests: tuple[str, ...]) -> str:
    shown = ", ".join(tests[:_SHOWN])
    return shown + (f" and {len(tests) - _SHOWN} more" if len(tests) > _SHOWN else "")


def _bound_problem(found: BaseCodeComparison, facts: Facts) -> str | None:
    """The run over the base's code must be of this head (and this base, where known)."""
    if found.problem is not None:
        return found.problem
    if found.bound_to is None:
        return (f"{found.source} does not say which base and head it ran over (no"
                " claim-gate.base_code property: run it with the claim-gate pytest plugin after"
                " claim-gate base-code)")
    base, head = found.bound_to
    subject = facts.subject
    if subject is None or subject.head_sha is None:
        return (f"{found.source} ran over {head[:12]}, but no head commit is given to bind it to"
                " (--head-sha)")
    if head.lower() != subject.head_sha.lower():
        return f"{found.source} ran the tests of {head[:12]}, not the head {subject.head_sha[:12]}"
    # The base the change is measured from: the subject's base commit, or the merge base
    # the gate's own comparison of it with the head named (what `base-code` restores).
    bases = {sha.lower() for sha in (subject.base_sha,
                                     facts.changed.merge_base if facts.changed else None) if sha}
    if bases and base.lower() not in bases:
        return (f"{found.source} ran over the code of {base[:12]}, not the base"
                f" {(subject.base_sha or min(bases))[:12]} this change is measured from")
    return None


def _run_problem(item: EvidenceItem, facts: Facts) -> str | None:
    if item.disqualified is not None:
        return (f"{item.source} does not count ({item.disqualified.code}):"
                f" {item.disqualified.message}")
    found = item_problem(item, facts.pull, contradicts=False)
    return None if found is None else f"{found.message} ({found.code})"


def judge_base_code_runs(facts: Facts, judge: Callable[[EvidenceItem], EvidenceItem]) -> Facts:
    """The CI runs the comparison came from, each through `judge` (the rules every CI item
    meets: provenance, reach, binding); the first that cannot count is why it does not."""
    found = facts.base_code
    if found is None or not found.runs:
        return facts
    judged = tuple(judge(item) for item in found.runs)
    problem = found.problem or next(
        (why for item in judged if (why := _run_problem(item, facts)) is not None), None)
    return replace(facts, base_code=replace(found, runs=judged, problem=problem))


def _verb(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


def _listing(found: BaseCodeComparison) -> str:
    count = len(found.fail_to_pass)
    parts = [f"{plural(count, 'test')} {_verb(count, 'fails', 'fail')} on the base's code and"
             f" {_verb(count, 'passes', 'pass')} on the head"
             + (f": {_names(found.fail_to_pass)}" if found.fail_to_pass else "")]
    if found.regressions:
        parts.append(f"{plural(len(found.regressions), 'regression')} (passed on the base's"
                     f" code, fail on the head): {_names(found.regressions)}")
    both = found.passed_on_both
    parts.append(f"{plural(both, 'test')} {_verb(both, 'passes', 'pass')} on both")
    return "fail-to-pass (" + found.source + "): " + "; ".join(parts)


def counted_fail_to_pass(judged: BaseCodeComparison | None) -> tuple[str, ...]:
    """The fail-to-pass tests that count: from `judged_base_code`'s comparison, when it is
    bound to this head (no problem); none when there is none or the policy is `off`."""
    return () if judged is None or judged.problem is not None else judged.fail_to_pass


def judged_base_code(facts: Facts, policy: Policy) -> BaseCodeComparison | None:
    """The run over the base's code with why it does not count (None: it counts), judged
    once per decision for the report, the judgement and the counted tests; None when there
    is none or the policy does not look (`off`)."""
    found = facts.base_code
    if policy.fail_to_pass.mode is FailToPass.OFF or found is None:
        return None
    return replace(found, problem=_bound_problem(found, facts))


def earned_levels(verdicts: Sequence[Verdict]) -> tuple[str, ...]:
    """The levels beyond "verified" these decisions earned together, for the attestation:
    fail-to-pass, when every policy required it and every claim counted at least one."""
    earned = bool(verdicts) and all(
        v.policy.fail_to_pass.mode is FailToPass.REQUIRE and v.fail_to_pass for v in verdicts)
    return (FAIL_TO_PASS_LEVEL,) if earned else ()


def fail_to_pass_judgements(claim: Claim, found: BaseCodeComparison | None, policy: Policy
                            ) -> list[Judgement]:
    """The rule over `judged_base_code`'s comparison (its `problem`: why it does not count)."""
    mode = policy.fail_to_pass.mode
    if mode is FailToPass.OFF:
        return []
    problem = found.problem if found is not None else None
    # What the check lists when the run counts (a bound run over the base's code).
    listing = _listing(found) if found is not None and problem is None else None
    if mode is FailToPass.REPORT:
        if found is None:
            return []
        note = listing or f"fail-to-pass not counted: {problem}"
        return [Judgement(SUBJECT, VerdictState.VERIFIED, note=note)]
    code_change = [m.id for m in claim.mutations if m.kind in policy.code_change_kinds]
    if not code_change:
        return [Judgement(SUBJECT, VerdictState.VERIFIED, note=listing)]
    why = None
    if found is None:
        why = ("no run of the head's tests over the base's code was given (claim-gate"
               " base-code, then verify --base-code-junit, or the Action's"
               " base-code-artifact-name)")
    elif problem is not None:
        why = problem
    elif not found.fail_to_pass:
        both = found.passed_on_both
        why = (f"no test fails on the base's code and passes on the head"
               f" ({plural(both, 'test')} {_verb(both, 'passes', 'pass')} on both, which is no"
               " evidence of a fix)")
    if why is None:
        return [Judgement(SUBJECT, VerdictState.VERIFIED, note=listing)]
    return [Judgement(SUBJECT, VerdictState.UNVERIFIED, Unmet(
        NO_FAIL_TO_PASS,
        f"the policy requires a fail-to-pass test for the code change"
        f" ({', '.join(code_change)}): {why}; add a test that fails without the change"
        " (policy fail_to_pass: report only lists them)",
    ))]
