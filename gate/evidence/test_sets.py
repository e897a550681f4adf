"""The head's test set against the base branch's: which tests ran there and are missing or
only skipped here. One comparison for both faces: the Action reads the base's JUnit from the
base branch's latest run (`github/baseline.py`), the command line from `--base-junit`.
What a removal means is the engine's rule (`gate/engine/removed_tests.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.claim.github_facts import RemovedTest, TestSetComparison, WorkflowRun
from gate.claim.junit_facts import JUnitFile, Outcome

#: Tests whose identities are kept per file when comparing (beyond it: cannot compare).
MAX_COMPARED_TESTS = 200_000
EXECUTED = (Outcome.PASSED, Outcome.FAILURE, Outcome.ERROR)


def outcomes(files: Sequence[JUnitFile]) -> tuple[dict[str, Outcome], bool]:
    """identity -> best outcome over files (executed beats skipped), and whether complete."""
    found: dict[str, Outcome] = {}
    complete = True
    for file in files:
        complete = complete and file.identities_complete and file.identities is not None
        for key, outcome in (file.identities or {}).items():
            before = found.get(key)
            if before is None or (before is Outcome.SKIPPED and outcome in EXECUTED):
                found[key] = outcome
    return found, complete


def compare(
    workflow: str,
    base_files: Sequence[JUnitFile],
    head_files: Sequence[JUnitFile],
    *,
    baseline: WorkflowRun | None = None,
    base_label: str | None = None,
    cap: int = MAX_COMPARED_TESTS,
) -> TestSetComparison:
    """Every test executed on the base that the head lacks or only skipped (a deselected
    test is missing from the head's report, so it is listed too)."""
    read = tuple((f"baseline {f.path}", f.sha256) for f in base_files)
    base, base_complete = outcomes(base_files)
    head, head_complete = outcomes(head_files)
    label = base_label if baseline is None else None
    if not (base_complete and head_complete):
        described = TestSetComparison(workflow, baseline, base_label=label).describe_baseline()
        return TestSetComparison(
            workflow, baseline, comparable=False,
            note=f"more than {cap} tests in one file: the test sets of the head and"
            f" {described} were not compared", inputs=read, base_label=label)
    removed = tuple(
        RemovedTest(key, outcome, head.get(key))
        for key, outcome in sorted(base.items())
        if outcome in EXECUTED and head.get(key) not in EXECUTED
    )
    return TestSetComparison(workflow, baseline, removed, inputs=read, base_label=label)
