"""The CI recipes of docs/other-ci.md work, end to end, in the shape they document: a test job
in the agent's workspace, then a separate gate job in a fresh clone of the head that receives
only the test job's `out/` (issue 16 item 1, issue 13 item 4).

Each recipe is taken from docs/other-ci.md itself (YAML parsed, Jenkins' `sh` blocks read),
its install and artifact-transfer lines left out (no network here; the test copies `out/` as
the CI would, and the gate job's own environment is a stand-in that runs this checkout's gate),
and each job's commands run by one shell with the CI's variables set; GitLab's merge request
API is served on 127.0.0.1. All four must give the same answers: verified with a claim tested
on the head, unverified (`no_claim`) for an agent's change without one (also when a listed
human started its pipeline), a pass for a listed human's change without one only where the CI
can tell the change's author, and a failing job for a stale commit variable (issue 22 item 2).
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
from tests.inner_sessions import INNER_PYTEST_OPTIONS
from tests.other_ci_support import CALC, Pipeline, claim_text, edits, new_pipeline
from tests.probe_support import Reply, Seen, serve

DOC = Path(__file__).resolve().parent.parent / "docs" / "other-ci.md"
END = "\n## The base branch's report"
HUMANS = "alice,bob"
#: Lines the test does instead of the CI: the gate's environment, installing from the index,
#: moving artifacts.
_SKIPPED = ("python3 -m venv", "pip install", "buildkite-agent artifact")
#: Where every recipe's gate job makes its own environment (the test puts a stand-in there).
GATE_ENV = "/tmp/claim-gate"
GITLAB_TOKEN = "glpat-read-only"


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
    for step in ("skipDefaultCheckout()", "deleteDir()", "checkout scm", "unstash 'evidence'",
                 "label 'claim-gate'"):
        assert step in gate_stage
    assert "label 'claim-gate'" not in text[:text.index("stage('Claim gate')")]
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
    # Its own agents (nothing the tests ran is on them) and a fresh container.
    assert gate["agents"] == {"queue": "claim-gate"}
    assert "agents" not in tests
    [plugin] = gate["plugins"]
    [(name, options)] = plugin.items()
    assert name.startswith("docker#v")
    assert options["image"].startswith("python:")
    # Buildkite turns `$$` into `$` at upload; the job's shell expands the rest.
    return ([c.replace("$$", "$") for c in tests["command"]],
            [c.replace("$$", "$") for c in gate["command"]])


@dataclass(frozen=True)
class Recipe:
    language: str
    read: Callable[[str], Jobs]
    commit: str  # the CI's variable for the commit under review
    starter: str  # the CI's variable for who started the pipeline (never the exemption's key)
    base: str | None  # the CI's variable for the base branch (None: written in the recipe)
    #: Where the recipe learns the change's author: "api" (the code host's API, served here),
    #: a variable the SCM server sets, or None (the CI cannot tell: no exemption).
    author: str | None = None


RECIPES = {
    "gitlab": Recipe("yaml", _gitlab, "CI_COMMIT_SHA", "GITLAB_USER_LOGIN",
                     "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", author="api"),
    "jenkins": Recipe("groovy", _jenkins, "GIT_COMMIT", "BUILD_USER_ID", "CHANGE_TARGET",
                      author="CHANGE_AUTHOR"),
    "circleci": Recipe("yaml", _circleci, "CIRCLE_SHA1", "CIRCLE_USERNAME", None),
    "buildkite": Recipe("yaml", _buildkite, "BUILDKITE_COMMIT", "BUILDKITE_BUILD_CREATOR",
                        "BUILDKITE_PULL_REQUEST_BASE_BRANCH"),
}


def _jobs(name: str) -> tuple[str, str]:
    recipe = RECIPES[name]
    language, text = _blocks()[list(RECIPES).index(name)]
    assert language == recipe.language
    tests, gate = recipe.read(text)
    _own_environment("\n".join(gate))
    assert (recipe.starter in "\n".join(gate)) is False, "the exemption keys on the starter"
    kept = [[c for c in job if c and not any(s in c for s in _SKIPPED)] for job in (tests, gate)]
    assert any("--claim-evidence out/evidence.json" in c for c in kept[0])
    # Nothing committed at the root runs before the plugin: pytest runs with a safe path.
    assert all(re.search(r"\bpython3? -P -m pytest\b", c) for c in kept[0] if "pytest --" in c)
    gate_script = "\n".join(kept[1])
    # The test job hands on test evidence only: its file never goes in as operator records.
    assert "--test-evidence out/evidence.json" in gate_script
    assert "--evidence " not in gate_script
    assert f'--head-sha "${recipe.commit}"' in gate_script
    assert "--require-claim" in gate_script
    assert "--diff-base" in gate_script
    return "\n".join(kept[0]), gate_script


def _own_environment(gate: str) -> None:
    """The gate job installs into a fresh environment of its own, from hashes, and runs that
    environment's gate: never a `claim-gate` an earlier step on the host could have edited."""
    assert f"python3 -m venv --clear {GATE_ENV}" in gate
    assert f"{GATE_ENV}/bin/python -m pip install --force-reinstall --require-hashes -r" in gate
    runs = re.findall(r"(\S*)claim-gate verify", gate)
    assert runs, gate
    assert all(prefix == f"{GATE_ENV}/bin/" for prefix in runs), runs


