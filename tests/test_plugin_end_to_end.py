"""End to end in a temporary git repository: the plugin's records through `claim-gate verify`.

A run on the first commit is stale once a second commit lands: with `--head-sha` of the
second commit it does not count (`other_commit`), whatever the clocks say; a rerun on the
head verifies; a dirty rerun does not; a failing rerun refutes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml

from gate.evidence.junit import read_run
from tests.gitrepo import COMMIT_VARIABLES, commit_all, git_env, init_repo


def _env() -> dict[str, str]:
    env = git_env()
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    return env


def _pytest(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "--claim-evidence", "out/evidence.json", "--junitxml", "out/junit.xml"],
        cwd=repo, env=_env(), capture_output=True, text=True, check=False,
    )


def _verify(claim: Path, evidence: Path, head: str, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gate", "verify", str(claim), "--test-evidence", str(evidence),
         "--head-sha", head, *more],
        env=_env(), capture_output=True, text=True, check=False,
    )


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Story:
    def __init__(self, root: Path) -> None:
        self.repo = root / "repo"
        self.repo.mkdir()
        self.claim = root / "claim.json"
        self.evidence = self.repo / "out" / "evidence.json"
        self.mutations: list[dict[str, Any]] = []

    def commit(self, name: str, source: str) -> str:
        (self.repo / "calc.py").write_text(source)
        sha = commit_all(self.repo, name)
        self.mutations.append({"id": f"m{len(self.mutations) + 1}", "kind": "commit",
                               "target": sha, "at": _now()})
        self.claim.write_text(json.dumps({
            "spec_version": "0.1",
            "task": {"id": "calc-1", "description": "make add() add"},
            "claimed_outcome": "add() adds; the tests pass.",
            "mutations": self.mutations,
        }))
        return sha

    def verdict(self, head: str) -> tuple[int, dict[str, Any]]:
        result = _verify(self.claim, self.evidence, head, "--format", "json")
        assert result.returncode in (0, 1, 2), result.stderr
        record: dict[str, Any] = json.loads(result.stdout)
        return result.returncode, record["verdict"]


@pytest.fixture
def story(tmp_path: Path) -> Story:
    found = Story(tmp_path)
    init_repo(found.repo)
    (found.repo / "test_calc.py").write_text(
        "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
        "\ndef test_zero():\n    assert add(0, 0) == 0\n"
    )
    return found


def test_a_run_on_the_previous_commit_does_not_count_and_a_rerun_does(story: Story) -> None:
    story.commit("first", "def add(a, b):\n    return a + b\n")
    assert _pytest(story.repo).returncode == 0
    second = story.commit("second", "def add(a, b):\n    return b + a\n")

    code, verdict = story.verdict(second)
    assert (code, verdict["state"]) == (1, "unverified")
    assert {entry["code"] for entry in verdict["unmet"]} == {"other_commit"}
    assert "not on the head" in verdict["reason"]

    assert _pytest(story.repo).returncode == 0
    code, verdict = story.verdict(second)
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])

    # The JUnit report of the same run carries the same binding for the JUnit reader.
    suite = next(iter(JUnitXml.fromfile(str(story.repo / "out" / "junit.xml"))))
    properties = {p.name: p.value for p in suite.properties()}  # type: ignore[no-untyped-call]
    assert properties["claim-gate.commit"] == second


def test_a_rerun_on_a_dirty_tree_does_not_count(story: Story) -> None:
    head = story.commit("first", "def add(a, b):\n    return a + b\n")
    (story.repo / "calc.py").write_text("def add(a, b):\n    return a + b  # edited\n")
    assert _pytest(story.repo).returncode == 0
    code, verdict = story.verdict(head)
    assert (code, [entry["code"] for entry in verdict["unmet"]]) == (1, ["dirty_tree"])


def test_a_failing_run_on_the_head_refutes(story: Story) -> None:
    head = story.commit("first", "def add(a, b):\n    return a - b\n")
    assert _pytest(story.repo).returncode == 1
    code, verdict = story.verdict(head)
    assert (code, verdict["state"]) == (2, "refuted")
    assert "failures: expected 0, observed 1" in verdict["reason"]


def test_ci_formats_from_the_command_line(story: Story, tmp_path: Path) -> None:
    story.commit("first", "def add(a, b):\n    return a + b\n")
    assert _pytest(story.repo).returncode == 0
    second = story.commit("second", "def add(a, b):\n    return int(a) + int(b)\n")
    report = tmp_path / "claim-gate.xml"
    result = _verify(story.claim, story.evidence, second, "--format", "junit",
                     "--output", str(report))
    assert result.returncode == 1
    xml = JUnitXml.fromfile(str(report))
    assert (xml.tests, xml.failures, xml.errors) == (2, 2, 0)
    types = [case.result[0].type for suite in xml for case in suite]
    assert types == ["other_commit", "other_commit"]
    # ... and the gate's own JUnit reader reads the same figures.
    ours = read_run([str(report)])
    assert (ours.totals.tests, ours.totals.failures, ours.totals.errors) == (2, 2, 0)
    assert len(ours.failing) == 2

    github = _verify(story.claim, story.evidence, second, "--format", "github")
    assert github.returncode == 1
    lines = github.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["::error"] * 3
    assert lines[0].startswith("::error title=claim-gate%3A other_commit,file=")


def test_an_abbreviated_head_sha_is_invalid_input(story: Story) -> None:
    head = story.commit("first", "def add(a, b):\n    return a + b\n")
    result = _verify(story.claim, story.claim, head[:12])
    assert result.returncode == 3
    assert "40 hexadecimal digits" in result.stderr
