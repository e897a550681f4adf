"""Issue 21 item 2: one run, one verdict. When the plugin's record of a run does not count,
the JUnit file that same run wrote does not count either; the JUnit reader refuses a report
whose own plugin properties say the run was modified; and once records are handed on, a
plugin-marked report counts only with the record of its own run. Real pytest runs in
temporary git repositories, each attack beside its honest control."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.tampering_support import CALC, FAILING, PASSING, Project, env, new_project, unmet
from tests.test_producer_tampering import PATCH_IN_TEST


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path)


def _problems(project: Project, *more: str) -> list[str | None]:
    """The problem code of each evidence item of the record (None: it counts)."""
    result = subprocess.run(
        [sys.executable, "-m", "gate", "verify", str(project.claim), "--head-sha", project.head,
         "--format", "json", *more],
        env=env(), capture_output=True, text=True, check=False, timeout=120,
    )
    record: dict[str, Any] = json.loads(result.stdout)
    return [(e["x-claim-gate"].get("problem") or {}).get("code") for e in record["evidence"]]


def _attacked(project: Project) -> None:
    """A test module patches pytest's CallInfo: the failing test reports as passed, and the
    plugin sees the patch (its record and the JUnit's properties say producer_modified)."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, "test_broken.py": FAILING,
                    "test_aaa_patch.py": PATCH_IN_TEST})
    assert project.pytest().returncode == 0  # the attack works: pytest itself sees green
    assert 'name="claim-gate.producer_modified" value="true"' in project.junit.read_text()


def test_control_the_honest_record_and_its_report_verify(project: Project) -> None:
    project.commit({"calc.py": CALC, "test_calc.py": PASSING})
    assert project.pytest().returncode == 0
    for more in (("--junit", str(project.junit)),
                 ("--test-evidence", str(project.evidence), "--junit", str(project.junit))):
        code, verdict = project.verify(*more)
        assert (code, verdict["unmet"]) == (0, []), verdict["reason"]


def test_the_report_alone_is_refused_by_its_own_properties(project: Project) -> None:
    _attacked(project)
    code, verdict = project.verify("--junit", str(project.junit))
    assert code == 1
    found = unmet(verdict)
    assert set(found) == {"producer_modified"}
    assert "says the claim-gate plugin saw its own run modified" in found["producer_modified"]
    assert "CallInfo.from_call" in found["producer_modified"]


def test_the_record_takes_the_report_of_its_run_with_it(project: Project) -> None:
    _attacked(project)
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    assert code == 1
    assert set(unmet(verdict)) == {"producer_modified"}
    assert _problems(project, "--test-evidence", str(project.evidence),
                     "--junit", str(project.junit)) == ["producer_modified", "producer_modified"]


def test_a_plugin_report_without_its_record_does_not_count(project: Project,
                                                             tmp_path: Path) -> None:
    """The record of one run handed on beside the report of another run (of the same commit,
    under another name): the report counts only together with the record of its own run."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING})
    assert project.pytest().returncode == 0
    first = tmp_path / "first-run.xml"
    shutil.copy(project.junit, first)
    assert project.pytest().returncode == 0  # the second run writes the record handed on
    # The record counts for its own run; the other run's report does not count beside it.
    assert _problems(project, "--test-evidence", str(project.evidence),
                     "--junit", str(first)) == [None, "unbound_report"]
    # The control: the same record with its own run's report: both count.
    assert _problems(project, "--test-evidence", str(project.evidence),
                     "--junit", str(project.junit)) == [None, None]


EXITS_EARLY = ("import pytest\n\n\ndef test_first():\n    assert True\n\n\n"
               "def test_second():\n    pytest.exit('done', returncode=0)\n\n\n"
               "def test_third():\n    assert False\n")


def test_a_session_ended_by_pytest_exit_is_incomplete(project: Project) -> None:
    """Issue 21 item 5 (in part): `pytest.exit(returncode=0)` mid-session is an early end,
    not a pass: the record says interrupted, and the JUnit of the same run falls with it."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, "test_exit.py": EXITS_EARLY})
    assert project.pytest().returncode == 0  # pytest itself exits 0
    assert project.record()["observed_value"]["exit_status"] == 2
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    assert code == 1
    assert set(unmet(verdict)) == {"incomplete_run"}
    assert _problems(project, "--test-evidence", str(project.evidence),
                     "--junit", str(project.junit)) == ["incomplete_run", "incomplete_run"]
