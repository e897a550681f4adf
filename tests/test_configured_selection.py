"""Issue 24 item 13 (b): a selection the committed ini file makes is the project's suite.

packaging commits `addopts = ["-m", "not property"]`: every run of its suite is narrowed by
`-m`, so a passing run was unverified (`narrowed_selection`) and a failing one not refuted.
The plugin records which options only the ini file's addopts gave; the engine takes those as
the suite (the file itself is on the evidence chain). The same `-m` on the command line stays
narrowing, and a narrowed run that fails is refuted. Real git, real pytest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.evidence.pytest_selection import configured_selection
from tests.gitrepo import commit_all
from tests.other_ci_support import CALC, TESTS, Pipeline, claim_text, edits, new_pipeline

SLOW = TESTS + "\n\nimport pytest\n\n@pytest.mark.slow\ndef test_slow():\n    assert True\n"
INI = ('[tool.pytest.ini_options]\naddopts = ["-m", "not slow"]\n'
       'markers = ["slow: long"]\n')
MARKERS_ONLY = '[tool.pytest.ini_options]\nmarkers = ["slow: long"]\n'
FLOAT = CALC.replace("return a + b", "return float(a) + float(b)")
BROKEN = CALC.replace("return a - b", "return a + b")


@pytest.mark.parametrize(("ini", "invocation", "env", "expected"), [
    (["-m", "not slow"], [], None, {"markexpr": "addopts in pyproject.toml"}),
    (["-m", "not slow"], ["-m", "not slow"], None, {}),  # also on the command line
    (["-m", "not slow"], [], "-m 'not slow'", {}),  # also in PYTEST_ADDOPTS
    (["-m", "not slow"], ["-vm", "x"], None, {}),  # a cluster that may hold -m
    (["-q"], ["-m", "x"], None, {}),  # only the command line
    (["-m", "x"], [], "-m 'unclosed", {}),  # unreadable PYTEST_ADDOPTS: could be anything
])
def test_which_selection_the_ini_file_gave(
    ini: list[str], invocation: list[str], env: str | None, expected: dict[str, str]
) -> None:
    found = configured_selection({"markexpr": "not slow"}, ini, invocation, env,
                                 "pyproject.toml")
    assert found == expected


def _project(tmp_path: Path, ini: str, calc: str) -> Pipeline:
    pipeline = new_pipeline(tmp_path)
    (pipeline.work / "pyproject.toml").write_text(ini)
    (pipeline.work / "test_calc.py").write_text(SLOW)
    commit_all(pipeline.work, "the project's suite leaves slow tests out")
    pipeline.branch({"calc.py": calc}, claim_text(edits(["calc.py"])))
    return pipeline


def _verdict(pipeline: Pipeline, *run: str) -> dict[str, object]:
    pipeline.test_job(*run)
    result = pipeline.gate_job()
    verdict = json.loads(result.stdout)["verdict"]
    assert isinstance(verdict, dict), result.stderr
    return verdict


def test_the_projects_own_addopts_is_its_suite(tmp_path: Path) -> None:
    verdict = _verdict(_project(tmp_path, INI, FLOAT))
    assert verdict["state"] == "verified", verdict["reason"]


def test_the_same_selection_on_the_command_line_is_narrowed(tmp_path: Path) -> None:
    verdict = _verdict(_project(tmp_path, MARKERS_ONLY, FLOAT), "-m", "not slow")
    assert verdict["state"] == "unverified"
    unmet = verdict["unmet"]
    assert isinstance(unmet, list)
    assert "narrowed_selection" in {u["code"] for u in unmet}


def test_a_narrowed_run_that_fails_is_refuted(tmp_path: Path) -> None:
    verdict = _verdict(_project(tmp_path, MARKERS_ONLY, BROKEN), "-m", "not slow")
    assert verdict["state"] == "refuted", verdict["reason"]
