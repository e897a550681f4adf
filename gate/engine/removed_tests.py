"""No test quietly removed: the head's test set against the base branch's.

The easiest way to make a failing suite green is to delete the failing test or mark it
skipped. The collector (`gate/evidence/github/baseline.py`) reads the JUnit of the
latest finished run (success or failure: a red base is exactly when deleting the failing
test is tempting) of the same workflow file on the base branch, from a push, schedule or
dispatch (never a pull request's run, whose workflow the PR could have changed), and lists
every test that ran there and is missing or skipped on the head. A renamed test shows up as
removed plus added, on purpose: the reviewer decides whether the rename is honest.

The owner's policy says what a removal means (`removed_tests`): `unverified` (default, the
claim cannot be verified while tests are missing), `refuted`, or `warn` (listed only).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gate.claim.facts import Facts
from gate.claim.model import Claim, VerdictState
from gate.claim.policy import Policy
from gate.claim.trust_policy import RemovedTests
from gate.claim.wording import plural
from gate.engine.bound_targets import unbound_target_judgements
from gate.engine.completeness import ci_judgements
from gate.engine.diff_coverage import judge_diff
from gate.engine.results import Judgement, Unmet

if TYPE_CHECKING:
    from gate.claim.github_facts import TestSetComparison

MAX_LISTED = 20


def removal_lines(comparisons: Sequence[TestSetComparison]) -> list[str]:
    lines = []
    for comparison in comparisons:
        if not comparison.removed:
            continue
        shown = [t.describe() for t in comparison.removed[:MAX_LISTED]]
        more = len(comparison.removed) - len(shown)
        lines.append(
            f"{plural(len(comparison.removed), 'test')} that ran on the base branch"
            f" ({comparison.describe_baseline()}) are missing or skipped in"
            f" {comparison.workflow_path} on the head: {', '.join(shown)}"
            + (f" and {more} more" if more else "")
        )
    return lines


def rule_judgements(facts: Facts, policy: Policy) -> list[Judgement]:
    """The engine's rules over collected facts beyond the six: removed tests, the baseline
    they are compared with, and a complete picture of CI (`completeness`)."""
    found = ci_judgements(facts, policy)
    if facts.test_sets:
        found.append(removed_tests_judgement(facts.test_sets, policy.trust.removed_tests))
        found += baseline_judgement(facts.test_sets, policy.trust.removed_tests)
    return found


def baseline_judgement(
    comparisons: Sequence[TestSetComparison], mode: RemovedTests
) -> list[Judgement]:
    """No comparable baseline is not "nothing was removed": unverified, naming why (unless
    the owner said removed tests are only listed, `warn`)."""
    missing = [c.note for c in comparisons
               if c.note and (c.baseline is None or not c.comparable)]
    if not missing or mode is RemovedTests.WARN:
        return []
    return [Judgement("rule baseline", VerdictState.UNVERIFIED, Unmet(
        "no_baseline",
        "the head's tests could not be compared with the base branch's: " + "; ".join(missing)
        + ". Without that comparison a deleted failing test would go unseen, so the claim"
        " cannot be verified; run the test workflow on pushes to the base branch and keep its"
        " JUnit artifact (policy removed_tests: warn only lists removals instead)",
    ))]


def claim_judgements(claim: Claim, facts: Facts, policy: Policy) -> list[Judgement]:
    """Rules over the claim against the facts: it matches the changed files, and each
    mutation whose evidence is bound by its target names one."""
    diff = [] if facts.changed is None else judge_diff(claim, facts.changed, policy)
    return diff + unbound_target_judgements(claim)


def removed_tests_judgement(
    comparisons: Sequence[TestSetComparison], mode: RemovedTests
) -> Judgement:
    """The owner's rule for removed tests: unverified (default), refuted, or warn (listed)."""
    subject = "rule removed_tests"
    lines = removal_lines(comparisons)
    if not lines or mode is RemovedTests.WARN:
        return Judgement(subject, VerdictState.VERIFIED)
    meaning = ("the claim cannot be verified while they are gone" if mode is RemovedTests.UNVERIFIED
               else "the policy treats this as refuting the claim")
    state = VerdictState.REFUTED if mode is RemovedTests.REFUTED else VerdictState.UNVERIFIED
    unmet = Unmet(
        "removed_tests",
        "tests were removed or skipped instead of passing: " + "; ".join(lines)
        + f". Deleting or skipping a test is not fixing it; {meaning}"
        f" (policy removed_tests: {mode}).",
        state=state,
    )
    return Judgement(subject, state, unmet)
