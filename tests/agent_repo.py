"""A throwaway clone an agent works in, and the CI run that follows it.

The clone has an `origin` with `main` and a known `origin/HEAD` (as `git clone` leaves it),
the agent's branch changes files in every way git can (add, modify, delete, rename, names
with a space and a newline), and `ci_junit` writes the JUnit report a CI job would: bound
to the head commit with `claim-gate.commit`, dated after the last commit.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from gate.claim.timefmt import format_rfc3339, parse_rfc3339
from gate.faces.cli import main
from tests.gitrepo import COMMIT_VARIABLES, commit_all, git, git_env, init_repo
from tests.junit_files import Case, Suite, write_junit

NEWLINE_NAME = "notes\nv2.md"
SPACE_NAME = "docs/user guide.md"


def agent_env() -> dict[str, str]:
    """git isolated from the machine's config, and `claim-gate` of this checkout on PATH."""
    env = git_env()
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


@dataclass(frozen=True)
class AgentRepo:
    root: Path  # holds the clone, the origin and CI's files
    path: Path  # the agent's clone

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(list(argv), cwd=self.path, env=agent_env(), capture_output=True,
                              text=True, check=False)

    def shell(self, script: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
        """Run commands as an agent's shell tool would: bash, stop at the first failure."""
        return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=self.path,
                              env={**agent_env(), **extra_env}, capture_output=True, text=True,
                              check=False)

    def head(self) -> str:
        return git(self.path, "rev-parse", "HEAD")


def make_agent_repo(root: Path) -> AgentRepo:
    origin = root / "origin.git"
    seed = root / "seed"
    seed.mkdir()
    init_repo(seed)
    (seed / "src").mkdir()
    (seed / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (seed / "src" / "legacy.py").write_text("OLD = True\n")
    (seed / "src" / "util.py").write_text("".join(f"# helper line {i}\n" for i in range(30)))
    (seed / "docs").mkdir()
    (seed / "docs" / "readme.md").write_text("# docs\n")
    commit_all(seed, "initial")
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(origin)], check=True,
                   env=git_env())
    clone = root / "clone"
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, env=git_env())
    git(clone, "config", "commit.gpgsign", "false")
    git(clone, "checkout", "-q", "-b", "agent/fix-add")
    return AgentRepo(root, clone)


def agent_change(repo: AgentRepo) -> list[str]:
    """The agent's work, committed: every kind of change. Returns the paths it changed."""
    path = repo.path
    (path / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (path / "src" / "legacy.py").unlink()
    git(path, "mv", "src/util.py", "src/helpers.py")
    (path / SPACE_NAME).write_text("How to add.\n")
    (path / NEWLINE_NAME).write_text("v2\n")
    commit_all(path, "Fix add()")
    return ["src/calc.py", "src/legacy.py", "src/util.py", "src/helpers.py", SPACE_NAME,
            NEWLINE_NAME]


def read_claim(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return loaded


def last_mutation_time(claim: dict[str, Any]) -> datetime:
    return max(parse_rfc3339(m["at"]) for m in claim["mutations"])


def ci_junit(repo: AgentRepo, after: datetime, failing: bool = False) -> Path:
    """The report CI writes for the head commit, a minute after the last change."""
    target = repo.root / "ci" / "junit.xml"
    target.parent.mkdir(exist_ok=True)
    cases = (Case("test_add", "tests.test_calc"),
             Case("test_zero", "tests.test_calc", "failure" if failing else "passed"))
    suite = Suite("pytest", cases, format_rfc3339(after + timedelta(minutes=1)),
                  (("claim-gate.commit", repo.head()), ("claim-gate.tree_clean", "true")))
    return write_junit(target, [suite])


def policy_requiring_test_run(root: Path) -> Path:
    policy = root / "policy.json"
    policy.write_text(json.dumps({"id": "agents", "requires": ["test_run"]}))
    return policy


def verify(repo: AgentRepo, claim: Path, policy: Path, junit: Path | None,
           now: datetime) -> tuple[int, dict[str, Any]]:
    """`claim-gate verify` as the operator's CI runs it (in this process: the commands the
    agent runs are the subprocesses); the verdict from its JSON output."""
    argv = ["verify", str(claim), "--policy", str(policy), "--head-sha", repo.head(),
            "--now", format_rfc3339(now), "--format", "json"]
    if junit is not None:
        argv += ["--junit", str(junit)]
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err)
    assert code in (0, 1, 2), err.getvalue()
    record: dict[str, Any] = json.loads(out.getvalue())
    return code, record["verdict"]
