"""The GitHub stand-in answers each endpoint as PyGithub 2.x expects (and as GitHub describes).

Every test here also passes the fixture's teardown check: no request or response departed
from GitHub's OpenAPI description.
"""

from __future__ import annotations

import io
import urllib.error
import urllib.request
import zipfile
from datetime import UTC, datetime, timedelta

import pytest
from github import GithubException

from tests.github_standin import (
    READ_ONLY_PERMISSIONS,
    ArtifactSpec,
    ChangedFile,
    DeploymentStatusSpec,
    Hub,
    JobSpec,
    pygithub,
    zip_bytes,
)
from tests.github_standin.model import Commit, Pull, Repo
from tests.github_standin.plugin import GITHUB_TOKEN, HubFactory

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _scenario(hub: Hub) -> tuple[Repo, Commit, Pull]:
    repo = hub.add_repo("octo/app", files={"src/app.py": "x = 1\n", "tests/test_app.py": "t\n"})
    head = hub.add_commit(
        repo, {"src/app.py": "x = 2\n", ".claim.json": '{"claim": 1}\n'},
        branch="copilot/fix", pushed_at=T0,
    )
    pull = hub.add_pull(repo, head="copilot/fix", body="Fixes it.", user=hub.add_user(
        "copilot-swe-agent[bot]", type="Bot"))
    return repo, head, pull


def test_repository_and_fork(github_hub: Hub) -> None:
    upstream, _, _ = _scenario(github_hub)
    fork = github_hub.add_repo("agent/app", fork_of=upstream)
    gh = pygithub(github_hub, GITHUB_TOKEN)

    seen = gh.get_repo("octo/app")
    assert (seen.full_name, seen.default_branch, seen.fork) == ("octo/app", "main", False)
    seen_fork = gh.get_repo("agent/app")
    assert seen_fork.fork
    assert seen_fork.parent.full_name == "octo/app"
    assert seen_fork.id == fork.id
    with pytest.raises(GithubException) as missing:
        gh.get_repo("octo/none")
    assert missing.value.status == 404
    assert github_hub.calls["GET /repos/{owner}/{repo}"] == 3


def test_pull_request_files_and_listing(github_hub: Hub) -> None:
    repo, head, pull = _scenario(github_hub)
    gh = pygithub(github_hub, GITHUB_TOKEN)
    seen = gh.get_repo("octo/app").get_pull(pull.number)

    assert (seen.head.sha, seen.head.ref, seen.base.ref) == (head.sha, "copilot/fix", "main")
    assert seen.base.sha == repo.commits[head.parents[0]].sha
    assert seen.user.login == "copilot-swe-agent[bot]"
    assert seen.body == "Fixes it."
    assert seen.commits == 1
    files = {f.filename: f.status for f in seen.get_files()}
    assert files == {".claim.json": "added", "src/app.py": "modified"}

    listed = gh.get_repo("octo/app").get_pulls(state="open", head="octo:copilot/fix")
    assert [p.number for p in listed] == [pull.number]
    assert list(gh.get_repo("octo/app").get_pulls(head="octo:other")) == []
    by_commit = gh.get_repo("octo/app").get_commit(head.sha).get_pulls()
    assert [p.number for p in by_commit] == [pull.number]


def test_pull_request_from_a_fork_with_explicit_files(github_hub: Hub) -> None:
    upstream = github_hub.add_repo("octo/app")
    fork = github_hub.add_repo("agent/app", fork_of=upstream)
    head = github_hub.add_commit(fork, {"a.py": "1"}, branch="patch")
    pull = github_hub.add_pull(upstream, head="patch", head_repo=fork,
                               files=[ChangedFile(".github/workflows/ci.yml")])
    seen = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").get_pull(pull.number)
    assert seen.head.repo.full_name == "agent/app"
    assert seen.head.sha == head.sha
    assert [f.filename for f in seen.get_files()] == [".github/workflows/ci.yml"]


