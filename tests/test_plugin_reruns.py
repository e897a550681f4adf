"""A session run with pytest-rerunfailures (`--reruns`): pytest's JUnit writer gives every
attempt a `<testcase>` of its own (an attempt that is rerun has no result element), while the
record counts each test once, by its last attempt. The plugin reads its own file back with
repeated cases as attempts, so an honest flaky run is not "the JUnit file was changed after
the run" (`evidence_mismatch`), and a test that fails every attempt still fails."""

from __future__ import annotations

from pathlib import Path

from tests.tampering_support import CALC, new_project, unmet

FLAKY = (
    "RUNS = []\n\n"
    "def test_flaky():\n"
    "    RUNS.append(1)\n"
    "    assert len(RUNS) >= 2\n\n"
    "def test_steady():\n"
    "    assert True\n"
)
ALWAYS_FAILING = "def test_broken():\n    assert 1 == 2\n"


def test_a_flaky_test_rerun_until_it_passes_verifies(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    project.commit({"calc.py": CALC, "test_flaky.py": FLAKY})
    run = project.pytest("--reruns", "2")
    assert run.returncode == 0, run.stdout
    assert project.junit.read_text().count("<testcase") == 3  # two attempts and the steady one
    record = project.record()
    assert record["observed_value"]["tests"] == 2
    assert record["observed_value"]["flaky"] == 1
    assert record["x-junit-report"]["totals"]["tests"] == 2
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert code == 0, unmet(verdict)


def test_a_test_failing_every_attempt_still_fails(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    project.commit({"calc.py": CALC, "test_broken.py": ALWAYS_FAILING})
    run = project.pytest("--reruns", "2")
    assert run.returncode == 1, run.stdout
    record = project.record()
    assert record["x-junit-report"]["totals"] == {
        "tests": 1, "failures": 1, "errors": 0, "skipped": 0}
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert code != 0
    assert "evidence_mismatch" not in unmet(verdict), unmet(verdict)
