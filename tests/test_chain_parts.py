"""Issue 24 item 6: a structured chain file is judged by the parts that change how tests run.

A version bump in pyproject.toml left a fully tested PR unverified (`producer_modified`, once
per mutation) because the whole file is on the evidence chain. The collector reads a modified
pyproject.toml, package.json or setup.cfg at base and head and records the parts that differ;
the engine keeps the file on the chain when any part beyond plain metadata changed, and
whole when it cannot be parsed. Each attack beside its honest control: on the command line
(real git, real pytest) and on GitHub (the stand-in)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from gate.claim.change_facts import ChainFileChange
from gate.engine.chain_parts import WAY_OUT, on_chain
from gate.evidence.chain_files import chain_file_change
from tests.action_support import T0, act, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.gitrepo import commit_all
from tests.other_ci_support import CALC, claim_text, edits, new_pipeline

FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")

PYPROJECT = ('[project]\nname = "calc"\nversion = "1.0"\nclassifiers = ["A"]\n'
             'dependencies = ["attrs"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n')
PACKAGE = {"name": "calc", "version": "1.0.0", "scripts": {"test": "jest"},
           "devDependencies": {"jest": "29"}}
SETUP_CFG = ("[metadata]\nname = calc\nversion = 1.0\n\n[tool:pytest]\naddopts = -q\n\n"
             "[options.entry_points]\npytest11 =\n    calc = calc.plugin\n")


def _bumped(text: str) -> str:
    return text.replace('version = "1.0"', 'version = "1.1"').replace(
        "version = 1.0", "version = 1.1")


def _parts(path: str, base: str, head: str) -> list[str]:
    return on_chain([path], [chain_file_change(path, base.encode(), head.encode())])


@pytest.mark.parametrize(("path", "base", "head", "expected"), [
    # controls: metadata only
    ("pyproject.toml", PYPROJECT, _bumped(PYPROJECT), []),
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('["A"]', '["A", "B"]'), []),
    ("pkg/pyproject.toml", PYPROJECT, PYPROJECT + "\n# a comment\n", []),
    ("package.json", json.dumps(PACKAGE), json.dumps({**PACKAGE, "version": "1.1.0"}), []),
    ("setup.cfg", SETUP_CFG, _bumped(SETUP_CFG), []),
    # what shapes a test run
    ("pyproject.toml", PYPROJECT, PYPROJECT.replace('"-q"', '"-q -k add"'),
     ["pyproject.toml's tool.pytest.ini_options"]),
    ("pyproject.toml", PYPROJECT, _bumped(PYPROJECT).replace('"attrs"', '"attrs", "evil"'),
     ["pyproject.toml's project.dependencies"]),
    ("pyproject.toml", PYPROJECT, PYPROJECT + '[project.entry-points.pytest11]\nx = "x"\n',
     ["pyproject.toml's project.entry-points"]),
    ("pyproject.toml", PYPROJECT, PYPROJECT + "[tool.coverage.run]\nbranch = true\n",
     ["pyproject.toml's tool.coverage"]),
    ("pyproject.toml", PYPROJECT, PYPROJECT + '[build-system]\nrequires = ["x"]\n',
     ["pyproject.toml's build-system"]),
    ("pyproject.toml", PYPROJECT, PYPROJECT + "[tool.newtool]\nx = 1\n",  # unknown: on
     ["pyproject.toml's tool.newtool"]),
    ("package.json", json.dumps(PACKAGE),
     json.dumps({**PACKAGE, "scripts": {"test": "true"}}), ["package.json's scripts.test"]),
    ("package.json", json.dumps(PACKAGE), json.dumps({**PACKAGE, "jest": {"bail": 1}}),
     ["package.json's jest"]),
    ("setup.cfg", SETUP_CFG, SETUP_CFG.replace("addopts = -q", "addopts = -q -x"),
     ["setup.cfg's [tool:pytest] addopts"]),
    ("setup.cfg", SETUP_CFG, SETUP_CFG.replace("calc.plugin", "calc.other"),
     ["setup.cfg's [options.entry_points] pytest11"]),
    # a type change is a change (Python's 1 == True would hide it)
    ("pyproject.toml", PYPROJECT + "[tool.pytest]\nx = 1\n",
     PYPROJECT + "[tool.pytest]\nx = true\n", ["pyproject.toml's tool.pytest.x"]),
])
def test_which_edits_are_on_the_chain(path: str, base: str, head: str,
                                      expected: list[str]) -> None:
    assert _parts(path, base, head) == expected


@pytest.mark.parametrize(("base", "head", "problem"), [
    (PYPROJECT, _bumped(PYPROJECT) + "[tool.pytest\n", "cannot be parsed at head"),
    ("[project\n", PYPROJECT, "cannot be parsed at base"),
    (PYPROJECT, None, "absent at head"),
])
def test_a_file_that_cannot_be_parsed_stays_on_the_chain_whole(
    base: str, head: str | None, problem: str
) -> None:
    change = chain_file_change("pyproject.toml", base.encode(),
                               None if head is None else head.encode())
    assert not change.parsed
    [found] = on_chain(["pyproject.toml"], [change])
    assert found.startswith("pyproject.toml (judged whole: it ")
    assert problem in found


def test_a_path_without_a_reading_is_judged_whole() -> None:
    read = ChainFileChange("pyproject.toml", (("project", "version"),))
    assert on_chain(["pyproject.toml", "tox.ini"], [read]) == ["tox.ini"]


def _cli(tmp_path: Path, base_files: dict[str, str], head_files: dict[str, str]) -> str:
    """The separate-gate-job shape with `base_files` on main and the agent's edits on top."""
    pipeline = new_pipeline(tmp_path)
    for name, text in base_files.items():
        (pipeline.work / name).write_text(text)
    commit_all(pipeline.work, "the project's own set-up")
    files = {"calc.py": FLOAT_CALC, **head_files}
    pipeline.branch(files, claim_text(edits(files)))
    pipeline.test_job()
    return pipeline.gate_job().stdout


