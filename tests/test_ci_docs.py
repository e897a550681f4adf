"""The CI recipes of docs/other-ci.md work, end to end, in the shape they document: a test job
in the agent's workspace, then a separate gate job in a fresh clone of the head that receives
only the test job's `out/` (issue 16 item 1, issue 13 item 4).

Each recipe is taken from docs/other-ci.md itself (YAML parsed, Jenkins' `sh` blocks read),
its install and artifact-transfer lines left out (no network here; the test copies `out/` as
the CI would), and each job's commands run by one shell with the CI's variables set. All four
must give the same answers: verified with a claim tested on the head, unverified (`no_claim`)
for an agent's change without one, a pass for a listed human's change without one, and a
failing job for a stale commit variable.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.gitrepo import COMMIT_VARIABLES, commit_all, git, git_env
from tests.other_ci_support import CALC, Pipeline, claim_text, edits, new_pipeline

DOC = Path(__file__).resolve().parent.parent / "docs" / "other-ci.md"
END = "\n## The base branch's report"
HUMANS = "alice,bob"
#: Lines the test does instead of the CI: installing from the index, moving artifacts.
_SKIPPED = ("pip install", "buildkite-agent artifact")


def _blocks() -> list[tuple[str, str]]:
    section = DOC.read_text("utf-8").split(END, 1)[0]
    return re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)


Jobs = tuple[list[str], list[str]]


def _gitlab(text: str) -> Jobs:
    config = yaml.safe_load(text)
    tests, gate = config["tests"], config["claim-gate"]
    assert tests["artifacts"]["when"] == "always"
    assert tests["artifacts"]["paths"] == ["out/"]
    assert gate["needs"] == [{"job": "tests", "artifacts": True}]
    assert gate["stage"] != tests["stage"]
    assert gate["variables"]["GIT_DEPTH"] == "0"  # --diff-base needs the history
    return list(tests["script"]), list(gate["script"])


def _jenkins(text: str) -> Jobs:
    assert "pipeline {" in text
    tests, gate = re.findall(r"sh '''\n(.*?)'''", text, re.DOTALL)
    gate_stage = text[text.index("stage('Claim gate')"):]
    for step in ("skipDefaultCheckout()", "deleteDir()", "checkout scm", "unstash 'evidence'"):
        assert step in gate_stage
    return [line.strip() for line in tests.splitlines()], [line.strip() for line in
                                                            gate.splitlines()]


def _runs(steps: list[Any]) -> list[str]:
    return [step["run"] for step in steps if isinstance(step, dict) and "run" in step]


def _circleci(text: str) -> Jobs:
    config = yaml.safe_load(text)
    jobs = config["jobs"]
    assert config["workflows"]["verify-claim"]["jobs"] == [
        "tests", {"claim-gate": {"requires": ["tests"]}}]
    assert {"attach_workspace": {"at": "."}} in jobs["claim-gate"]["steps"]
    assert "checkout" in jobs["claim-gate"]["steps"]
    return _runs(jobs["tests"]["steps"]), _runs(jobs["claim-gate"]["steps"])


def _buildkite(text: str) -> Jobs:
    tests, gate = yaml.safe_load(text)["steps"]
    assert gate["depends_on"] == tests["key"]
    # Buildkite turns `$$` into `$` at upload; the job's shell expands the rest.
    return ([c.replace("$$", "$") for c in tests["command"]],
            [c.replace("$$", "$") for c in gate["command"]])


@dataclass(frozen=True)
class Recipe:
    language: str
    read: Callable[[str], Jobs]
    commit: str  # the CI's variable for the commit under review
    author: str  # the CI's variable for the account that made the change
    base: str | None  # the CI's variable for the base branch (None: written in the recipe)


RECIPES = {
    "gitlab": Recipe("yaml", _gitlab, "CI_COMMIT_SHA", "GITLAB_USER_LOGIN",
                     "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"),
    "jenkins": Recipe("groovy", _jenkins, "GIT_COMMIT", "CHANGE_AUTHOR", "CHANGE_TARGET"),
    "circleci": Recipe("yaml", _circleci, "CIRCLE_SHA1", "CIRCLE_USERNAME", None),
    "buildkite": Recipe("yaml", _buildkite, "BUILDKITE_COMMIT", "BUILDKITE_BUILD_CREATOR",
                        "BUILDKITE_PULL_REQUEST_BASE_BRANCH"),
}


def _jobs(name: str) -> tuple[str, str]:
    recipe = RECIPES[name]
    language, text = _blocks()[list(RECIPES).index(name)]
    assert language == recipe.language
    tests, gate = recipe.read(text)
    kept = [[c for c in job if c and not any(s in c for s in _SKIPPED)] for job in (tests, gate)]
    assert any("--claim-evidence out/evidence.json" in c for c in kept[0])
    gate_script = "\n".join(kept[1])
    assert f'--head-sha "${recipe.commit}"' in gate_script
    assert "--require-claim" in gate_script
    assert "--diff-base" in gate_script
    return "\n".join(kept[0]), gate_script


def _shell(script: str, where: Path, variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = git_env()
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    env.update(variables)
    env["PYTEST_ADDOPTS"] = "-p no:benchmark -p no:cacheprovider"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["sh", "-ec", script], cwd=where, env=env, capture_output=True,
                          text=True, check=False, timeout=180)


def _pipeline(name: str, root: Path, author: str, stale: bool = False,
              claim: bool = True) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run the recipe's two jobs on an agent branch; returns the gate job and its clone."""
    recipe = RECIPES[name]
    tests, gate = _jobs(name)
    pipeline: Pipeline = new_pipeline(root)
    claimed = claim_text(edits(["calc.py", "NOTES.md"]))
    pipeline.branch({"calc.py": CALC.replace("a + b", "float(a) + float(b)")},
                    claimed if claim else None)
    (pipeline.work / "NOTES.md").write_text("follow-up\n")
    pipeline.head = commit_all(pipeline.work, "a second commit")
    # Stale: the variable names the branch's first commit (the same claim), not the one tested.
    sha = git(pipeline.work, "rev-parse", "HEAD~1") if stale else pipeline.head
    variables = {recipe.commit: sha, recipe.author: author,
                 "CLAIM_GATE_HUMANS": HUMANS}
    if recipe.base is not None:
        variables[recipe.base] = "main"
    ran = _shell(tests, pipeline.work, variables)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    clone = root / "gate-job"
    git(root, "clone", "-q", str(pipeline.work), str(clone))
    git(clone, "checkout", "-q", pipeline.head)
    shutil.copytree(pipeline.work / "out", clone / "out")  # the artifacts, and only them
    return _shell(gate, clone, variables), clone