def test_commit_and_contents_at_a_ref(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    backdated = datetime(2020, 1, 1, tzinfo=UTC)
    later = github_hub.add_commit(repo, {"src/app.py": "x = 3\n"}, branch="copilot/fix",
                                  committer_date=backdated, author_date=backdated)
    gh_repo = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")

    commit = gh_repo.get_commit(later.sha)
    assert commit.parents[0].sha == head.sha
    assert commit.commit.committer.date == backdated
    def content(path: str, **ref: str) -> bytes:
        found = gh_repo.get_contents(path, **ref)
        assert not isinstance(found, list)
        return found.decoded_content

    assert content(".claim.json", ref=head.sha) == b'{"claim": 1}\n'
    assert content("src/app.py", ref=later.sha) == b"x = 3\n"
    assert content("src/app.py") == b"x = 1\n"  # the default branch
    listing = gh_repo.get_contents("src", ref="copilot/fix")
    assert isinstance(listing, list)
    assert [c.path for c in listing] == ["src/app.py"]
    with pytest.raises(GithubException) as missing:
        gh_repo.get_contents(".claim.json", ref="main")
    assert missing.value.status == 404


def test_repository_activity_records_server_time_of_pushes(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    older = head.parents[0]
    github_hub.push(repo, "copilot/fix", older, at=T0 + timedelta(hours=1), force=True)
    gh = pygithub(github_hub, GITHUB_TOKEN)

    _, pushes = gh.requester.requestJsonAndCheck(
        "GET", "/repos/octo/app/activity",
        parameters={"ref": "refs/heads/copilot/fix", "per_page": 100},
    )
    assert [(e["activity_type"], e["after"], e["timestamp"]) for e in pushes] == [
        ("force_push", older, "2026-03-01T10:00:00Z"),
        ("branch_creation", head.sha, "2026-03-01T09:00:00Z"),
    ]
    _, forced = gh.requester.requestJsonAndCheck(
        "GET", "/repos/octo/app/activity",
        parameters={"ref": "copilot/fix", "activity_type": "force_push"},
    )
    assert [e["after"] for e in forced] == [older]

    # Cursor pagination, as GitHub pages this listing (`after`/`before`, no `page`).
    headers, first = gh.requester.requestJsonAndCheck(
        "GET", "/repos/octo/app/activity", parameters={"ref": "copilot/fix", "per_page": 1})
    assert [e["activity_type"] for e in first] == ["force_push"]
    next_url = headers["link"].split(";")[0].strip("<>")
    headers, second = gh.requester.requestJsonAndCheck("GET", next_url)
    assert [e["activity_type"] for e in second] == ["branch_creation"]
    assert 'rel="prev"' in headers["link"]
    assert 'rel="next"' not in headers["link"]


def test_workflow_runs_for_a_head_sha_all_pages_latest_attempt(
    make_github_hub: HubFactory,
) -> None:
    hub = make_github_hub()
    repo, head, pull = _scenario(hub)
    other = hub.add_commit(repo, {"b": "1"}, branch="elsewhere")
    runs = [
        hub.add_workflow_run(repo, head_sha=head.sha, pull_requests=[pull],
                             run_started_at=T0 + timedelta(minutes=i))
        for i in range(130)
    ]
    hub.add_workflow_run(repo, head_sha=other.sha)
    hub.rerun(runs[0], conclusion="failure", run_started_at=T0 + timedelta(hours=5),
              jobs=[JobSpec("test", conclusion="failure")])
    gh_repo = pygithub(hub, GITHUB_TOKEN).get_repo("octo/app")

    listed = list(gh_repo.get_workflow_runs(head_sha=head.sha))
    assert len(listed) == 130
    assert hub.calls["GET /repos/{owner}/{repo}/actions/runs"] == 2  # per_page=100
    first = next(r for r in listed if r.id == runs[0].id)
    assert (first.run_attempt, first.conclusion) == (2, "failure")
    assert first.run_started_at == T0 + timedelta(hours=5)
    assert first.head_sha == head.sha
    assert first.path == ".github/workflows/ci.yml"
    assert first.event == "pull_request"
    assert [p.number for p in first.pull_requests] == [pull.number]

    _, attempt = gh_repo.requester.requestJsonAndCheck(
        "GET", f"/repos/octo/app/actions/runs/{runs[0].id}/attempts/1")
    assert (attempt["run_attempt"], attempt["conclusion"]) == (1, "success")
    assert [j.conclusion for j in gh_repo.get_workflow_run(runs[0].id).jobs()] == ["failure"]
    assert len(list(gh_repo.get_workflow_run(runs[0].id).jobs("all"))) == 2
    _, old_jobs = gh_repo.requester.requestJsonAndCheck(
        "GET", f"/repos/octo/app/actions/runs/{runs[0].id}/attempts/1/jobs")
    assert [j["conclusion"] for j in old_jobs["jobs"]] == ["success"]


def test_runs_of_one_workflow_on_a_branch(github_hub: Hub) -> None:
    repo, _, _ = _scenario(github_hub)
    base = repo.branches["main"]
    github_hub.add_workflow_run(repo, head_sha=base, event="push", conclusion="failure")
    good = github_hub.add_workflow_run(repo, head_sha=base, event="push")
    github_hub.add_workflow_run(repo, head_sha=base, event="push", path=".github/workflows/x.yml")
    gh = pygithub(github_hub, GITHUB_TOKEN)
    _, found = gh.requester.requestJsonAndCheck(
        "GET", "/repos/octo/app/actions/workflows/ci.yml/runs",
        parameters={"branch": "main", "status": "success", "per_page": 1},
    )
    assert found["total_count"] == 1
    assert [r["id"] for r in found["workflow_runs"]] == [good.id]
    _, by_id = gh.requester.requestJsonAndCheck(
        "GET", f"/repos/octo/app/actions/workflows/{good.workflow_id}/runs")
    assert by_id["total_count"] == 2
    runs = sorted(github_hub.runs.values(), key=lambda r: r.created_at)
    middle = runs[1].created_at
    for created, expected in [
        (f">={middle:%Y-%m-%dT%H:%M:%SZ}", runs[1:]),
        (f"<{middle:%Y-%m-%dT%H:%M:%SZ}", runs[:1]),
        (f"{middle:%Y-%m-%d}", runs),
        (f"{middle:%Y-%m-%dT%H:%M:%SZ}..*", runs[1:]),
        ("2020-01-01", []),
    ]:
        _, found = gh.requester.requestJsonAndCheck(
            "GET", "/repos/octo/app/actions/runs", parameters={"created": created})
        assert sorted(r["id"] for r in found["workflow_runs"]) == sorted(
            r.id for r in expected), created


def test_artifact_download_is_a_302_to_storage_that_needs_no_token(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    data = zip_bytes({"junit.xml": "<testsuite tests='1'/>"})
    run = github_hub.add_workflow_run(repo, head_sha=head.sha, artifacts=[
        ArtifactSpec("junit", data), ArtifactSpec("old", b"PK", expired=True)])
    gh = pygithub(github_hub, GITHUB_TOKEN)
    artifacts = {a.name: a for a in gh.get_repo("octo/app").get_workflow_run(run.id)
                 .get_artifacts()}
    assert artifacts["junit"].size_in_bytes == len(data)
    assert gh.get_repo("octo/app").get_artifact(artifacts["junit"].id).name == "junit"
    assert artifacts["junit"].workflow_run.head_sha == head.sha

    headers, _ = gh.requester.requestJsonAndCheck(
        "GET", artifacts["junit"].archive_download_url, follow_302_redirect=False)
    location = headers["location"]
    assert location.startswith(github_hub.storage_url)
    with urllib.request.urlopen(location) as answer:  # noqa: S310 - the stand-in's storage
        archive = zipfile.ZipFile(io.BytesIO(answer.read()))
    assert archive.read("junit.xml") == b"<testsuite tests='1'/>"
    assert [(r.authorization, r.status) for r in github_hub.storage_requests] == [(None, 200)]

    # A client that forwards the token to storage is refused, and the hub records it.
    forwarding = urllib.request.Request(  # noqa: S310 - the stand-in's storage
        location, headers={"Authorization": f"token {GITHUB_TOKEN}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forwarding)  # noqa: S310
    assert refused.value.code == 400
    refused.value.close()
    assert github_hub.storage_requests[-1].authorization == f"token {GITHUB_TOKEN}"

    with pytest.raises(GithubException) as gone:
        gh.requester.requestJsonAndCheck(
            "GET", artifacts["old"].archive_download_url, follow_302_redirect=False)
    assert gone.value.status == 410


def test_check_runs_create_update_annotations_and_list(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    other_app = github_hub.add_app("impostor")
    github_hub.add_check_run(repo, head_sha=head.sha, name="completion-claim", app=other_app)
    github_hub.add_workflow_run(repo, head_sha=head.sha, jobs=[JobSpec("pytest")])
    gh_repo = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")

    note: dict[str, str | int] = {"path": ".claim.json", "start_line": 1, "end_line": 1,
            "annotation_level": "failure", "message": "unmet"}
    posted = gh_repo.create_check_run(
        name="completion-claim", head_sha=head.sha, status="in_progress",
        output={"title": "t", "summary": "s", "annotations": [note] * 50})
    posted.edit(conclusion="action_required",
                output={"title": "Unverified", "summary": "no evidence",
                        "annotations": [note] * 10})
    assert posted.app.slug == "github-actions"

    stored = github_hub.check_runs(name="completion-claim", app=github_hub.actions_app)
    assert [(r.conclusion, r.title, len(r.annotations)) for r in stored] == [
        ("action_required", "Unverified", 60)]
    assert len(list(gh_repo.get_check_run(posted.id).get_annotations())) == 60

    listed = gh_repo.get_commit(head.sha).get_check_runs(check_name="completion-claim")
    assert sorted((r.app.slug, r.conclusion) for r in listed) == [
        ("github-actions", "action_required"), ("impostor", "success")]
    _, actions_only = gh_repo.requester.requestJsonAndCheck(
        "GET", f"/repos/octo/app/commits/{head.sha}/check-runs",
        parameters={"app_id": github_hub.actions_app.id, "filter": "all"})
    assert sorted(r["name"] for r in actions_only["check_runs"]) == ["completion-claim", "pytest"]
    suites = gh_repo.get_commit(head.sha).get_check_suites()
    assert sorted(s.app.slug for s in suites) == ["github-actions", "impostor"]
    suite = gh_repo.get_check_suite(posted.check_suite.id)
    assert suite.head_sha == head.sha


def test_check_run_writes_need_an_app_with_checks_write(github_hub: Hub) -> None:
    _, head, _ = _scenario(github_hub)
    github_hub.add_token("fork-token", permissions=READ_ONLY_PERMISSIONS)
    github_hub.add_token("user-token", user=github_hub.add_user("alice"))
    other_app = github_hub.add_app("other")
    github_hub.add_token("other-token", app=other_app)
    for token in ("fork-token", "user-token"):
        with pytest.raises(GithubException) as refused:
            pygithub(github_hub, token).get_repo("octo/app").create_check_run(
                name="completion-claim", head_sha=head.sha)
        assert refused.value.status == 403
    mine = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").create_check_run(
        name="completion-claim", head_sha=head.sha)
    with pytest.raises(GithubException) as foreign:
        pygithub(github_hub, "other-token").get_repo("octo/app").get_check_run(mine.id).edit(
            conclusion="success")
    assert foreign.value.status == 403
    with pytest.raises(GithubException) as anonymous:
        pygithub(github_hub, "no-such-token").get_repo("octo/app")
    assert anonymous.value.status == 401
    assert github_hub.check_runs(name="completion-claim")[0].status == "queued"


def test_commit_statuses(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    github_hub.add_status(repo, sha=head.sha, state="success", context="completion-claim",
                          creator=github_hub.add_user("mallory"))
    gh = pygithub(github_hub, GITHUB_TOKEN)
    gh_commit = gh.get_repo("octo/app").get_commit(head.sha)
    gh_commit.create_status("failure", context="ci/tests", description="1 failed")

    # PyGithub's Commit.get_statuses() asks the legacy GET /repos/{o}/{r}/statuses/{sha},
    # which GitHub's description does not list; the documented listing is this one.
    _, listed = gh.requester.requestJsonAndCheck(
        "GET", f"/repos/octo/app/commits/{head.sha}/statuses")
    statuses = [(s["context"], s["state"], s["creator"]["login"]) for s in listed]
    assert statuses == [("ci/tests", "failure", "github-actions[bot]"),
                        ("completion-claim", "success", "mallory")]
    combined = gh_commit.get_combined_status()
    assert (combined.state, combined.total_count) == ("failure", 2)


def test_deployments_and_their_statuses_with_creators(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    deployer = github_hub.add_app("deployer")
    github_hub.add_deployment(repo, sha=head.sha, environment="staging", app=deployer, statuses=[
        DeploymentStatusSpec("in_progress"), DeploymentStatusSpec("success")])
    github_hub.add_deployment(repo, sha=head.sha, environment="staging",
                              creator=github_hub.add_user("mallory"),
                              statuses=[DeploymentStatusSpec("success")])
    github_hub.add_deployment(repo, sha=repo.branches["main"])
    gh_repo = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")

    found = list(gh_repo.get_deployments(sha=head.sha))
    assert [(d.environment, d.creator.login) for d in found] == [
        ("staging", "mallory"), ("staging", "deployer[bot]")]
    latest = [s.state for s in found[1].get_statuses()]
    assert latest == ["success", "in_progress"]
    assert gh_repo.get_deployment(found[0].id).sha == head.sha


def test_issue_comments(github_hub: Hub) -> None:
    repo, _, pull = _scenario(github_hub)
    github_hub.add_comment(repo, pull.number, "Earlier", user=github_hub.add_user("alice"))
    gh_pull = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").get_pull(pull.number)
    mine = gh_pull.create_issue_comment("claim-gate: unverified")
    mine.edit("claim-gate: verified")
    bodies = [(c.user.login, c.body) for c in gh_pull.get_issue_comments()]
    assert bodies == [("alice", "Earlier"), ("github-actions[bot]", "claim-gate: verified")]
    theirs = next(iter(gh_pull.get_issue_comments()))
    with pytest.raises(GithubException) as refused:
        theirs.edit("rewritten")
    assert refused.value.status == 403


def test_each_workflow_run_has_its_own_check_suite(github_hub: Hub) -> None:
    repo, head, _ = _scenario(github_hub)
    ci = github_hub.add_workflow_run(repo, head_sha=head.sha, created_at=T0)
    lint = github_hub.add_workflow_run(repo, head_sha=head.sha, path=".github/workflows/lint.yml",
                                       created_at=T0 + timedelta(seconds=5))
    assert ci.check_suite_id != lint.check_suite_id
    suites = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").get_commit(
        head.sha).get_check_suites()
    assert sorted((s.id, s.app.slug, s.created_at) for s in suites) == [
        (ci.check_suite_id, "github-actions", T0),
        (lint.check_suite_id, "github-actions", T0 + timedelta(seconds=5)),
    ]


def test_filtered_run_listings_stop_at_1000_and_answers_carry_rate_limit_headers(
    github_hub: Hub,
) -> None:
    repo = github_hub.add_repo("octo/app")
    sha = repo.branches["main"]
    for _ in range(1001):
        github_hub.add_workflow_run(repo, head_sha=sha, jobs=[])
    gh = pygithub(github_hub, GITHUB_TOKEN)
    headers, page = gh.requester.requestJsonAndCheck(
        "GET", "/repos/octo/app/actions/runs",
        parameters={"head_sha": sha, "per_page": 100, "page": 11})
    assert (page["total_count"], page["workflow_runs"]) == (1000, [])
    assert headers["x-ratelimit-remaining"] == "4999"
    _, unfiltered = gh.requester.requestJsonAndCheck(
        "GET", "/repos/octo/app/actions/runs", parameters={"per_page": 1})
    assert unfiltered["total_count"] == 1001


def test_fork_commits_are_reachable_through_the_base_repository(github_hub: Hub) -> None:
    upstream = github_hub.add_repo("octo/app", files={"a": "0", "b": "0"})
    fork = github_hub.add_repo("agent/app", fork_of=upstream)
    github_hub.add_commit(upstream, {"b": "base moved on"})
    head = github_hub.add_commit(fork, {"a": "agent"}, branch="fix")
    pull = github_hub.add_pull(upstream, head="fix", head_repo=fork)
    merge = github_hub.add_merge_commit(pull)
    assert merge.parents == [pull.base_sha, head.sha]
    assert merge.files == {"a": b"agent", "b": b"base moved on"}
    assert pull.merge_commit_sha == merge.sha

    github_hub.add_workflow_run(upstream, head_sha=head.sha, head_repo=fork, jobs=[JobSpec("t")])
    gh_repo = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")
    assert [r.name for r in gh_repo.get_commit(head.sha).get_check_runs()] == ["t"]
    content = gh_repo.get_contents("a", ref=head.sha)
    assert not isinstance(content, list)
    assert content.decoded_content == b"agent"
    assert gh_repo.get_pull(pull.number).merge_commit_sha == merge.sha
    posted = gh_repo.create_check_run(name="completion-claim", head_sha=head.sha)
    assert posted.head_sha == head.sha