def _stand_in_environment(root: Path) -> Path:
    """What the skipped install lines make: an environment whose `claim-gate` is this
    checkout's gate (the test has no index to install from)."""
    where = root / "claim-gate"
    (where / "bin").mkdir(parents=True)
    gate = where / "bin" / "claim-gate"
    gate.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gate "$@"\n')
    gate.chmod(0o755)
    return where


def _merge_request_api(author: str) -> Callable[[Seen, bytes], Reply]:
    """GitLab's `GET /projects/:id/merge_requests/:iid`, as much as the recipe reads of it."""
    def answer(seen: Seen, _: bytes) -> Reply:
        if seen.headers.get("private-token") != GITLAB_TOKEN:
            return Reply.json(401, {"message": "401 Unauthorized"})
        if seen.path != "/api/v4/projects/7/merge_requests/3":
            return Reply.json(404, {"message": "404 Not found"})
        return Reply.json(200, {"iid": 3, "author": {"username": author}})
    return answer


def _shell(script: str, where: Path, variables: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = git_env()
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    env.update(variables)
    env["PYTEST_ADDOPTS"] = f"{INNER_PYTEST_OPTIONS} -p no:cacheprovider"
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["sh", "-ec", script], cwd=where, env=env, capture_output=True,
                          text=True, check=False, timeout=180)


def _pipeline(name: str, root: Path, author: str, stale: bool = False, claim: bool = True,
              starter: str | None = None, token: str = GITLAB_TOKEN,
              ) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run the recipe's two jobs on an agent branch whose change `author` wrote (as the code
    host records it) and `starter` (default: the author) started; returns the gate job and
    its clone."""
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
    variables = {recipe.commit: sha, recipe.starter: starter or author,
                 "CLAIM_GATE_HUMANS": HUMANS, "CLAIM_GATE_INSTALL": "claim-gate==0.1.0 --hash=..."}
    if recipe.author is not None and recipe.author != "api":
        variables[recipe.author] = author
    if recipe.base is not None:
        variables[recipe.base] = "main"
    ran = _shell(tests, pipeline.work, variables)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    clone = root / "gate-job"
    git(root, "clone", "-q", str(pipeline.work), str(clone))
    git(clone, "checkout", "-q", pipeline.head)
    shutil.copytree(pipeline.work / "out", clone / "out")  # the artifacts, and only them
    gate = gate.replace(GATE_ENV, str(_stand_in_environment(root)))
    with serve(_merge_request_api(author)) as api:
        variables.update(CI_API_V4_URL=f"{api.url}/api/v4", CI_PROJECT_ID="7",
                         CI_MERGE_REQUEST_IID="3", CLAIM_GATE_API_TOKEN=token)
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
def test_a_listed_humans_change_without_a_claim_passes_where_the_ci_can_tell(
    name: str, tmp_path: Path
) -> None:
    gate, clone = _pipeline(name, tmp_path, "bob", claim=False)
    if RECIPES[name].author is None:  # the CI cannot tell who wrote it: every change needs one
        assert gate.returncode == 1, gate.stdout + gate.stderr
        assert 'type="no_claim"' in _verdict_file(clone)
        return
    assert gate.returncode == 0, gate.stdout + gate.stderr
    assert "bob is listed in CLAIM_GATE_HUMANS: not required" in gate.stdout
    assert not (clone / "out" / "claim-gate.xml").exists()


@pytest.mark.parametrize("name", list(RECIPES))
def test_a_listed_human_starting_an_agents_pipeline_does_not_exempt_it(
    name: str, tmp_path: Path
) -> None:
    """The attack beside the control above: bob re-runs the agent's claimless pipeline."""
    gate, clone = _pipeline(name, tmp_path, "agent-bot", claim=False, starter="bob")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert 'type="no_claim"' in _verdict_file(clone)


def test_gitlab_an_author_the_api_will_not_tell_is_no_exemption(tmp_path: Path) -> None:
    gate, clone = _pipeline("gitlab", tmp_path, "bob", claim=False, token="wrong")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert 'type="no_claim"' in _verdict_file(clone)


@pytest.mark.parametrize("name", list(RECIPES))
def test_a_stale_commit_variable_fails_the_job(name: str, tmp_path: Path) -> None:
    gate, clone = _pipeline(name, tmp_path, "agent-bot", stale=True)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert 'type="other_commit"' in _verdict_file(clone)


def test_there_is_a_recipe_per_ci() -> None:
    assert [language for language, _ in _blocks()] == [r.language for r in RECIPES.values()]
