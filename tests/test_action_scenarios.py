"""The action end to end against the GitHub stand-in, from real example event payloads.

Each scenario builds a repository, a PR and its CI runs in the stand-in, writes the event
payload the runner would, calls the action's entry point with INPUT_* variables from
action.yml, and checks the check run GitHub received, the files and the exit code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.action_support import (
    T0,
    ActionResult,
    RunnerFiles,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
)
from tests.github_standin import ArtifactSpec, DeploymentStatusSpec, zip_bytes
from tests.github_standin.events import pull_request_event, workflow_run_event
from tests.github_standin.hub import Hub
from tests.github_standin.model import CheckRun, Commit, Pull, Repo, WorkflowRun
from tests.github_standin.plugin import HubFactory

REPO = "octo/app"


@dataclass
class Scenario:
    hub: Hub
    repo: Repo
    head: Commit
    pull: Pull
    runs: list[WorkflowRun]

    def add_run(self, xml: str | None, *, started: timedelta = timedelta(minutes=5),
                head_sha: str | None = None, conclusion: str = "success",
                artifact: str = "junit-results", **kwargs: Any) -> WorkflowRun:
        artifacts = [ArtifactSpec(artifact, zip_bytes({"reports/junit.xml": xml}))] if xml else []
        run = self.hub.add_workflow_run(
            self.repo, head_sha=head_sha or self.head.sha, pull_requests=[self.pull],
            run_started_at=T0 + started, created_at=T0 + started,
            updated_at=T0 + started + timedelta(minutes=2), conclusion=conclusion,
            artifacts=artifacts, **kwargs,
        )
        self.runs.append(run)
        return run

    def check(self, name: str = "completion-claim") -> CheckRun:
        [check] = self.hub.check_runs(head_sha=self.head.sha, name=name)
        return check


def scenario(hub: Hub, claim: str | None, *, body: str | None = None,
             files: dict[str, str | None] | None = None) -> Scenario:
    repo = hub.add_repo(REPO, files={"app/parser.py": "x = 1\n"}, pushed_at=T0 - timedelta(days=1))
    changed: dict[str, str | None] = {"app/parser.py": "x = 2\n", **(files or {})}
    if claim is not None:
        changed[".claim.json"] = claim
    head = hub.add_commit(repo, changed, branch="copilot/fix-parser",
                          pushed_at=T0 - timedelta(minutes=1))
    agent = hub.add_user("copilot-swe-agent[bot]", type="Bot")
    pull = hub.add_pull(repo, head="copilot/fix-parser", body=body, user=agent)
    return Scenario(hub, repo, head, pull, [])


def act(s: Scenario, tmp_path: Path, *, event: str = "pull_request",
        **inputs: str) -> tuple[ActionResult, RunnerFiles]:
    if event == "workflow_run":
        payload = workflow_run_event(s.hub, s.runs[-1])
    else:
        payload = pull_request_event(s.hub, s.pull, action="synchronize")
    files = runner_files(tmp_path, payload)
    inputs.setdefault("artifact_name", "junit-*")
    result = run_action(runner_env(s.hub, files, event, REPO, **inputs))
    return result, files


def test_verified_when_a_passing_ci_run_followed_the_last_edit(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=5))
    result, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "success", check.summary
    assert result.code == 0
    assert files.outputs()["verdict"] == "verified"
    assert files.outputs()["unmet-count"] == "0"
    record = json.loads(Path(files.outputs()["claim-json"]).read_text("utf-8"))
    assert record["verdict"]["state"] == "verified"
    run = record["evidence"][0]["x-run"]
    assert run["id"] == s.runs[0].id
    assert run["workflow_path"] == ".github/workflows/ci.yml"
    assert "## Completion claim: ✅ verified" in files.summary.read_text("utf-8")
    assert json.loads(check.text or "")["verdict"]["state"] == "verified"
    assert github_hub.storage_requests
    assert all(r.authorization is None for r in github_hub.storage_requests), (
        "the artifact download never carries the token"
    )


def test_refuted_by_a_failing_test_after_the_last_commit(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=4, failed=2), conclusion="failure")
    result, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "failure"
    assert result.code == 2
    assert files.outputs()["verdict"] == "refuted"
    test_notes = [a for a in check.annotations if a.path == "tests/test_app.py"]
    assert sorted(a.start_line for a in test_notes) == [10, 11]
    claim_notes = [a for a in check.annotations if a.path == ".claim.json"]
    assert claim_notes
    assert claim_notes[0].annotation_level == "failure"


def test_unverified_without_any_claim(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, None)
    s.add_run(junit_xml())
    result, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "no completion claim" in (check.title or "")
    assert check.details_url
    assert check.details_url.endswith("/actions/runs/4242")
    assert result.code == 1
    assert files.outputs()["verdict"] == "unverified"


def test_a_claim_in_the_pr_body_is_read(github_hub: Hub, tmp_path: Path) -> None:
    block = claim_json([edit(at=T0 - timedelta(minutes=3))])
    s = scenario(github_hub, None, body=f"Done.\n\n```completion-claim\n{block}\n```\n")
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    assert s.check().conclusion == "success"
    assert result.code == 0


def test_unverified_when_no_ci_run_exists_for_the_head(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    result, _ = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert result.code == 1
    assert "missing_check_type" in (check.summary or "")


def test_a_run_on_an_older_commit_does_not_count(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    older = s.repo.commits[s.head.parents[0]]
    s.add_run(junit_xml(), head_sha=older.sha)
    result, _ = act(s, tmp_path)
    assert s.check().conclusion == "action_required"
    assert result.code == 1


def test_only_the_agents_own_evidence_is_unverified(github_hub: Hub, tmp_path: Path) -> None:
    own = {
        "check_type": "test_run", "at": "2026-03-02T09:00:30Z", "covers": ["m1"],
        "expected": {"failures": 0}, "observed_value": {"failures": 0},
        "verifier": {"id": "claim-gate/junit@0.1.0", "kind": "independent"},
    }
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))], evidence=[own]))
    result, _ = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "untrusted_verifier" in (check.summary or "")
    assert result.code == 1


def test_an_unfinished_or_cancelled_run_is_absence(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(), conclusion="cancelled")
    s.add_run(junit_xml(), status="in_progress", conclusion=None)  # type: ignore[arg-type]
    result, files = act(s, tmp_path)
    assert s.check().conclusion == "action_required"
    summary = files.summary.read_text("utf-8")
    assert "ended cancelled" in summary
    assert "still in_progress" in summary
    assert result.code == 1


def test_an_expired_artifact_is_absence(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    run = s.add_run(None)
    github_hub.add_artifact(run, ArtifactSpec("junit-results", zip_bytes({"j.xml": junit_xml()}),
                                              expired=True))
    result, files = act(s, tmp_path)
    assert s.check().conclusion == "action_required"
    assert "expired" in files.summary.read_text("utf-8")
    assert result.code == 1


def test_a_hostile_artifact_is_reported_and_never_passes(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    run = s.add_run(None)
    github_hub.add_artifact(run, ArtifactSpec("junit-results", zip_bytes(
        {"../../escape.xml": junit_xml()})))
    result, _ = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "unreadable_artifact" in (check.summary or "")
    assert result.code == 1


def test_more_than_fifty_annotations_go_in_several_requests(
    github_hub: Hub, tmp_path: Path
) -> None:
    mutations = [edit(f"m{i}", at=T0 - timedelta(minutes=3), path=f"f{i}.py") for i in range(70)]
    mutations += [{"id": f"s{i}", "kind": "state_write", "target": f"accounts/{i}",
                   "at": "2026-03-02T08:57:00Z"} for i in range(60)]
    s = scenario(github_hub, claim_json(mutations))
    s.add_run(junit_xml())
    act(s, tmp_path)
    check = s.check()
    assert len(check.annotations) == 60
    assert github_hub.calls["PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"] == 1


def test_a_summary_over_the_limit_is_shortened(github_hub: Hub, tmp_path: Path) -> None:
    mutations = [{"id": f"state-write-{i:05d}", "kind": "state_write",
                  "target": f"accounts/{'x' * 40}/{i}", "at": "2026-03-02T08:57:00Z"}
                 for i in range(1500)]
    s = scenario(github_hub, claim_json(mutations))
    s.add_run(junit_xml())
    act(s, tmp_path)
    check = s.check()
    assert len(check.summary or "") <= 65535
    assert "Shortened to fit GitHub's" in (check.summary or "")
    assert len(check.text or "") <= 65535


def test_a_fork_token_that_cannot_post_falls_back_to_annotations(
    github_hub: Hub, tmp_path: Path
) -> None:
    from tests.github_standin.hub import READ_ONLY_PERMISSIONS

    github_hub.add_token("ghs_fork_token", permissions=READ_ONLY_PERMISSIONS)
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    result, files = act(s, tmp_path, github_token="ghs_fork_token")
    assert github_hub.check_runs(head_sha=s.head.sha) == []
    assert "::error" in result.stdout
    assert "workflow_run" in files.summary.read_text("utf-8")
    assert result.code == 1


def test_the_fork_safe_workflow_run_pattern(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path, event="workflow_run")
    assert s.check().conclusion == "success"
    assert result.code == 0


def test_github_enterprise_base_path(make_github_hub: HubFactory, tmp_path: Path) -> None:
    hub = make_github_hub(base_path="/api/v3")
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    assert hub.api_url.endswith("/api/v3")
    assert s.check().conclusion == "success"
    assert result.code == 0


def test_observe_mode_never_blocks(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=1, failed=1), conclusion="failure")
    result, files = act(s, tmp_path, mode="observe")
    assert s.check().conclusion == "neutral"
    assert files.outputs()["verdict"] == "refuted"
    assert result.code == 0


def test_prs_outside_the_agent_globs_need_no_claim(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, None)
    result, files = act(s, tmp_path, require_claim="agents", agent_authors="devin-ai*",
                        agent_branches="codex/*")
    check = s.check()
    assert check.conclusion == "neutral"
    assert "no claim required" in (check.title or "")
    assert files.outputs()["verdict"] == "not-required"
    assert result.code == 0


def test_agent_prs_matched_by_author_glob_need_a_claim(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, None)
    result, _ = act(s, tmp_path, require_claim="agents", agent_authors="copilot-swe-agent*")
    assert s.check().conclusion == "action_required"
    assert result.code == 1


def test_the_policy_is_read_from_the_base_branch_not_the_pr(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]),
                 files={".github/claim-policy.yml": "id: weakened\nrequires: []\n"})
    github_hub.add_commit(s.repo, {".github/claim-policy.yml":
                                   "id: owners\nrequires: [test_run, endpoint_health]\n"},
                          branch="main", pushed_at=T0 - timedelta(hours=2))
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path, policy=".github/claim-policy.yml")
    check = s.check()
    assert check.conclusion == "action_required"
    assert "Policy `owners`" in (check.summary or "")
    assert result.code == 1


def test_a_missing_policy_file_is_a_definite_failure(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    result, _ = act(s, tmp_path, policy="nope.yml")
    check = s.check()
    assert check.conclusion == "failure"
    assert "does not exist on the base branch" in (check.summary or "")
    assert result.code == 3


def test_github_5xx_after_retries_posts_a_blocking_failure(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    github_hub.fail("GET /repos/{owner}/{repo}/actions/runs", times=10, status=502)
    result, _ = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "failure"
    assert "could not decide" in (check.title or "")
    assert result.code == 4


def test_a_passing_retry_after_a_rate_limit(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    github_hub.rate_limit("GET /repos/{owner}/{repo}/actions/runs", times=1, retry_after=0)
    result, _ = act(s, tmp_path)
    assert s.check().conclusion == "success"
    assert result.code == 0


def test_a_failed_deployment_refutes_the_deploy_mutation(github_hub: Hub, tmp_path: Path) -> None:
    deploy = {"id": "d1", "kind": "deploy", "target": "production", "at": "2026-03-02T08:58:00Z"}
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3)), deploy]))
    s.add_run(junit_xml())
    github_hub.add_deployment(s.repo, sha=s.head.sha, environment="production",
                              created_at=T0, statuses=[DeploymentStatusSpec(
                                  "failure", created_at=T0 + timedelta(minutes=58))])
    policy = "id: deploys\nrequires: [test_run]\ndeployment_creators: [octo]\n"
    result, _ = act(s, tmp_path, policy=policy)
    assert s.check().conclusion == "failure"
    assert result.code == 2


@pytest.mark.parametrize("event", ["push", "issues"])
def test_unsupported_events_exit_with_a_clear_message(
    github_hub: Hub, tmp_path: Path, event: str
) -> None:
    from tests.github_standin import load_webhook

    files = runner_files(tmp_path, load_webhook("push.none.1"))
    result = run_action(runner_env(github_hub, files, event, REPO))
    assert result.code == 3
    assert f"does not run on '{event}' events" in result.stdout


def test_one_run_one_artifact_one_deployment_stays_within_twelve_calls(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    github_hub.add_deployment(s.repo, sha=s.head.sha, statuses=[DeploymentStatusSpec("success")])
    github_hub.calls.clear()
    act(s, tmp_path)
    assert sum(github_hub.calls.values()) <= 12, github_hub.calls
