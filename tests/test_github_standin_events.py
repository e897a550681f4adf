"""Event payloads: real examples carrying the scenario's repository, PR, SHAs and run."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.github_standin import DeploymentStatusSpec, Hub, pygithub
from tests.github_standin.events import (
    deployment_status_event,
    merge_group_event,
    pull_request_event,
    push_event,
    workflow_run_event,
)
from tests.github_standin.plugin import GITHUB_TOKEN

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_pull_request_events_name_the_scenario(github_hub: Hub) -> None:
    upstream = github_hub.add_repo("octo/app")
    fork = github_hub.add_repo("agent/app", fork_of=upstream)
    head = github_hub.add_commit(fork, {"a.py": "1"}, branch="fix")
    pull = github_hub.add_pull(upstream, head="fix", head_repo=fork, body="claim")
    opened = pull_request_event(github_hub, pull)
    assert (opened["action"], opened["number"]) == ("opened", pull.number)
    assert opened["pull_request"]["head"]["sha"] == head.sha
    assert opened["pull_request"]["head"]["repo"]["full_name"] == "agent/app"
    assert opened["pull_request"]["base"]["repo"]["full_name"] == "octo/app"
    assert opened["repository"]["full_name"] == "octo/app"
    assert opened["pull_request"]["url"].startswith(github_hub.api_url)
    assert "merge_commit_sha" in opened["pull_request"]  # example fields stay
    synced = pull_request_event(github_hub, pull, action="synchronize")
    assert (synced["before"], synced["after"]) == (head.parents[0], head.sha)
    # What the event says the stand-in answers too.
    seen = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").get_pull(opened["number"])
    assert seen.head.sha == opened["pull_request"]["head"]["sha"]


def test_workflow_run_event(github_hub: Hub) -> None:
    repo = github_hub.add_repo("octo/app")
    head = github_hub.add_commit(repo, {"a": "1"}, branch="fix")
    pull = github_hub.add_pull(repo, head="fix")
    run = github_hub.add_workflow_run(repo, head_sha=head.sha, pull_requests=[pull],
                                      conclusion="failure")
    payload = workflow_run_event(github_hub, run)
    assert payload["workflow_run"]["id"] == run.id
    assert payload["workflow_run"]["head_sha"] == head.sha
    assert (payload["workflow_run"]["status"], payload["workflow_run"]["conclusion"]) == (
        "completed", "failure")
    assert [p["number"] for p in payload["workflow_run"]["pull_requests"]] == [pull.number]
    assert payload["workflow"]["path"] == ".github/workflows/ci.yml"


def test_merge_group_event_and_queue_branch(github_hub: Hub) -> None:
    repo = github_hub.add_repo("octo/app", files={"a": "0", "b": "0"})
    github_hub.add_commit(repo, {"a": "1"}, branch="one")
    first = github_hub.add_pull(repo, head="one")
    github_hub.add_commit(repo, {"b": "2"}, branch="two", parents=[repo.branches["main"]])
    second = github_hub.add_pull(repo, head="two")
    group = github_hub.add_merge_group(repo, [first, second])
    assert repo.commits[group.head_sha].files == {"a": b"1", "b": b"2"}
    payload = merge_group_event(github_hub, group)
    assert payload["merge_group"]["head_sha"] == group.head_sha
    assert payload["merge_group"]["head_ref"] == (
        f"refs/heads/gh-readonly-queue/main/pr-{second.number}-{group.base_sha}")
    assert payload["merge_group"]["base_ref"] == "refs/heads/main"


def test_deployment_status_and_push_events(github_hub: Hub) -> None:
    repo = github_hub.add_repo("octo/app")
    backdated = datetime(2019, 1, 1, tzinfo=UTC)
    head = github_hub.add_commit(repo, {"a": "1"}, committer_date=backdated, pushed_at=T0)
    deployment = github_hub.add_deployment(repo, sha=head.sha, statuses=[
        DeploymentStatusSpec("success")])
    payload = deployment_status_event(github_hub, deployment, deployment.statuses[-1])
    assert payload["deployment"]["sha"] == head.sha
    assert payload["deployment_status"]["state"] == "success"
    assert payload["deployment_status"]["creator"]["login"] == "octo"

    pushed = push_event(github_hub, repo, repo.activity[-1])
    assert (pushed["after"], pushed["ref"]) == (head.sha, "refs/heads/main")
    assert pushed["head_commit"]["timestamp"] == "2019-01-01T00:00:00Z"  # the author's claim
    assert pushed["repository"]["pushed_at"] == "2026-03-01T09:00:00Z"  # the server's time
