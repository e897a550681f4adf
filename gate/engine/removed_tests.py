"""No test quietly removed: the head's test set against the base branch's.

The easiest way to make a failing suite green is to delete the failing test or mark it
skipped. For each workflow whose JUnit the head produced, the gate reads the JUnit of the
latest finished run (success or failure: a red base is exactly when deleting the failing
test is tempting) of the same workflow file on the base branch, from a push, schedule or
dispatch (never a pull request's run, whose workflow the PR could have changed), and lists
every test that ran there and is missing or skipped on the head. A renamed test shows up as
removed plus added, on purpose: the reviewer decides whether the rename is honest.

The owner's policy says what a removal means (`removed_tests`): `unverified` (default, the
claim cannot be verified while tests are missing), `refuted`, or `warn` (listed only).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from gate.claim.github_facts import RemovedTest, TestSetComparison, WorkflowRun
from gate.claim.junit_facts import JUnitFile, JUnitRun, Outcome
from gate.claim.model import VerdictState
from gate.claim.trust_policy import RemovedTests
from gate.engine.decide import Unmet, Verdict
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.ci_evidence import read_artifact_junit, run_label

#: Tests whose identities are kept per file when comparing (beyond it: cannot compare).
MAX_COMPARED_TESTS = 200_000
MAX_LISTED = 20
_EXECUTED = (Outcome.PASSED, Outcome.FAILURE, Outcome.ERROR)
_BASELINE_CONCLUSIONS = frozenset({"success", "failure"})


def _outcomes(files: Sequence[JUnitFile]) -> tuple[dict[str, Outcome], bool]:
    """identity -> best outcome over files (executed beats skipped), and whether complete."""
    found: dict[str, Outcome] = {}
    complete = True
    for file in files:
        complete = complete and file.identities_complete and file.identities is not None
        for key, outcome in (file.identities or {}).items():
            before = found.get(key)
            if before is None or (before is Outcome.SKIPPED and outcome in _EXECUTED):
                found[key] = outcome
    return found, complete


def _baseline(api: GitHubApi, workflow: str, base_ref: str) -> WorkflowRun | None:
    for run in api.base_branch_runs(workflow, base_ref):
        if (run.path == workflow and run.status == "completed"
                and run.conclusion in _BASELINE_CONCLUSIONS
                and not run.event.startswith("pull_request")):
            return run
    return None


def compare_test_sets(
    api: GitHubApi,
    head_runs: Sequence[tuple[str, JUnitRun]],
    base_ref: str,
    artifact_patterns: Sequence[str],
    workdir: Path | None = None,
    cap: int = MAX_COMPARED_TESTS,
) -> list[TestSetComparison]:
    by_workflow: dict[str, list[JUnitFile]] = {}
    for workflow, run in head_runs:
        by_workflow.setdefault(workflow, []).extend(run.files)
    results = []
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:
        for workflow, head_files in by_workflow.items():
            baseline = _baseline(api, workflow, base_ref)
            if baseline is None:
                results.append(TestSetComparison(
                    workflow, None, note=f"no finished run of {workflow} on {base_ref} to"
                    " compare the head's tests with: removed tests cannot be listed"))
                continue
            base_files, notes = read_artifact_junit(api, baseline, artifact_patterns,
                                                    Path(scratch), identities=cap)
            if not base_files:
                why = "; ".join(notes) or "it has no JUnit artifact"
                results.append(TestSetComparison(
                    workflow, baseline, note=f"the base branch's {run_label(baseline)} cannot"
                    f" be compared: {why}"))
                continue
            read = tuple((f"baseline {f.path}", f.sha256) for f in base_files)
            base, base_complete = _outcomes(base_files)
            head, head_complete = _outcomes(head_files)
            if not (base_complete and head_complete):
                results.append(TestSetComparison(
                    workflow, baseline, comparable=False,
                    note=f"more than {cap} tests in one file: the test sets of the head and"
                    f" {run_label(baseline)} were not compared", inputs=read))
                continue
            removed = tuple(
                RemovedTest(key, outcome, head.get(key))
                for key, outcome in sorted(base.items())
                if outcome in _EXECUTED and head.get(key) not in _EXECUTED
            )
            results.append(TestSetComparison(workflow, baseline, removed, inputs=read))
    return results


def removal_lines(comparisons: Sequence[TestSetComparison]) -> list[str]:
    lines = []
    for comparison in comparisons:
        if not comparison.removed:
            continue
        assert comparison.baseline is not None
        shown = [t.describe() for t in comparison.removed[:MAX_LISTED]]
        more = len(comparison.removed) - len(shown)
        lines.append(
            f"{len(comparison.removed)} test(s) that ran on the base branch"
            f" ({run_label(comparison.baseline)}) are missing or skipped in"
            f" {comparison.workflow_path} on the head: {', '.join(shown)}"
            + (f" and {more} more" if more else "")
        )
    return lines


def apply_removed_tests(
    verdict: Verdict, comparisons: Sequence[TestSetComparison], mode: RemovedTests
) -> Verdict:
    """The owner's rule for removed tests, applied to the engine's verdict."""
    lines = removal_lines(comparisons)
    lines += [c.note for c in comparisons if not c.comparable and c.note]
    if not lines or mode is RemovedTests.WARN:
        return verdict
    meaning = ("the claim cannot be verified while they are gone" if mode is RemovedTests.UNVERIFIED
               else "the policy treats this as refuting the claim")
    unmet = Unmet(
        "removed_tests",
        "tests were removed or skipped instead of passing: " + "; ".join(lines)
        + f". Deleting or skipping a test is not fixing it; {meaning}"
        f" (policy removed_tests: {mode}).",
    )
    state = verdict.state
    if mode is RemovedTests.REFUTED:
        state = VerdictState.REFUTED
    elif state is VerdictState.VERIFIED:
        state = VerdictState.UNVERIFIED
    if verdict.state is VerdictState.VERIFIED or state is not verdict.state:
        reason = f"{state}: {unmet.message}"
    else:
        reason = f"{verdict.reason}; and tests were removed or skipped on the head"
    return replace(verdict, state=state, unmet=(*verdict.unmet, unmet), reason=reason)
