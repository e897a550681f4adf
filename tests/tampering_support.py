"""A small project in a temporary git repository, its pytest run with the plugin, and the
gate's verdict on it through `claim-gate verify` (real subprocesses, as a CI job runs them)."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.gitrepo import COMMIT_VARIABLES, commit_all, git_env, init_repo
from tests.inner_sessions import INNER_PYTEST_OPTIONS

CALC = "def add(a, b):\n    return a + b\n"
PASSING = "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
FAILING = "def test_broken():\n    assert 1 == 2\n"
TIMEOUT_S = 120


def env() -> dict[str, str]:
    found = git_env()
    for name in COMMIT_VARIABLES:
        found.pop(name, None)
    found["PYTEST_ADDOPTS"] = INNER_PYTEST_OPTIONS
    return found


@dataclass
class Project:
    repo: Path
    claim: Path
    head: str = ""

    @property
    def evidence(self) -> Path:
        return self.repo / "out" / "evidence.json"

    @property
    def junit(self) -> Path:
        return self.repo / "out" / "junit.xml"

    def commit(self, files: dict[str, str]) -> str:
        for name, text in files.items():
            path = self.repo / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        self.head = commit_all(self.repo, "work")
        now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
        self.claim.write_text(json.dumps({
            "spec_version": "0.1",
            "task": {"id": "calc-1", "description": "make add() add"},
            "claimed_outcome": "add() adds; the tests pass.",
            "mutations": [{"id": "m1", "kind": "commit", "target": self.head, "at": now}],
        }))
        return self.head

    def pytest(self, *more: str, plugin: bool = True,
               environ: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """The test job's pytest session; `environ` adds to the job's environment."""
        options = ["--claim-evidence", "out/evidence.json"] if plugin else []
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options,
             "--junitxml", "out/junit.xml", *more],
            cwd=self.repo, env={**env(), **(environ or {})}, capture_output=True, text=True,
            check=False, timeout=TIMEOUT_S,
        )

    def verify(self, *more: str) -> tuple[int, dict[str, Any]]:
        result = subprocess.run(
            [sys.executable, "-m", "gate", "verify", str(self.claim), "--head-sha", self.head,
             "--format", "json", *more],
            env=env(), capture_output=True, text=True, check=False, timeout=TIMEOUT_S,
        )
        assert result.returncode in (0, 1, 2), result.stderr
        verdict: dict[str, Any] = json.loads(result.stdout)["verdict"]
        return result.returncode, verdict

    def record(self) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.evidence.read_text("utf-8"))
        return found


def new_project(root: Path) -> Project:
    repo = root / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / ".gitignore").write_text("out/\n")
    return Project(repo, root / "claim.json")


@dataclass(frozen=True)
class Session:
    """One real pytest session with the plugin over a committed project, and the gate's
    verdict on its record (`--test-evidence`)."""

    project: Project
    returncode: int
    output: str
    record: dict[str, Any]
    junit: dict[str, str]  # node id -> passed / failure / error / skipped
    verdict: tuple[int, dict[str, Any]]


def junit_outcomes(path: Path) -> dict[str, str]:
    """Node id -> outcome of each case of a JUnit file pytest just wrote."""
    found: dict[str, str] = {}
    # The file the session in this test's own temporary repository just wrote.
    for case in ET.parse(path).getroot().iter("testcase"):  # noqa: S314
        module = case.get("classname", "").replace(".", "/")
        outcome = next((child.tag for child in case
                        if child.tag in ("failure", "error", "skipped")), "passed")
        found[f"{module}.py::{case.get('name')}"] = outcome
    return found


def junit_key(node: str) -> str:
    """A node id as `junit_outcomes` spells it (a class joins the module's dotted name)."""
    path, *names = node.split("::")
    return f"{path.removesuffix('.py')}/{'/'.join(names[:-1])}.py::{names[-1]}" \
        if len(names) > 1 else node


def session_over(root: Path, files: dict[str, str], *options: str) -> Session:
    """Commit `files` beside a passing test of `calc.py`, run pytest with `options` and the
    plugin, and ask the gate about the record."""
    project = new_project(root)
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, **files})
    run = project.pytest(*options)
    verdict = project.verify("--test-evidence", str(project.evidence))
    return Session(project, run.returncode, run.stdout, project.record(),
                   junit_outcomes(project.junit), verdict)


def unmet(verdict: dict[str, Any]) -> dict[str, str]:
    """Codes of what the verdict missed, each with its message."""
    return {entry["code"]: entry["message"] for entry in verdict["unmet"]}
