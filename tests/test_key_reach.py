"""The App key's second line (gate/faces/action/key_reach.py): holding the App's key, the gate
posts as the App only from a workflow file the default branch holds and the PR does not change.
Each attack beside its honest control; GitHub is the stand-in, the App signs real JWTs."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from gate.evidence.github.event import parse_event
from tests.action_support import (
    REPO,
    T0,
    Scenario,
    act,
    junit_xml,
    run_action,
    runner_env,
    scenario,
)
from tests.action_support import runner_files as make_runner_files
from tests.github_standin.events import (
    merge_group_event,
    pull_request_review_event,
    workflow_run_event,
)
from tests.github_standin.hub import Hub
from tests.github_standin.model import CheckRun
from tests.test_action_trust import _key_pair
from tests.test_attacks import CLAIM

GATE_WORKFLOW = ".github/workflows/claim.yml"


def _with_app(hub: Hub, s: Scenario) -> dict[str, str]:
    private, public = _key_pair()
    app = hub.add_app("claim-gate-app", public_key_pem=public)
    hub.add_installation(app, s.repo.owner)
    return {"app_id": str(app.id), "app_private_key": private}


def _checks(hub: Hub, sha: str) -> list[CheckRun]:
    return hub.check_runs(head_sha=sha, name="completion-claim")


def test_a_review_workflow_holding_the_key_posts_no_app_check(
    github_hub: Hub, tmp_path: Path
) -> None:
    """pull_request_review runs the PR's merge commit's copy of the workflow: refused; the
    plain token leaves a blocking check as GitHub Actions, never as the App."""
    s = scenario(github_hub, CLAIM)
    app = _with_app(github_hub, s)
    s.add_run(junit_xml(passed=5))
    maintainer = github_hub.add_user("maintainer")
    review = github_hub.add_review(s.pull, maintainer, "looks fine", state="COMMENTED")
    files = make_runner_files(tmp_path, pull_request_review_event(github_hub, s.pull, review))
    result = run_action(runner_env(
        github_hub, files, "pull_request_review", REPO, artifact_name="junit-*",
        workflow_ref=f"{REPO}/{GATE_WORKFLOW}@refs/pull/{s.pull.number}/merge", **app))
    assert result.code == 3
    assert "will not post as its GitHub App" in result.stdout
    assert f"runs from refs/pull/{s.pull.number}/merge, not from the default branch main" \
        in result.stdout
    [check] = _checks(github_hub, s.head.sha)
    assert check.app.slug == "github-actions"
    assert check.conclusion == "failure"
    assert "will not post as its GitHub App" in (check.summary or "")
    assert github_hub.calls["POST /app/installations/{installation_id}/access_tokens"] == 0


def test_control_the_review_reaches_the_gate_through_workflow_run_from_main(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The documented route: a key-less review workflow's run triggers the gate's
    workflow_run workflow, whose file is main's; it posts as the App."""
    s = scenario(github_hub, CLAIM)
    app = _with_app(github_hub, s)
    s.add_run(junit_xml(passed=5))
    s.add_run(None, started=timedelta(minutes=20), event="pull_request_review",
              name="review", path=".github/workflows/review.yml")
    result, _ = act(s, tmp_path, event="workflow_run", github_token="", **app)
    assert result.code == 0, result.stdout
    [check] = _checks(github_hub, s.head.sha)
    assert check.app.slug == "claim-gate-app"
    assert check.conclusion == "success", check.summary


def test_a_gate_with_the_key_and_no_workflow_ref_refuses(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM)
    app = _with_app(github_hub, s)
    s.add_run(junit_xml(passed=5))
    result, _ = act(s, tmp_path, workflow_ref="", **app)
    assert result.code == 3
    assert "GITHUB_WORKFLOW_REF is unset" in result.stdout
    assert [c.app.slug for c in _checks(github_hub, s.head.sha)] == ["github-actions"]


def test_a_pr_that_changes_the_gates_own_workflow_gets_no_app_check(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM, files={GATE_WORKFLOW: "on: push\n"})
    app = _with_app(github_hub, s)
    s.add_run(junit_xml(passed=5))
    result, _ = act(s, tmp_path, event="workflow_run", github_token="", **app)
    assert result.code == 3
    assert f"changes {GATE_WORKFLOW}, the workflow this gate runs in" in result.stdout
    assert _checks(github_hub, s.head.sha) == []  # no plain token: the error is on the job


