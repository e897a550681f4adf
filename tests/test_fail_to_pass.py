"""Fail-to-pass in a temporary git repository, the documented two-job shape: the test job runs
the head's tests, then `claim-gate base-code` and the same tests over the base's code; the gate
job, in a fresh clone, reads both reports (`--base-code-junit`) under `fail_to_pass: require`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.claim.fail_to_pass import FailToPassPolicy, plan_base_code
from tests.gitrepo import commit_all, git
from tests.other_ci_support import (
    CALC,
    TESTS,
    TIMEOUT_S,
    Pipeline,
    claim_text,
    edits,
    new_pipeline,
    outcome,
)
from tests.tampering_support import env

BUGGY = CALC.replace("return a + b", "return int(a) + int(b)")
FIXED = CALC.replace("return a + b", "return float(a) + float(b)")
REAL_TEST = TESTS + "\ndef test_add_floats():\n    assert add(0.5, 0.25) == 0.75\n"
EITHER_WAY = TESTS + "\ndef test_add_floats():\n    assert add(2, 3) == 5\n"
REQUIRE = "id: f2p\nrequires: [test_run]\nfail_to_pass: require\n"


def base_code(work: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gate", "base-code", "--base", "main", *more],
                          cwd=work, env=env(), capture_output=True, text=True, check=False,
                          timeout=TIMEOUT_S)


def buggy_base(tmp_path: Path) -> Pipeline:
    """main holds the bug: add() truncates floats."""
    pipeline = new_pipeline(tmp_path)
    (pipeline.work / "calc.py").write_text(BUGGY)
    commit_all(pipeline.work, "add() through int")
    return pipeline


def run_test_job_with_base_code(pipeline: Pipeline, tests: str) -> None:
    """The agent's fix and a test; the head's run, then the same tests over the base's code."""
    pipeline.branch({"calc.py": FIXED, "test_calc.py": tests},
                    claim_text(edits(["calc.py", "test_calc.py"])))
    pipeline.pytest(pipeline.work)
    prepared = base_code(pipeline.work)
    assert prepared.returncode == 0, prepared.stderr
    assert "restored calc.py" in prepared.stdout
    pipeline.pytest(pipeline.work, "--junitxml", "out/base-code.xml",
                    "--claim-evidence", "out/base-code-record.json")
    shutil.rmtree(pipeline.artifacts, ignore_errors=True)
    shutil.copytree(pipeline.work / "out", pipeline.artifacts)


def gate(pipeline: Pipeline, tmp_path: Path, policy: str = REQUIRE, *more: str
         ) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "policy.yaml"
    path.write_text(policy)
    return pipeline.gate_job("--policy", str(path), *more)


def with_base_code(pipeline: Pipeline) -> tuple[str, str]:
    return "--base-code-junit", str(pipeline.artifacts / "base-code.xml")


def test_a_fix_with_a_test_that_fails_without_it_verifies(tmp_path: Path) -> None:
    pipeline = buggy_base(tmp_path)
    run_test_job_with_base_code(pipeline, REAL_TEST)
    result = gate(pipeline, tmp_path, REQUIRE, *with_base_code(pipeline))
    assert outcome(result) == (0, set()), result.stdout + result.stderr
    verdict = json.loads(result.stdout)["verdict"]
    assert verdict["x-fail-to-pass"] == ["test_calc::test_add_floats"]
    assert any("1 test fails on the base's code and passes on the head:"
               " test_calc::test_add_floats" in note for note in verdict["x-notes"]), verdict


def test_a_test_that_passes_either_way_is_no_evidence_of_a_fix(tmp_path: Path) -> None:
    pipeline = buggy_base(tmp_path)
    run_test_job_with_base_code(pipeline, EITHER_WAY)
    result = gate(pipeline, tmp_path, REQUIRE, *with_base_code(pipeline))
    assert outcome(result) == (1, {"no_fail_to_pass"}), result.stdout + result.stderr
    assert "3 tests pass on both, which is no evidence of a fix" in result.stdout
    # report (the default) lists what it found and verifies
    listed = gate(pipeline, tmp_path, "id: f2p\nrequires: [test_run]\n", *with_base_code(pipeline))
    assert outcome(listed) == (0, set()), listed.stdout


