"""The entry point exactly as the runner starts it: the Dockerfile's ENTRYPOINT command in a
subprocess, with the environment built from action.yml, against the GitHub stand-in."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.action_support import (
    REPO,
    claim_json,
    edit,
    junit_xml,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin.events import pull_request_event
from tests.github_standin.hub import Hub

ROOT = Path(__file__).resolve().parent.parent


def entrypoint() -> list[str]:
    """The exec-form ENTRYPOINT of the Dockerfile, with this environment's interpreter."""
    match = re.search(r"^ENTRYPOINT (\[.*\])$", (ROOT / "Dockerfile").read_text("utf-8"), re.M)
    assert match, "the Dockerfile has an exec-form ENTRYPOINT"
    command: list[str] = json.loads(match.group(1))
    assert command[0] == "python3"
    return [sys.executable, *command[1:]]


def test_the_entrypoint_command_posts_the_check_and_writes_the_files(
    github_hub: Hub, tmp_path: Path
) -> None:
    t0 = datetime.now(UTC) - timedelta(hours=1)  # the subprocess decides on the real clock
    s = scenario(github_hub, claim_json([edit(at=t0 - timedelta(minutes=3))]), t0=t0)
    s.add_run(junit_xml(passed=3))
    files = runner_files(tmp_path, pull_request_event(github_hub, s.pull, action="opened"))
    env = runner_env(github_hub, files, "pull_request", REPO, artifact_name="junit-*")
    result = subprocess.run(
        entrypoint(), env={**env, "PATH": "/usr/bin:/bin"}, cwd=files.workspace,
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert s.check().conclusion == "success"
    outputs = files.outputs()
    assert outputs["verdict"] == "verified"
    assert files.claim_json().is_file()
    assert "✅ verified" in files.summary.read_text("utf-8")
