"""Issue 21 item 5: complete runs only. A session that ends before its end is not a pass, by
whatever spelling and whatever status it exits with: a test passes only with its call
report, the record says how many tests were collected and which of them did not finish, and
a session ended by `pytest.exit` is incomplete even at exit status 0. Real pytest runs in
temporary git repositories as the two-job recipe runs them, each attack beside its control."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gate.claim.junit_facts import JUnitRun
from gate.evidence.junit import observed_value, run_evidence
from gate.evidence.junit_reader import read_junit_file
from tests.tampering_support import CALC, PASSING, Project, env, new_project, unmet


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path)


def _module(ending: str, fixture: str = "") -> str:
    """A test module whose second test ends the session (`ending`, its body) before the
    third, failing test can run."""
    return (f"import os, sys\nimport pytest\n{fixture}\n\ndef test_first():\n    assert True\n\n\n"
            f"def test_second(request):\n    {ending}\n\n\ndef test_third():\n    assert False\n")


TEARDOWN_EXIT = ("\n\n@pytest.fixture\ndef leaves():\n    yield\n"
                 "    pytest.exit('done', returncode=0)\n")
#: calc.py, the code under test, ends the session when the test calls it.
CALC_EXITS = CALC.replace("    return a + b", "    import pytest\n    pytest.exit('', 0)")

#: name: (files of the change, what pytest's own exit status is)
ENDINGS: dict[str, tuple[dict[str, str], int]] = {
    "pytest.exit(returncode=0)": (
        {"test_exit.py": _module("pytest.exit('done', returncode=0)")}, 0),
    "raise pytest.exit.Exception": (
        {"test_exit.py": _module("raise pytest.exit.Exception('done', returncode=0)")}, 0),
    "raise _pytest.outcomes.Exit": (
        {"test_exit.py": _module("from _pytest.outcomes import Exit\n"
                                 "    raise Exit('done', returncode=0)")}, 0),
    "pytest.exit in a fixture's teardown, after the call passed": (
        {"test_exit.py": _module("request.getfixturevalue('leaves')", TEARDOWN_EXIT)}, 0),
    "pytest.exit from the code under test": (
        {"calc.py": CALC_EXITS, "test_exit.py": _module("assert True")}, 0),
    "session.shouldstop": (
        {"test_exit.py": _module("request.session.shouldstop = 'done'")}, 2),
    "raise KeyboardInterrupt": (
        {"test_exit.py": _module("raise KeyboardInterrupt")}, 2),
}


def _problems(project: Project) -> list[str | None]:
    """The problem code of the record and of the JUnit file of its run (None: it counts)."""
    result = subprocess.run(
        [sys.executable, "-m", "gate", "verify", str(project.claim), "--head-sha", project.head,
         "--format", "json", "--test-evidence", str(project.evidence), "--junit",
         str(project.junit)],
        env=env(), capture_output=True, text=True, check=False, timeout=120,
    )
    record: dict[str, Any] = json.loads(result.stdout)
    return [(e["x-claim-gate"].get("problem") or {}).get("code") for e in record["evidence"]]


def test_control_a_run_to_its_end_verifies(project: Project) -> None:
    project.commit({"calc.py": CALC, "test_calc.py": PASSING,
                    "test_exit.py": _module("assert True").replace("assert False", "assert 1")})
    assert project.pytest().returncode == 0
    observed = project.record()["observed_value"]
    assert (observed["collected"], observed["tests"], observed["passed"]) == (4, 4, 4)
    assert (observed["unfinished"], observed["interrupted"]) == (0, False)
    for more in (("--junit", str(project.junit)),
                 ("--test-evidence", str(project.evidence), "--junit", str(project.junit))):
        code, verdict = project.verify(*more)
        assert (code, verdict["unmet"]) == (0, []), verdict["reason"]
    properties = project.junit.read_text()
    assert '<property name="claim-gate.unfinished" value="0" />' in properties
    assert '<property name="claim-gate.interrupted" value="false" />' in properties


@pytest.mark.parametrize("name", list(ENDINGS))
def test_a_session_ended_early_is_incomplete_whatever_its_status(project: Project,
                                                                  name: str) -> None:
    files, status = ENDINGS[name]
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, **files})
    assert project.pytest().returncode == status
    record = project.record()
    observed = record["observed_value"]
    assert observed["failures"] == 0  # the failing test never ran
    assert observed["interrupted"] is True
    assert "test_exit.py::test_third" in observed["unfinished_tests"]
    assert observed["collected"] == 4
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    assert code == 1
    assert set(unmet(verdict)) == {"incomplete_run"}, verdict["unmet"]
    assert _problems(project) == ["incomplete_run", "incomplete_run"]
    # The JUnit file alone (all the Action reads) says the same through its properties.
    code, verdict = project.verify("--junit", str(project.junit))
    assert code == 1
    assert set(unmet(verdict)) == {"incomplete_run"}, verdict["unmet"]


def test_a_test_ended_in_its_call_did_not_pass(project: Project) -> None:
    """The test the session ended in had its setup report only: it is not a pass, and it is
    named among the tests that did not finish."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING,
                    "test_exit.py": _module("pytest.exit('done', returncode=0)")})
    assert project.pytest().returncode == 0
    observed = project.record()["observed_value"]
    assert (observed["tests"], observed["passed"]) == (2, 2)
    assert observed["unfinished_tests"] == ["test_exit.py::test_second",
                                            "test_exit.py::test_third"]
    assert project.record()["x-interrupted-by"] == "pytest.exit: done (returncode=0)"