def _verdict_file(clone: Path) -> str:
    return (clone / "out" / "claim-gate.xml").read_text("utf-8")


@pytest.mark.parametrize("name", list(RECIPES))
def test_an_agents_claim_tested_on_the_head_is_verified(name: str, tmp_path: Path) -> None:
    gate, clone = _pipeline(name, tmp_path, "agent-bot")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert 'name="claim-gate.verdict" value="verified"' in _verdict_file(clone)


@pytest.mark.parametrize("name", list(RECIPES))
def test_an_agents_change_without_a_claim_fails_the_gate(name: str, tmp_path: Path) -> None:
    gate, clone = _pipeline(name, tmp_path, "agent-bot", claim=False)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert 'type="no_claim"' in _verdict_file(clone)


@pytest.mark.parametrize("name", list(RECIPES))
def test_a_listed_humans_change_without_a_claim_passes(name: str, tmp_path: Path) -> None:
    gate, clone = _pipeline(name, tmp_path, "bob", claim=False)
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "not required" in gate.stdout
    assert not (clone / "out" / "claim-gate.xml").exists()


@pytest.mark.parametrize("name", list(RECIPES))
def test_a_stale_commit_variable_fails_the_job(name: str, tmp_path: Path) -> None:
    gate, clone = _pipeline(name, tmp_path, "agent-bot", stale=True)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert 'type="other_commit"' in _verdict_file(clone)


def test_there_is_a_recipe_per_ci() -> None:
    assert [language for language, _ in _blocks()] == [r.language for r in RECIPES.values()]
