"""The CI snippets of docs/other-ci.md work: their test and gate commands, run as the CI would
run them.

Each snippet is taken from docs/other-ci.md itself (YAML parsed, Jenkins' `sh` steps read), its
install line left out (no network here), and its commands run by a shell in a temporary git
repository whose head commits a claim, with the CI's commit variable set. A stale variable
must fail the job.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.gitrepo import COMMIT_VARIABLES, commit_all, git_env, init_repo

DOC = Path(__file__).resolve().parent.parent / "docs" / "other-ci.md"
END = "\n## Output for other CIs"


def _blocks() -> list[tuple[str, str]]:
    section = DOC.read_text("utf-8").split(END, 1)[0]
    return re.findall(r"```(\w+)\n(.*?)```", section, re.DOTALL)


def _gitlab(text: str) -> list[str]:
    job = yaml.safe_load(text)["claim-gate"]
    assert job["artifacts"]["when"] == "always"
    return list(job["script"])


def _jenkins(text: str) -> list[str]:
    assert "pipeline {" in text
    return re.findall(r"sh '([^']*)'", text)


def _circleci(text: str) -> list[str]:
    config = yaml.safe_load(text)
    steps = config["jobs"]["claim-gate"]["steps"]
    assert config["workflows"]["verify-claim"]["jobs"] == ["claim-gate"]
    return [step["run"] for step in steps if isinstance(step, dict) and "run" in step]


def _buildkite(text: str) -> list[str]:
    step = yaml.safe_load(text)["steps"][0]
    # Buildkite turns `$$` into `$` at upload; the job's shell expands the rest.
    return [command.replace("$$", "$") for command in step["command"]]


SNIPPETS: dict[str, tuple[str, str, Callable[[str], list[str]]]] = {
    "gitlab": ("yaml", "CI_COMMIT_SHA", _gitlab),
    "jenkins": ("groovy", "GIT_COMMIT", _jenkins),
    "circleci": ("yaml", "CIRCLE_SHA1", _circleci),
    "buildkite": ("yaml", "BUILDKITE_COMMIT", _buildkite),
}


def _commands(name: str) -> tuple[str, list[str]]:
    language, variable, read = SNIPPETS[name]
    found_language, text = _blocks()[list(SNIPPETS).index(name)]
    assert found_language == language
    commands = [c for c in read(text) if "pip install" not in c]
    assert len(commands) == 2, commands
    assert "--claim-evidence out/evidence.json" in commands[0]
    assert f'--head-sha "${variable}"' in commands[1]
    return variable, commands


def _repo(root: Path) -> tuple[str, str]:
    """A repository whose head adds the claim; returns (previous commit, head)."""
    init_repo(root)
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "test_calc.py").write_text(
        "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    )
    previous = commit_all(root, "add()")
    claim: dict[str, Any] = {
        "spec_version": "0.1",
        "task": {"id": "calc-1", "description": "add()"},
        "claimed_outcome": "add() adds.",
        "mutations": [{"id": "m1", "kind": "commit", "target": previous,
                       "at": datetime.now(UTC).isoformat()}],
    }
    (root / ".claim.json").write_text(json.dumps(claim))
    return previous, commit_all(root, "claim")


def _run(command: str, root: Path, variable: str, value: str) -> int:
    env = git_env()
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    env[variable] = value
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    completed = subprocess.run(["sh", "-c", command], cwd=root, env=env, capture_output=True,
                               text=True, check=False)
    return completed.returncode


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_the_snippet_verifies_a_claim_tested_on_the_head(name: str, tmp_path: Path) -> None:
    variable, (tests, gate) = _commands(name)
    previous, head = _repo(tmp_path)
    assert _run(tests, tmp_path, variable, head) == 0
    assert _run(gate, tmp_path, variable, head) == 0
    assert _run(gate, tmp_path, variable, previous) == 1  # stale: the job fails


def test_there_is_a_snippet_per_ci() -> None:
    assert [language for language, _ in _blocks()] == [s[0] for s in SNIPPETS.values()]
