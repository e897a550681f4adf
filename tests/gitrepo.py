"""A real git repository in a test's directory, isolated from the machine's git config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

#: CI variables the plugin falls back to; tests clear them so the host CI cannot leak in.
COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "CIRCLE_SHA1", "BUILDKITE_COMMIT")


def git_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="claim-gate tests",
        GIT_AUTHOR_EMAIL="tests@claim-gate.invalid",
        GIT_COMMITTER_NAME="claim-gate tests",
        GIT_COMMITTER_EMAIL="tests@claim-gate.invalid",
    )
    return env


def git(directory: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", *args], cwd=directory, env=git_env(), capture_output=True, text=True, check=True
    )
    return completed.stdout.strip()


def init_repo(directory: Path) -> None:
    git(directory, "init", "-q", "-b", "main")
    git(directory, "config", "commit.gpgsign", "false")


def commit_all(directory: Path, message: str = "change") -> str:
    """Commit everything in the tree and return the new HEAD sha."""
    git(directory, "add", "-A")
    git(directory, "commit", "-q", "--allow-empty", "-m", message)
    return git(directory, "rev-parse", "HEAD")
