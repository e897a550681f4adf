"""The pytest plugin in real inner pytest sessions (pytester), in real git repositories."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from gate import __version__
from gate.claim.loader import load_evidence_records
from gate.claim.schema import schema_errors
from tests.gitrepo import COMMIT_VARIABLES, commit_all, git, init_repo

pytest_plugins = ["pytester"]

SUITE = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("fixture failed")

def test_passes():
    assert True

@pytest.mark.parametrize("n", range(4))
def test_parametrised(n):
    assert n >= 0

def test_fails():
    assert 1 == 2

def test_errors(broken):
    pass

@pytest.mark.skip(reason="not today")
def test_skipped():
    pass

@pytest.mark.xfail(reason="known bug")
def test_xfails():
    assert False
"""
PASSING = "def test_one():\n    assert True\n\ndef test_two():\n    assert True\n"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A committed project; the host CI's commit variables must not leak into the session."""
    for name in COMMIT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    pytester.makepyfile(test_suite=SUITE)
    pytester.makefile(".gitignore", "")  # nothing ignored on purpose: the plugin copes alone
    init_repo(pytester.path)
    commit_all(pytester.path, "initial")
    return pytester


def _record(path: Path) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(path.read_text("utf-8"))
    assert list(schema_errors(raw, "#/$defs/evidence")) == []
    load_evidence_records(path)  # the gate's own loader reads it
    return raw


def _properties(junit: Path) -> dict[str, str]:
    root = ET.parse(junit).getroot()  # noqa: S314 - our own pytest's report
    return {p.get("name", ""): p.get("value", "") for p in root.iter("property")}


def test_a_clean_tree_is_bound_to_head_in_record_and_junit(project: pytest.Pytester) -> None:
    result = project.runpytest("--claim-evidence", "out/evidence.json", "--junitxml", "junit.xml")
    result.assert_outcomes(passed=5, failed=1, errors=1, skipped=1, xfailed=1)
    record = _record(project.path / "out" / "evidence.json")
    head = git(project.path, "rev-parse", "HEAD")
    assert record["x-commit"] == head
    assert record["x-commit-source"] == "git"
    assert record["x-tree-clean"] is True
    assert record["verifier"] == {"id": f"claim-gate/pytest@{__version__}", "kind": "independent"}
    assert record["covers"] == []
    assert record["at"].endswith("Z")
    assert record["x-finished-at"] >= record["at"]
    assert record["x-pytest-version"] == pytest.__version__
    assert record["x-plugin-version"] == __version__
    properties = _properties(project.path / "junit.xml")
    assert properties == {
        "claim-gate.commit": head,
        "claim-gate.tree_clean": "true",
        "claim-gate.started_at": record["at"],
        # Issue 16: the run's producer inventory, judged clean, tied to the record's.
        "claim-gate.producer_modified": "false",
        "claim-gate.inventory_digest": record["x-producer-inventory"]["digest"],
        # Issue 21 item 5: the run finished, in the report as in the record.
        "claim-gate.unfinished": "0",
        "claim-gate.interrupted": "false",
    }
    result.stdout.fnmatch_lines([f"claim-gate: evidence written to *: commit {head[:12]} (git)*"])


def test_totals_and_failing_node_ids(project: pytest.Pytester) -> None:
    project.runpytest("--claim-evidence", "evidence.json")
    observed = _record(project.path / "evidence.json")["observed_value"]
    assert observed == {
        "tests": 9, "passed": 5, "failures": 1, "errors": 1, "skipped": 2, "flaky": 0,
        "failed_tests": ["test_suite.py::test_fails"],
        "errored_tests": ["test_suite.py::test_errors"],
        "exit_status": 1, "collected": 9, "unfinished": 0, "unfinished_tests": [],
        "interrupted": False,
    }


def test_a_second_run_is_still_clean_despite_its_own_outputs(project: pytest.Pytester) -> None:
    args = ("--claim-evidence", "evidence.json", "--junitxml", "reports/junit.xml")
    project.runpytest(*args)
    project.runpytest(*args)  # evidence, report, __pycache__ and .pytest_cache now exist
    assert _record(project.path / "evidence.json")["x-tree-clean"] is True


def test_a_dirty_tree_is_recorded_as_dirty(project: pytest.Pytester) -> None:
    project.makepyfile(helper="VALUE = 'uncommitted'\n")
    (project.path / "test_suite.py").write_text(PASSING)
    project.runpytest("--claim-evidence", "evidence.json", "--junitxml", "junit.xml")
    record = _record(project.path / "evidence.json")
    assert record["x-commit"] == git(project.path, "rev-parse", "HEAD")
    assert record["x-tree-clean"] is False
    assert sorted(record["x-dirty-paths"]) == ["helper.py", "test_suite.py"]
    assert _properties(project.path / "junit.xml")["claim-gate.tree_clean"] == "false"