def test_control_a_pr_that_changes_another_workflow_is_decided(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM, files={".github/workflows/lint.yml": "on: push\n"})
    app = _with_app(github_hub, s)
    s.add_run(junit_xml(passed=5))
    act(s, tmp_path, event="workflow_run", github_token="", **app)
    [check] = _checks(github_hub, s.head.sha)
    assert check.app.slug == "claim-gate-app"  # decided, as the App: the engine's own rule
    assert check.conclusion == "action_required"  # (an edited workflow is a chain edit)
    assert "the PR itself edits the evidence chain" in (check.summary or "")


def _queued(github_hub: Hub, tmp_path: Path) -> tuple[Scenario, dict[str, str]]:
    """A PR verified by the App, then queued."""
    s = scenario(github_hub, CLAIM)
    app = _with_app(github_hub, s)
    s.add_run(junit_xml(passed=5))
    act(s, tmp_path / "pr", **app)
    assert _checks(github_hub, s.head.sha)[0].conclusion == "success"
    return s, app


def test_a_merge_group_workflow_holding_the_key_is_refused(
    github_hub: Hub, tmp_path: Path
) -> None:
    """merge_group runs the group commit's copy of the workflow (the PR's edits included)."""
    (tmp_path / "pr").mkdir()
    s, app = _queued(github_hub, tmp_path)
    group = github_hub.add_merge_group(s.repo, [s.pull], pushed_at=T0 + timedelta(minutes=50))
    (tmp_path / "group").mkdir()
    files = make_runner_files(tmp_path / "group", merge_group_event(github_hub, group))
    result = run_action(runner_env(
        github_hub, files, "merge_group", REPO,
        workflow_ref=f"{REPO}/.github/workflows/queue.yml@refs/heads/{group.head_ref}", **app))
    assert result.code == 3
    [check] = _checks(github_hub, group.head_sha)
    assert check.app.slug == "github-actions"
    assert check.conclusion == "failure"


def test_control_the_queue_is_judged_from_a_workflow_run_on_main(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The documented queue: a key-less merge_group workflow; its run triggers the gate's
    workflow_run workflow (main's file), which posts the group's check as the App."""
    (tmp_path / "pr").mkdir()
    s, app = _queued(github_hub, tmp_path)
    group = github_hub.add_merge_group(s.repo, [s.pull], pushed_at=T0 + timedelta(minutes=50))
    run = github_hub.add_workflow_run(
        s.repo, head_sha=group.head_sha, event="merge_group", head_branch=group.head_ref,
        name="merge queue", path=".github/workflows/queue.yml",
        run_started_at=T0 + timedelta(minutes=51), created_at=T0 + timedelta(minutes=51))
    (tmp_path / "group").mkdir()
    files = make_runner_files(tmp_path / "group", workflow_run_event(github_hub, run))
    result = run_action(runner_env(github_hub, files, "workflow_run", REPO, **app))
    assert result.code == 0, result.stdout
    [check] = _checks(github_hub, group.head_sha)
    assert check.app.slug == "claim-gate-app"
    assert check.conclusion == "success", check.summary


def test_a_workflow_run_of_a_merge_group_is_a_group_trigger() -> None:
    run: dict[str, object] = {"head_sha": "a" * 40, "event": "merge_group",
                              "head_branch": f"gh-readonly-queue/main/pr-7-{'b' * 40}",
                              "pull_requests": []}
    payload = {"action": "completed", "repository": {"full_name": REPO}, "workflow_run": run}
    trigger = parse_event("workflow_run", payload, "event.json")
    assert (trigger.merge_group_sha, trigger.pull_number) == ("a" * 40, 7)
    assert trigger.merge_group_base_ref == "refs/heads/main"
    run["head_branch"] = f"agent/pr-7-{'b' * 40}"
    spoofed = parse_event("workflow_run", payload, "event.json")
    assert spoofed.merge_group_sha == "a" * 40
    assert spoofed.pull_number is None  # no PR named: the group check fails, naming why
