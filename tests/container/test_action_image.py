"""The real image against the GitHub stand-in, started the way the runner starts it: one
verified and one refuted scenario, end to end through podman, under the reference a release
commit's action.yml names (`gate_image`), with every input of action.yml and its defaults as the
runner passes them to `uses: OWNER/claim-gate@v0`, and the image's own entrypoint."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.action_support import (
    REPO,
    action_inputs,
    claim_json,
    edit,
    junit_xml,
    read_outputs,
    scenario,
)
from tests.container.engine import Build, Engine
from tests.container.runner import RunnerDirs, run_like_runner
from tests.github_standin.events import pull_request_event
from tests.github_standin.hub import Hub

pytestmark = pytest.mark.container


@pytest.mark.parametrize(
    ("failed", "conclusion", "code", "verdict"),
    [(0, "success", 0, "verified"), (2, "failure", 2, "refuted")],
)
def test_the_image_posts_the_verdict_as_the_runner_runs_it(
    container_engine: Engine, gate_image: Build, github_hub: Hub, tmp_path: Path,
    failed: int, conclusion: str, code: int, verdict: str,
) -> None:
    t0 = datetime.now(UTC) - timedelta(hours=1)  # the container decides on the real clock
    s = scenario(github_hub, claim_json([edit(at=t0 - timedelta(minutes=3))]), t0=t0)
    s.add_run(junit_xml(passed=3, failed=failed),
              conclusion="failure" if failed else "success")
    dirs = RunnerDirs.create(tmp_path, event=pull_request_event(github_hub, s.pull,
                                                                action="synchronize"))
    result = run_like_runner(
        container_engine, gate_image.image, dirs,
        env={**action_inputs(artifact_name="junit-*"),
             "GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": REPO,
             "GITHUB_API_URL": github_hub.api_url, "GITHUB_SERVER_URL": github_hub.web_url,
             "GITHUB_RUN_ID": "77"},
    )
    assert result.returncode == code, result.stdout + result.stderr
    assert s.check().conclusion == conclusion
    outputs = read_outputs(dirs.output_file)
    assert outputs["verdict"] == verdict
    assert outputs["claim-json"] == ".claim-gate/completed-claim.json"  # relative: later steps
    record = json.loads((dirs.workspace / ".claim-gate" / "completed-claim.json").read_text())
    assert record["verdict"]["state"] == verdict
    assert "Completion claim" in dirs.summary_file.read_text("utf-8")
