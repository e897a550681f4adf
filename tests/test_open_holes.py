"""Attacks the gate does not stop yet (README: "What it does not defend against").

Each is a strict xfail: it documents the hole through the GitHub stand-in and turns into a
failure, to be moved into tests/test_attacks.py, once the gate closes it.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import (
    REPO,
    T0,
    act,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin import ArtifactSpec, zip_bytes
from tests.github_standin.events import merge_group_event
from tests.github_standin.hub import Hub


@pytest.mark.xfail(strict=True, reason="evidence is chosen by head SHA, not by the PR whose run"
                   " produced it")
def test_a_second_pr_into_the_agents_own_base_does_not_verify_the_first(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    agent = github_hub.add_user("copilot-swe-agent[bot]", type="Bot")
    github_hub.add_commit(s.repo, {".github/workflows/ci.yml": "# always green\n"},
                          branch="copilot/base", parents=[s.repo.branches["main"]],
                          pushed_at=T0 - timedelta(minutes=2))
    other = github_hub.add_pull(s.repo, head="copilot/fix-parser", base="copilot/base",
                                user=agent)
    # The other PR's pull_request run: the shared head SHA, the workflow of the agent's base.
    github_hub.add_workflow_run(
        s.repo, head_sha=s.head.sha, pull_requests=[other],
        created_at=T0 + timedelta(minutes=5), run_started_at=T0 + timedelta(minutes=5),
        updated_at=T0 + timedelta(minutes=7),
        artifacts=[ArtifactSpec("junit-results", zip_bytes({"junit.xml": junit_xml()}))])
    act(s, tmp_path)  # the gate for the PR into main
    assert s.check().conclusion != "success"


@pytest.mark.xfail(strict=True, reason="only the PR named in the group's head_ref is judged")
def test_a_merge_group_with_an_unverified_pr_ahead_fails(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    github_hub.add_check_run(s.repo, head_sha=s.head.sha, name="completion-claim",
                             app=github_hub.actions_app, conclusion="action_required")
    head_b = github_hub.add_commit(s.repo, {"b.py": "1\n"}, branch="copilot/b",
                                   parents=[s.repo.branches["main"]], pushed_at=T0)
    pr_b = github_hub.add_pull(s.repo, head="copilot/b")
    github_hub.add_check_run(s.repo, head_sha=head_b.sha, name="completion-claim",
                             app=github_hub.actions_app, conclusion="success")
    group = github_hub.add_merge_group(s.repo, [s.pull, pr_b])
    files = runner_files(tmp_path, merge_group_event(github_hub, group))
    run_action(runner_env(github_hub, files, "merge_group", REPO))
    [check] = github_hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    assert check.conclusion == "failure"
