"""The base branch's test set, read to compare with the head's (removed or skipped tests).

For each workflow whose JUnit the head produced, read the JUnit of the latest finished run
(success or failure: a red base is exactly when deleting the failing test is tempting) of
the same workflow file on the base branch, from a push, schedule or dispatch (never a pull
request's run, whose workflow the PR could have changed), and record every test that ran
there and is missing or skipped on the head. What a removal means is the engine's rule
(`gate/engine/removed_tests.py`); so is a baseline that cannot be read (no finished run, an
expired or deleted artifact, no JUnit in it): it is recorded as not comparable, never as
"nothing removed". The gate does not search back to an older readable run: tests added to
the base since then would go unseen, and whoever can delete the latest artifact would choose
the baseline.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from gate.claim.github_facts import TestSetComparison, WorkflowRun, run_label
from gate.claim.junit_facts import JUnitFile, JUnitRun
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.ci_evidence import read_artifact_junit
from gate.evidence.test_sets import MAX_COMPARED_TESTS, compare

__all__ = ["MAX_COMPARED_TESTS", "compare_test_sets"]

_BASELINE_CONCLUSIONS = frozenset({"success", "failure"})


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
                    workflow, baseline, comparable=False, note=f"the base branch's"
                    f" {run_label(baseline)} cannot be compared: {why}"))
                continue
            results.append(compare(workflow, base_files, head_files, baseline=baseline,
                                   cap=cap))
    return results