def test_os_exit_mid_test_leaves_no_record_and_no_verdict(project: Project) -> None:
    """`os._exit(0)` ends the process before any report is written: the record handed on is
    missing, and a missing record is never a pass."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING,
                    "test_exit.py": _module("os._exit(0)")})
    assert project.pytest().returncode == 0
    assert not project.evidence.exists()
    assert not project.junit.exists()
    result = subprocess.run(
        [sys.executable, "-m", "gate", "verify", str(project.claim), "--head-sha", project.head,
         "--test-evidence", str(project.evidence)],
        env=env(), capture_output=True, text=True, check=False, timeout=120,
    )
    assert result.returncode == 3  # invalid input: the gate's check blocks, naming the file
    assert "no such evidence file" in result.stderr


def test_sys_exit_in_a_test_is_a_failure_that_refutes(project: Project) -> None:
    """`sys.exit(0)` inside a test is pytest's failure, not an early end: the run refutes."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING,
                    "test_exit.py": _module("sys.exit(0)")})
    assert project.pytest().returncode == 1
    observed = project.record()["observed_value"]
    assert (observed["failures"], observed["interrupted"]) == (2, False)
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    assert (code, verdict["state"]) == (2, "refuted")


def _report(path: Path, *shards: tuple[str, str]) -> Path:
    """A JUnit file of one passing case per shard, each with the plugin's completion
    properties (unfinished, interrupted)."""
    suites = "".join(
        f'<testsuite name="s{i}" tests="1"><properties>'
        f'<property name="claim-gate.unfinished" value="{unfinished}"/>'
        f'<property name="claim-gate.interrupted" value="{interrupted}"/></properties>'
        f'<testcase classname="t{i}" name="test_ok"/></testsuite>'
        for i, (unfinished, interrupted) in enumerate(shards))
    path.write_text(f"<testsuites>{suites}</testsuites>")
    return path


def test_the_report_carries_the_plugins_word_that_its_run_did_not_finish(
        tmp_path: Path) -> None:
    finished = read_junit_file(_report(tmp_path / "a.xml", ("0", "false"), ("0", "false")))
    assert (finished.plugin_unfinished, finished.plugin_interrupted) == (0, None)
    assert "unfinished" not in observed_value(JUnitRun((finished,)))
    ended = read_junit_file(_report(tmp_path / "b.xml", ("2", "false"),
                                    ("1", "pytest.exit: done (returncode=0)")))
    assert (ended.plugin_unfinished, ended.plugin_interrupted) == (
        3, "pytest.exit: done (returncode=0)")
    item = run_evidence(JUnitRun((ended,)))
    assert isinstance(item.evidence.observed_value, dict)
    assert (item.evidence.observed_value["unfinished"],
            item.evidence.observed_value["interrupted"]) == (3, True)
    assert item.evidence.extensions["x-interrupted-by"] == (
        f"{ended.path}: pytest.exit: done (returncode=0)")
    # A value that is no count is not "nothing unfinished".
    odd = read_junit_file(_report(tmp_path / "c.xml", ("many", "false")))
    assert odd.plugin_unfinished == 1
    # Nor is a Unicode digit int() refuses, or a number too long for int() to read: the
    # reader names them unfinished instead of failing on them.
    for i, value in enumerate(("\u00b2", "9" * 5000)):
        hostile = read_junit_file(_report(tmp_path / f"d{i}.xml", (value, "false")))
        assert hostile.plugin_unfinished == 1
