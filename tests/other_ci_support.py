"""The separate-gate-job shape in temporary git repositories: a base branch whose tests ran
(its JUnit is the base report), an agent branch committing a change and its claim, a test job
running pytest with the plugin in the agent's workspace, then a gate job in a fresh clone
of the head receiving only the test job's artifacts (real subprocesses, as CI runs them)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.gitrepo import commit_all, git, init_repo
from tests.tampering_support import env

TIMEOUT_S = 120
CALC = "def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n"
TESTS = ("from calc import add, sub\n\ndef test_add():\n    assert add(2, 3) == 5\n\n"
         "def test_sub():\n    assert sub(3, 2) == 1\n")
CLAIM_PATH = ".claim.json"


def edits(paths: Iterable[str]) -> list[dict[str, Any]]:
    """The honest agent's mutations: one file_edit per file its change touches."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    return [{"id": f"m{n}", "kind": "file_edit", "target": path, "at": now}
            for n, path in enumerate(sorted(paths), start=1)]


def claim_text(mutations: list[dict[str, Any]] | None = None) -> str:
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    return json.dumps({
        "spec_version": "0.1",
        "task": {"id": "calc-2", "description": "make add() handle floats"},
        "claimed_outcome": "add() handles floats; the tests pass.",
        "mutations": mutations or [{"id": "m1", "kind": "commit", "target": "agent", "at": now}],
    })


@dataclass
class Pipeline:
    root: Path
    head: str = ""

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def artifacts(self) -> Path:
        return self.root / "artifacts"

    @property
    def base_junit(self) -> Path:
        return self.root / "base-junit.xml"

    @property
    def operator_records(self) -> Path:
        """Records the operator's own job writes after the tests, out of the test job's reach
        (`--evidence`, when the file exists)."""
        return self.root / "operator" / "evidence.json"

    def pytest(self, directory: Path, *more: str) -> subprocess.CompletedProcess[str]:
        """pytest as the recipes run it: `-P`, so the checkout is not first on `sys.path`."""
        return subprocess.run(
            [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "--claim-evidence", "out/evidence.json", "--junitxml", "out/junit.xml", *more],
            cwd=directory, env=env(), capture_output=True, text=True, check=False,
            timeout=TIMEOUT_S,
        )

    def branch(self, files: Mapping[str, str | None], claim: str | None) -> str:
        """The agent's branch: the change (None deletes a file) and its claim, committed."""
        git(self.work, "checkout", "-q", "-b", "agent")
        for name, text in files.items():
            path = self.work / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        if claim is not None:
            (self.work / CLAIM_PATH).write_text(claim)
        self.head = commit_all(self.work, "agent's change")
        return self.head

    def test_job(self, *more: str) -> None:
        """The test job in the agent's workspace; its artifacts are what the gate gets."""
        self.pytest(self.work, *more)
        shutil.rmtree(self.artifacts, ignore_errors=True)
        shutil.copytree(self.work / "out", self.artifacts)

    def gate_args(self, *more: str, base: str = "origin/main") -> list[str]:
        operator = ["--evidence", str(self.operator_records)] \
            if self.operator_records.exists() else []
        return [
            CLAIM_PATH, "--test-evidence", str(self.artifacts / "evidence.json"), *operator,
            "--junit", str(self.artifacts / "junit.xml"), "--head-sha", self.head,
            "--diff-base", base, "--base-junit", str(self.base_junit),
            "--format", "json", *more,
        ]

    def gate_job(self, *more: str, workspace: bool = False) -> subprocess.CompletedProcess[str]:
        """`claim-gate verify` from a fresh clone of the head (or, `workspace`, in the test
        job's own checkout: the shape issue 16 closes)."""
        return self.run_gate(self.gate_args(*more, base="main" if workspace else "origin/main"),
                             workspace=workspace)

    def run_gate(self, args: list[str], workspace: bool = False
                 ) -> subprocess.CompletedProcess[str]:
        """`claim-gate verify ARGS` where `gate_job` runs it (a recipe's arguments, changed)."""
        where = self.work
        if not workspace:
            where = self.root / "gate"
            shutil.rmtree(where, ignore_errors=True)
            git(self.root, "clone", "-q", str(self.work), str(where))
            git(where, "checkout", "-q", self.head)
        return subprocess.run(
            [sys.executable, "-m", "gate", "verify", *args],
            cwd=where, env=env(), capture_output=True, text=True, check=False,
            timeout=TIMEOUT_S,
        )


def new_pipeline(root: Path) -> Pipeline:
    """The base branch, committed, and its own test run: the base report."""
    pipeline = Pipeline(root)
    work = pipeline.work
    work.mkdir(parents=True)
    init_repo(work)
    (work / ".gitignore").write_text("out/\n")
    (work / "calc.py").write_text(CALC)
    (work / "test_calc.py").write_text(TESTS)
    commit_all(work, "base")
    ran = pipeline.pytest(work)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    shutil.copy(work / "out" / "junit.xml", pipeline.base_junit)
    shutil.rmtree(work / "out")
    return pipeline


def outcome(result: subprocess.CompletedProcess[str]) -> tuple[int, set[str]]:
    """The exit code and the unmet codes of a JSON verdict (none for exit 3 or 4)."""
    if result.returncode not in (0, 1, 2):
        return result.returncode, set()
    record = json.loads(result.stdout)
    unmet = (record.get("verdict") or record)["unmet"]
    return result.returncode, {entry["code"] for entry in unmet}