def test_without_git_the_commit_is_unknown_and_the_session_unharmed(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (project.path / "test_suite.py").write_text(PASSING)
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = project.runpytest("--claim-evidence", "evidence.json", "--junitxml", "junit.xml")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=2)
    record = _record(project.path / "evidence.json")
    assert (record["x-commit"], record["x-tree-clean"]) == (None, None)
    assert record["x-commit-problem"] == "git is not installed; no CI commit variable set"
    assert _properties(project.path / "junit.xml")["claim-gate.commit"] == "unknown"
    result.stdout.fnmatch_lines(["claim-gate: evidence written to *: commit unknown (git is*"])


def test_without_git_the_ci_commit_variable_is_used(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CIRCLE_SHA1", "C" * 40)
    project.runpytest("--claim-evidence", "evidence.json")
    record = _record(project.path / "evidence.json")
    assert (record["x-commit"], record["x-commit-source"]) == ("c" * 40, "env:CIRCLE_SHA1")
    assert record["x-tree-clean"] is None


def test_xdist_writes_one_record_counting_every_workers_tests(project: pytest.Pytester) -> None:
    project.makepyfile(test_many="\n".join(
        f"def test_{index}():\n    assert {index % 10} != 3\n" for index in range(40)
    ))
    # runpytest_subprocess leaves its own files in the project: they are pytester's, not ours.
    (project.path / ".gitignore").write_text("runpytest-*\n/stdout\n/stderr\n")
    commit_all(project.path, "more tests")
    result = project.runpytest_subprocess(
        "-n", "2", "-p", "no:cacheprovider", "--claim-evidence", "evidence.json",
        "--junitxml", "junit.xml",
    )
    result.assert_outcomes(passed=41, failed=5, errors=1, skipped=1, xfailed=1)
    record = _record(project.path / "evidence.json")
    observed = record["observed_value"]
    assert (observed["tests"], observed["passed"], observed["failures"]) == (49, 41, 5)
    assert sorted(observed["failed_tests"]) == sorted(
        ["test_suite.py::test_fails"] + [f"test_many.py::test_{i}" for i in (3, 13, 23, 33)]
    )
    assert record["x-xdist-workers"] == 2
    # The workers collected the modules: the controller still holds each against the commit.
    sources = record["x-producer-inventory"]["test_sources"]
    assert (sources["checked"], sources["differing"]) == (2, []), sources
    assert record["x-tree-clean"] is True, record.get("x-dirty-paths")
    assert record["x-commit"] == git(project.path, "rev-parse", "HEAD")
    assert _properties(project.path / "junit.xml")["claim-gate.commit"] == record["x-commit"]
    assert sorted(p.name for p in project.path.glob("*evidence.json*")) == ["evidence.json"]


def test_the_plugin_never_changes_outcomes(project: pytest.Pytester) -> None:
    without = project.runpytest("-p", "no:claim_gate")
    with_plugin = project.runpytest("--claim-evidence", "evidence.json")
    assert with_plugin.ret == without.ret == pytest.ExitCode.TESTS_FAILED
    assert with_plugin.parseoutcomes() == without.parseoutcomes()


def test_a_collection_error_is_recorded_as_an_error(project: pytest.Pytester) -> None:
    project.makepyfile(test_broken="import no_such_module_anywhere\n")
    result = project.runpytest("--claim-evidence", "evidence.json")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    observed = _record(project.path / "evidence.json")["observed_value"]
    assert observed["errored_tests"] == ["test_broken.py"]
    assert observed["exit_status"] == 2


def test_a_narrowed_run_says_how_but_not_the_command_line(project: pytest.Pytester) -> None:
    project.runpytest("--claim-evidence", "evidence.json", "-k", "parametrised",
                      "--deselect", "test_suite.py::test_parametrised[0]", "test_suite.py")
    record = _record(project.path / "evidence.json")
    assert record["observed_value"]["tests"] == 3
    assert record["x-test-paths"] == ["test_suite.py"]
    assert record["x-selection"] == {
        "keyword": "parametrised", "deselect": ["test_suite.py::test_parametrised[0]"],
    }
    assert "evidence.json" not in json.dumps(record)


def test_inactive_without_the_option(project: pytest.Pytester) -> None:
    result = project.runpytest("--junitxml", "junit.xml")
    assert not list(project.path.rglob("*evidence*"))
    assert "claim-gate: evidence" not in result.stdout.str()
    assert _properties(project.path / "junit.xml") == {}


def test_unloaded_with_p_no(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:claim_gate", "--claim-evidence", "x.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_an_unwritable_record_is_reported_not_raised(project: pytest.Pytester) -> None:
    (project.path / "test_suite.py").write_text(PASSING)
    (project.path / "taken").mkdir()
    result = project.runpytest("--claim-evidence", "taken")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["claim-gate: could not write evidence to *taken*"])
    assert [p.name for p in (project.path).iterdir() if p.name.startswith(".taken")] == []
