"""The action end to end against the GitHub stand-in, from real example event payloads.

Each scenario builds a repository, a PR and its CI runs in the stand-in, writes the event
payload the runner would, calls the action's entry point with INPUT_* variables from
action.yml, and checks the check run GitHub received, the files and the exit code.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

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
from tests.github_standin import ArtifactSpec, DeploymentStatusSpec, zip_bytes
from tests.github_standin.hub import Hub
from tests.github_standin.plugin import HubFactory


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
    record = json.loads(files.claim_json().read_text("utf-8"))
    assert record["verdict"]["state"] == "verified"
    run = record["evidence"][0]["x-run"]
    assert run["id"] == s.runs[0].id
    assert run["workflow_path"] == ".github/workflows/ci.yml"
    assert "## Completion claim: ✅ verified" in files.summary.read_text("utf-8")
    summary = files.summary.read_text("utf-8")
    folded = summary.split("<summary>The completed claim (JSON)</summary>", 1)[1]
    assert json.loads(folded.split("````json\n", 1)[1].split("\n````", 1)[0]) == record
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
    s.add_run(junit_xml(), status="in_progress", conclusion=None)
    result, files = act(s, tmp_path)
    assert s.check().conclusion == "action_required"
    summary = files.summary.read_text("utf-8")
    assert "ended cancelled" in summary
    assert "ended cancelled" in (s.check().summary or "")
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
    mutations += [edit("parser", at=T0 - timedelta(minutes=3))]  # the diff must be claimed
    mutations += [{"id": f"s{i}", "kind": "state_write", "target": f"accounts/{i}",
                   "at": "2026-03-02T08:57:00Z"} for i in range(60)]
    s = scenario(github_hub, claim_json(mutations),
                 files={f"f{i}.py": "x = 1\n" for i in range(70)})
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


def test_one_run_one_artifact_one_deployment_stays_within_nineteen_calls(
    github_hub: Hub, tmp_path: Path
) -> None:
    """Was twelve (issue 10): the PR is read again through the API (its base now, the
    repository's default branch), and the base branch's baseline run, now required for a
    complete picture, costs its artifact list and download. Fifteen until issue 20: the PR's
    timeline (base changes, reopenings), the PRs holding the head (which PR a run is for) and
    the PR read again at the end (superseded) cost one each; the diff pinned by SHA and the
    base commit's runs replace the PR's files and the per-workflow baseline listing. Issue 21:
    the PR's one changed code file is read at the head for the reading of the change."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    github_hub.add_deployment(s.repo, sha=s.head.sha, statuses=[DeploymentStatusSpec("success")])
    github_hub.calls.clear()
    act(s, tmp_path)
    assert s.check().conclusion == "success"
    assert sum(github_hub.calls.values()) <= 19, github_hub.calls


def test_junit_from_the_prs_test_merge_commit_is_bound_to_the_head(
    github_hub: Hub, tmp_path: Path
) -> None:
    """A pull_request workflow tests refs/pull/N/merge; its parent is the head, checked."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    merge = github_hub.add_merge_commit(s.pull)
    s.add_run(junit_xml(commit=merge.sha))
    result, _ = act(s, tmp_path)
    assert s.check().conclusion == "success"
    assert result.code == 0


def test_junit_naming_another_commit_does_not_count(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    older = s.head.parents[0]
    s.add_run(junit_xml(commit=older))
    result, _ = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "other_commit" in (check.summary or "")
    assert result.code == 1


@pytest.mark.parametrize(("served", "conclusion", "code"),
                         [("head", "success", 0), ("previous", "failure", 2)])
def test_probes_check_the_deployed_thing_at_the_deployment_status_url(
    github_hub: Hub, tmp_path: Path, served: str, conclusion: str, code: int
) -> None:
    """After reading the deployment statuses of a trusted creator (the repository owner,
    named in deployment_creators), the gate asks the deployed app itself."""
    from tests.probe_support import Reply, Seen, serve

    deploy = {"id": "d1", "kind": "deploy", "target": "production", "at": "2026-03-02T08:58:00Z"}
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3)), deploy]))
    s.add_run(junit_xml())
    version = s.head.sha if served == "head" else s.head.parents[0]

    def app(seen: Seen, body: bytes) -> Reply:
        return Reply.json(200, {"sha": version}) if seen.path == "/version" else Reply(404)

    with serve(app) as server:
        github_hub.add_deployment(
            s.repo, sha=s.head.sha, environment="production", created_at=T0,
            statuses=[DeploymentStatusSpec("success", created_at=T0 + timedelta(minutes=1),
                                           environment_url=server.url)])
        policy = (
            "id: live\nrequires: [test_run, endpoint_health]\n"
            f"deployment_creators: [{s.repo.owner.login}]\nprobes:\n"
            f"  allowed_hosts: ['127.0.0.1:{server.port}']\n  allow_http: true\n"
            "  endpoint_health:\n    - environment: production\n      path: /version\n"
            "      status: 200\n      assert:\n        - json_pointer: /sha\n"
            "          equals: '{sha}'\n"
        )
        result, _ = act(s, tmp_path, policy=policy)
        assert [seen.path for seen in server.seen] == ["/version"]
    check = s.check()
    assert check.conclusion == conclusion, check.summary
    assert result.code == code


def test_a_broken_claim_is_unverified_and_annotated_at_the_error(
    github_hub: Hub, tmp_path: Path
) -> None:
    text = claim_json([edit(at=T0 - timedelta(minutes=3))]).replace('"file_edit"', "file_edit")
    s = scenario(github_hub, text)
    s.add_run(junit_xml())
    result, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "cannot be read" in (check.title or "")
    [note] = check.annotations
    assert (note.path, note.annotation_level) == (".claim.json", "failure")
    assert note.start_line == next(i for i, line in enumerate(text.splitlines(), 1)
                                   if "file_edit" in line)
    assert files.outputs()["verdict"] == "unverified"
    assert result.code == 1


def test_an_unreadable_claim_file_does_not_hide_a_refuted_one(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The worst verdict for the PR: refuted beats the unverified of an unreadable claim."""
    good = claim_json([edit(at=T0 - timedelta(minutes=3))])
    s = scenario(github_hub, None, files={"claims/a.json": good, "claims/b.json": "{nope"})
    s.add_run(junit_xml(passed=3, failed=1), conclusion="failure")
    result, files = act(s, tmp_path, claim_path="claims/*.json")
    conclusions = {c.name: c.conclusion for c in github_hub.check_runs(head_sha=s.head.sha)
                   if c.name.startswith("completion-claim")}
    assert conclusions == {"completion-claim (claims/a.json)": "failure",
                           "completion-claim (claims/b.json)": "action_required",
                           "completion-claim": "failure"}  # issue 10 class 9: the worst
    assert files.outputs()["verdict"] == "refuted"
    assert result.code == 2


def test_a_claim_whose_error_quotes_a_huge_field_is_still_unverified(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The loader's message quotes the agent's text; the check run must stay under GitHub's
    65535-character limits, or GitHub refuses it and the answer turns into could-not-decide."""
    data = json.loads(claim_json([edit(at=T0 - timedelta(minutes=3))]))
    data["y" * 70_000] = 1
    s = scenario(github_hub, json.dumps(data))
    s.add_run(junit_xml())
    result, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "cannot be read" in (check.title or "")
    assert "more characters not shown" in (check.summary or "")
    assert files.outputs()["verdict"] == "unverified"
    assert result.code == 1


@pytest.mark.parametrize("second_pr", [False, True])
def test_a_run_that_names_no_pr_counts_only_while_no_other_pr_shares_the_head(
    github_hub: Hub, tmp_path: Path, second_pr: bool
) -> None:
    """Fork PRs' runs list no pull request; the gate then asks which open PRs have this head."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(), pull_requests=[])
    if second_pr:
        github_hub.add_commit(s.repo, {"x": "1\n"}, branch="elsewhere",
                              parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=1))
        github_hub.add_pull(s.repo, head="copilot/fix-parser", base="elsewhere")
    result, files = act(s, tmp_path)
    assert s.check().conclusion == ("action_required" if second_pr else "success")
    if second_pr:
        assert "also hold this head commit" in files.summary.read_text("utf-8")
    assert result.code == (1 if second_pr else 0)


@pytest.mark.parametrize(("opt_in", "conclusion"), [(False, "action_required"),
                                                    (True, "success")])
def test_a_named_creators_success_counts_only_when_the_policy_opts_in(
    github_hub: Hub, tmp_path: Path, opt_in: bool, conclusion: str
) -> None:
    """A success status is the pipeline's account: by itself it is no endpoint_health,
    unless the owner says statuses from that creator count."""
    deploy = {"id": "d1", "kind": "deploy", "target": "production", "at": "2026-03-02T08:58:00Z"}
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3)), deploy]))
    s.add_run(junit_xml())
    github_hub.add_deployment(s.repo, sha=s.head.sha, environment="production", created_at=T0,
                              statuses=[DeploymentStatusSpec(
                                  "success", created_at=T0 + timedelta(minutes=58))])
    policy = ("id: owners\nrequires: [test_run, endpoint_health]\ndeployment_creators: [octo]\n"
              + ("deployment_success_counts: true\n" if opt_in else ""))
    result, _ = act(s, tmp_path, policy=policy)
    check = s.check()
    assert check.conclusion == conclusion, check.summary
    if not opt_in:
        assert "pipeline_account" in (check.summary or "")
    assert result.code == (0 if opt_in else 1)