def test_a_version_bump_leaves_a_tested_change_verified_on_the_command_line(
    tmp_path: Path
) -> None:
    stdout = _cli(tmp_path, {"pyproject.toml": PYPROJECT},
                  {"pyproject.toml": _bumped(PYPROJECT)})
    assert json.loads(stdout)["verdict"]["state"] == "verified", stdout


def test_an_edit_to_the_test_options_is_producer_modified_with_one_way_out(
    tmp_path: Path
) -> None:
    stdout = _cli(tmp_path, {"pyproject.toml": PYPROJECT},
                  {"pyproject.toml": _bumped(PYPROJECT).replace('"-q"', '"-q -p no:x"')})
    verdict = json.loads(stdout)["verdict"]
    assert {u["code"] for u in verdict["unmet"]} == {"producer_modified"}
    assert "pyproject.toml's tool.pytest.ini_options" in verdict["reason"]
    assert "project.version" not in stdout
    # the way out is said once, in the reason, not in every mutation's message
    assert verdict["reason"].endswith(WAY_OUT)
    assert stdout.count("allow_pr_changes") == 1 + stdout.count('"allow_pr_changes"')


def _github(hub: Hub, tmp_path: Path, head: str) -> tuple[str | None, str]:
    when = T0 - timedelta(minutes=3)
    s = scenario(hub, claim_json([edit(at=when), edit("m2", when, "pyproject.toml")]),
                 base_files={"pyproject.toml": PYPROJECT}, files={"pyproject.toml": head})
    s.add_run(junit_xml(passed=5))
    act(s, tmp_path)
    [check] = s.hub.check_runs(head_sha=s.head.sha, name="completion-claim",
                               app=s.hub.actions_app)
    return check.conclusion, f"{check.title}\n{check.summary}"


def test_on_github_a_version_bump_passes(github_hub: Hub, tmp_path: Path) -> None:
    conclusion, words = _github(github_hub, tmp_path, _bumped(PYPROJECT))
    assert conclusion == "success", words


def test_on_github_a_test_option_edit_is_producer_modified(github_hub: Hub, tmp_path: Path) -> None:
    conclusion, words = _github(github_hub, tmp_path, PYPROJECT.replace('"-q"', '"-q -k add"'))
    assert conclusion == "action_required", words
    assert "edits the evidence chain (pyproject.toml's tool.pytest.ini_options)" in words


def test_on_github_an_unparsable_pyproject_is_judged_whole(github_hub: Hub, tmp_path: Path) -> None:
    conclusion, words = _github(github_hub, tmp_path, _bumped(PYPROJECT) + "[tool.pytest\n")
    assert conclusion == "action_required", words
    assert "pyproject.toml (judged whole: it cannot be parsed at head" in words
