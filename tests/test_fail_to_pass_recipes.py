"""The fail-to-pass recipes work as documented (issue 25 item 3), end to end in a temporary git
repository: the GitHub tests workflow of docs/fail-to-pass.md (its `run:` steps, as the runner
runs them, in a checkout of the head) and the other-CI test job of docs/other-ci.md each make
the head's report and the base-code report; a gate job in a fresh clone of the head then reads
both under `fail_to_pass: require`. A fix with a test that fails without it verifies; the same
fix with a test that passes either way is `no_fail_to_pass`. The GitHub workflows' shape (the
head checked out with its history, the artifact names the gate reads) is checked too.
"""

from __future__ import annotations

import json
import re
import shutil
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.gitrepo import git
from tests.other_ci_support import Pipeline, claim_text, edits, outcome
from tests.test_ci_docs import _shell
from tests.test_fail_to_pass import EITHER_WAY, FIXED, REAL_TEST, buggy_base, gate

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: Lines the test does instead of the CI: installing from the index.
_SKIPPED = ("pip install",)


def _github_workflows() -> tuple[dict[str, Any], dict[str, Any]]:
    """(the tests workflow, the gate's workflow) of docs/fail-to-pass.md."""
    text = (DOCS / "fail-to-pass.md").read_text("utf-8")
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", text, re.S)]
    [tests] = [b for b in blocks if "test" in b["jobs"]]
    [gate_workflow] = [b for b in blocks if "gate" in b["jobs"]]
    return tests, gate_workflow


def _other_ci_job() -> str:
    text = (DOCS / "other-ci.md").read_text("utf-8")
    section = text.split("\n## Fail-to-pass: the head's tests over the base's code\n", 1)[1]
    [block] = re.findall(r"```sh\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    return str(block)


def _uploads(job: dict[str, Any]) -> dict[str, str]:
    return {step["with"]["name"]: step["with"]["path"] for step in job["steps"]
            if str(step.get("uses", "")).startswith("actions/upload-artifact@")}


def test_the_github_recipe_tests_the_head_and_hands_the_gate_both_reports() -> None:
    tests, gate_workflow = _github_workflows()
    job = tests["jobs"]["test"]
    [checkout] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout")]
    assert checkout["with"]["ref"] == "${{ github.event.pull_request.head.sha || github.sha }}"
    assert checkout["with"]["fetch-depth"] == 0  # base-code needs the merge base
    inputs = gate_workflow["jobs"]["gate"]["steps"][0]["with"]
    uploads = _uploads(job)
    head = [n for n in uploads if fnmatchcase(n, inputs["artifact-name"])]
    over_base = [n for n in uploads if fnmatchcase(n, inputs["base-code-artifact-name"])]
    assert (len(head), len(over_base)) == (1, 1)
    assert head != over_base
    assert uploads[over_base[0]] == "${{ runner.temp }}/base-code/junit.xml"


def _github_test_job(checkout: Path, runner_temp: Path, base_sha: str) -> None:
    """The tests workflow's `run:` steps, in order, as the runner runs them (`bash -e`, the
    job's and the step's env; the expressions given the values GitHub would)."""
    tests, _ = _github_workflows()
    job = tests["jobs"]["test"]
    values = {"${{ github.event.pull_request.base.sha }}": base_sha}
    for step in job["steps"]:
        script = step.get("run")
        if script is None or any(s in script for s in _SKIPPED):
            continue
        assert "${{" not in script, "expressions belong in env:, not in the script"
        env = {**job.get("env", {}), **step.get("env", {})}
        variables = {k: values.get(str(v), str(v)) for k, v in env.items()}
        ran = _shell(script, checkout, {**variables, "RUNNER_TEMP": str(runner_temp),
                                        "GITHUB_EVENT_NAME": "pull_request"})
        assert ran.returncode == 0, ran.stdout + ran.stderr


def _checkout_of_the_head(pipeline: Pipeline, root: Path) -> Path:
    """A CI checkout: a clone (origin/main is the base branch), at the head."""
    where = root / "ci-checkout"
    git(root, "clone", "-q", str(pipeline.work), str(where))
    git(where, "checkout", "-q", pipeline.head)
    return where


def _agent_fix(tmp_path: Path, test_file: str) -> Pipeline:
    pipeline = buggy_base(tmp_path)
    pipeline.branch({"calc.py": FIXED, "test_calc.py": test_file},
                    claim_text(edits(["calc.py", "test_calc.py"])))
    return pipeline


def _hand_on(pipeline: Pipeline, reports: dict[str, Path]) -> None:
    """The artifacts, and only them, as the gate job receives them."""
    shutil.rmtree(pipeline.artifacts, ignore_errors=True)
    pipeline.artifacts.mkdir()
    for name, path in reports.items():
        shutil.copy(path, pipeline.artifacts / name)


def _run_recipe(recipe: str, tmp_path: Path, test_file: str) -> tuple[int, set[str], Any]:
    pipeline = _agent_fix(tmp_path, test_file)
    checkout = _checkout_of_the_head(pipeline, tmp_path)
    if recipe == "github":
        temp = tmp_path / "runner-temp"
        _github_test_job(checkout, temp, git(pipeline.work, "rev-parse", "main"))
        reports = {"evidence.json": temp / "reports" / "evidence.json",
                   "junit.xml": temp / "reports" / "junit.xml",
                   "base-code.xml": temp / "base-code" / "junit.xml"}
    else:
        ran = _shell(_other_ci_job(), checkout, {"BASE_BRANCH": "main"})
        assert ran.returncode == 0, ran.stdout + ran.stderr
        reports = {name: checkout / "out" / name
                   for name in ("evidence.json", "junit.xml", "base-code.xml")}
    _hand_on(pipeline, reports)
    result = gate(pipeline, tmp_path, "id: f2p\nrequires: [test_run]\nfail_to_pass: require\n",
                  "--base-code-junit", str(pipeline.artifacts / "base-code.xml"))
    code, unmet = outcome(result)
    return code, unmet, json.loads(result.stdout)


@pytest.mark.parametrize("recipe", ["github", "other-ci"])
def test_a_fix_with_a_test_that_fails_without_it_verifies(recipe: str, tmp_path: Path) -> None:
    code, unmet, record = _run_recipe(recipe, tmp_path, REAL_TEST)
    assert (code, unmet) == (0, set()), record
    assert record["verdict"]["x-fail-to-pass"] == ["test_calc::test_add_floats"]


@pytest.mark.parametrize("recipe", ["github", "other-ci"])
def test_a_test_that_passes_either_way_is_no_fail_to_pass(recipe: str, tmp_path: Path) -> None:
    code, unmet, record = _run_recipe(recipe, tmp_path, EITHER_WAY)
    assert (code, unmet) == (1, {"no_fail_to_pass"}), record
