"""Attacks the gate does not stop yet (docs/trust-model.md: "What it does not defend against").

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
    claim_json,
    edit,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin.events import merge_group_event
from tests.github_standin.hub import Hub


@pytest.mark.xfail(strict=True, reason="only the PR named in the group's head_ref is judged")
def test_a_merge_group_with_an_unverified_pr_ahead_fails(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    github_hub.add_check_run(s.repo, head_sha=s.head.sha, name="completion-claim",
                             app=github_hub.actions_app, conclusion="action_required",
                             external_id=f"claim-gate pr={s.pull.number} base=main")
    head_b = github_hub.add_commit(s.repo, {"b.py": "1\n"}, branch="copilot/b",
                                   parents=[s.repo.branches["main"]], pushed_at=T0)
    pr_b = github_hub.add_pull(s.repo, head="copilot/b")
    github_hub.add_check_run(s.repo, head_sha=head_b.sha, name="completion-claim",
                             app=github_hub.actions_app, conclusion="success",
                             external_id=f"claim-gate pr={pr_b.number} base=main")
    group = github_hub.add_merge_group(s.repo, [s.pull, pr_b])
    files = runner_files(tmp_path, merge_group_event(github_hub, group))
    run_action(runner_env(github_hub, files, "merge_group", REPO))
    [check] = github_hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    assert check.conclusion == "failure"