def test_success_counting_without_named_creators_is_refused(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    result, _ = act(s, tmp_path, policy="id: o\ndeployment_success_counts: true\n")
    assert s.check().conclusion == "failure"
    assert "needs /deployment_creators" in (s.check().summary or "")
    assert result.code == 3


@pytest.mark.parametrize("primary", [False, True])
def test_a_rate_limit_that_outlasts_the_retries_is_a_fault_not_a_fork_token(
    github_hub: Hub, tmp_path: Path, primary: bool
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    github_hub.rate_limit("POST /repos/{owner}/{repo}/check-runs", times=10, retry_after=0,
                          primary=primary)
    result, _ = act(s, tmp_path)
    assert result.code == 4
    assert "workflow_run" not in result.stdout  # not the fork set-up advice
    assert "could not" in result.stdout


def test_a_crash_inside_the_gate_still_leaves_a_blocking_check(
    github_hub: Hub, tmp_path: Path, mocker: MockerFixture
) -> None:
    """A bug is a fault that is hard to provoke for real: mocked, and never a pass."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml())
    mocker.patch("gate.pipeline.decide", side_effect=RuntimeError("engine exploded"))
    result, _ = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "failure"
    assert "internal error RuntimeError: engine exploded" in (check.summary or "")
    assert result.code == 4
    assert "Traceback" not in result.stdout