def test_require_without_a_base_code_report_is_unverified(tmp_path: Path) -> None:
    pipeline = buggy_base(tmp_path)
    run_test_job_with_base_code(pipeline, REAL_TEST)
    result = gate(pipeline, tmp_path)
    assert outcome(result) == (1, {"no_fail_to_pass"})
    assert "--base-code-junit" in result.stdout


def test_base_code_refuses_a_dirty_tree(tmp_path: Path) -> None:
    pipeline = buggy_base(tmp_path)
    pipeline.branch({"calc.py": FIXED, "test_calc.py": REAL_TEST}, claim_text())
    (pipeline.work / "calc.py").write_text(FIXED + "\n# uncommitted\n")
    refused = base_code(pipeline.work)
    assert refused.returncode == 3
    assert "not clean" in refused.stderr
    assert (pipeline.work / "calc.py").read_text().endswith("# uncommitted\n")  # untouched


@pytest.mark.parametrize("tamper", ["edit after the plan", "another head"])
def test_a_base_code_run_not_bound_to_the_plan_and_head_does_not_count(
        tmp_path: Path, tamper: str) -> None:
    pipeline = buggy_base(tmp_path)
    pipeline.branch({"calc.py": FIXED, "test_calc.py": REAL_TEST},
                    claim_text(edits(["calc.py", "test_calc.py"])))
    pipeline.pytest(pipeline.work)
    if tamper == "another head":  # the plan and the run made on an earlier commit
        git(pipeline.work, "checkout", "-q", "main")
    assert base_code(pipeline.work).returncode == 0
    if tamper == "edit after the plan":
        (pipeline.work / "calc.py").write_text(BUGGY.replace("int(a)", "int(a) - 1"))
    pipeline.pytest(pipeline.work, "--junitxml", "out/base-code.xml",
                    "--claim-evidence", "out/base-code-record.json")
    shutil.rmtree(pipeline.artifacts, ignore_errors=True)
    shutil.copytree(pipeline.work / "out", pipeline.artifacts)
    result = gate(pipeline, tmp_path, REQUIRE, *with_base_code(pipeline))
    assert outcome(result) == (1, {"no_fail_to_pass"}), result.stdout + result.stderr


def test_the_attestation_names_the_fail_to_pass_level_when_required_and_found(
        tmp_path: Path) -> None:
    pipeline = buggy_base(tmp_path)
    run_test_job_with_base_code(pipeline, REAL_TEST)
    statement = tmp_path / "vsa.json"
    result = gate(pipeline, tmp_path, REQUIRE, *with_base_code(pipeline),
                  "--attestation", str(statement))
    assert result.returncode == 0, result.stderr
    levels = json.loads(statement.read_text())["predicate"]["verifiedLevels"]
    assert levels == ["CLAIM_GATE_VERIFIED", "CLAIM_GATE_FAIL_TO_PASS"]


def test_the_plan_keeps_tests_and_puts_code_back() -> None:
    plan = plan_base_code([
        ChangedPath(ChangeStatus.MODIFIED, "src/app.py"),
        ChangedPath(ChangeStatus.ADDED, "src/new.py"),
        ChangedPath(ChangeStatus.ADDED, "tests/test_new.py"),
        ChangedPath(ChangeStatus.DELETED, "src/old.py"),
        ChangedPath(ChangeStatus.RENAMED, "src/b.py", "src/a.py"),
        ChangedPath(ChangeStatus.MODIFIED, "web/button.test.tsx"),
        ChangedPath(ChangeStatus.MODIFIED, "pkg/x_test.go"),
    ], FailToPassPolicy())
    assert plan.restore == ("src/a.py", "src/app.py", "src/old.py")
    assert plan.remove == ("src/b.py", "src/new.py")
    assert plan.tests == ("pkg/x_test.go", "tests/test_new.py", "web/button.test.tsx")
