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

from gate.claim.facts import Facts
from gate.claim.github_facts import TestSetComparison
from gate.claim.model import VerdictState
from gate.claim.policy import Policy
from gate.claim.trust_policy import RemovedTests
from gate.engine.results import Judgement, Unmet

MAX_LISTED = 20


def removal_lines(comparisons: Sequence[TestSetComparison]) -> list[str]:
    lines = []
    for comparison in comparisons:
        if not comparison.removed:
            continue
        shown = [t.describe() for t in comparison.removed[:MAX_LISTED]]
        more = len(comparison.removed) - len(shown)
        lines.append(
            f"{len(comparison.removed)} test(s) that ran on the base branch"
            f" ({comparison.describe_baseline()}) are missing or skipped in"
            f" {comparison.workflow_path} on the head: {', '.join(shown)}"
            + (f" and {more} more" if more else "")
        )
    return lines


def rule_judgements(facts: Facts, policy: Policy) -> list[Judgement]:
    """The engine's rules over collected facts beyond the six (today: removed tests)."""
    if not facts.test_sets:
        return []
    return [removed_tests_judgement(facts.test_sets, policy.trust.removed_tests)]


def removed_tests_judgement(
    comparisons: Sequence[TestSetComparison], mode: RemovedTests
) -> Judgement:
    """The owner's rule for removed tests: unverified (default), refuted, or warn (listed)."""
    subject = "rule removed_tests"
    lines = removal_lines(comparisons)
    lines += [c.note for c in comparisons if not c.comparable and c.note]
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
