"""The stand-in holds clients (and itself) to GitHub's description: violations fail tests."""

from __future__ import annotations

import pytest
from github import GithubException

from tests.github_standin import Hub, pygithub
from tests.github_standin.plugin import GITHUB_TOKEN


def _repo_and_sha(hub: Hub) -> str:
    repo = hub.add_repo("octo/app")
    return repo.branches["main"]


def test_a_request_body_outside_the_description_is_recorded_and_refused(
    github_hub: Hub,
) -> None:
    sha = _repo_and_sha(github_hub)
    gh = pygithub(github_hub, GITHUB_TOKEN)
    with pytest.raises(GithubException) as refused:
        gh.requester.requestJsonAndCheck(
            "POST", "/repos/octo/app/check-runs",
            input={"name": "completion-claim", "head_sha": sha, "conclusion": "verified"})
    assert refused.value.status == 422
    found = github_hub.take_violations()
    assert [(v.direction, v.endpoint) for v in found] == [
        ("request", "POST /repos/{owner}/{repo}/check-runs")]
    assert "verified" in found[0].problem
    assert github_hub.check_runs(name="completion-claim") == []


def test_more_than_50_annotations_or_a_summary_over_65535_is_a_violation(
    github_hub: Hub,
) -> None:
    sha = _repo_and_sha(github_hub)
    gh_repo = pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")
    note: dict[str, str | int] = {
        "path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "m",
    }
    with pytest.raises(GithubException):
        gh_repo.create_check_run(name="c", head_sha=sha, output={
            "title": "t", "summary": "s", "annotations": [note] * 51})
    with pytest.raises(GithubException):
        gh_repo.create_check_run(name="c", head_sha=sha, output={
            "title": "t", "summary": "x" * 65536})
    found = github_hub.take_violations()
    assert len(found) == 2
    assert all(v.direction == "request" for v in found)


def test_a_bad_query_parameter_is_a_violation(github_hub: Hub) -> None:
    _repo_and_sha(github_hub)
    gh = pygithub(github_hub, GITHUB_TOKEN)
    with pytest.raises(GithubException):
        gh.requester.requestJsonAndCheck(
            "GET", "/repos/octo/app/actions/runs", parameters={"per_page": "lots"})
    assert [v.direction for v in github_hub.take_violations()] == ["request"]


def test_a_response_outside_the_description_is_recorded(github_hub: Hub) -> None:
    sha = _repo_and_sha(github_hub)
    run = github_hub.add_check_run(github_hub.repo("octo/app"), head_sha=sha, name="c")
    run.status = "exploded"  # state GitHub never holds: the answer breaks the schema
    gh = pygithub(github_hub, GITHUB_TOKEN)
    gh.requester.requestJsonAndCheck("GET", f"/repos/octo/app/check-runs/{run.id}")
    found = github_hub.take_violations()
    assert [(v.direction, v.endpoint, v.status) for v in found] == [
        ("response", "GET /repos/{owner}/{repo}/check-runs/{check_run_id}", 200)]
    assert "exploded" in found[0].problem


def test_an_endpoint_the_stand_in_does_not_serve_is_a_violation(github_hub: Hub) -> None:
    sha = _repo_and_sha(github_hub)
    gh = pygithub(github_hub, GITHUB_TOKEN)
    # PyGithub's Commit.get_statuses() uses this legacy path, absent from the description.
    with pytest.raises(GithubException) as missing:
        gh.requester.requestJsonAndCheck("GET", f"/repos/octo/app/statuses/{sha}")
    assert missing.value.status == 404
    found = github_hub.take_violations()
    assert len(found) == 1
    assert "serves no such endpoint" in found[0].problem


def test_the_fixture_fails_a_test_that_caused_a_violation(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner="""
        from github import GithubException
        from tests.github_standin import pygithub
        from tests.github_standin.plugin import GITHUB_TOKEN

        def test_sloppy_client(github_hub):
            github_hub.add_repo("octo/app")
            gh = pygithub(github_hub, GITHUB_TOKEN)
            try:
                gh.requester.requestJsonAndCheck(
                    "POST", "/repos/octo/app/check-runs", input={"name": "no head_sha"})
            except GithubException:
                pass

        def test_careful_client(github_hub):
            github_hub.add_repo("octo/app")
            assert pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").name == "app"
    """)
    result = pytester.runpytest_inprocess("-p", "tests.github_standin.plugin", "-q")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*departures from GitHub's API description*",
                                 "*POST /repos/{owner}/{repo}/check-runs*head_sha*"])


def test_a_failure_inside_the_stand_in_is_a_violation(github_hub: Hub) -> None:
    sha = _repo_and_sha(github_hub)
    run = github_hub.add_check_run(github_hub.repo("octo/app"), head_sha=sha, name="c")
    run.annotations.append(None)  # type: ignore[arg-type] # breaks the route's rendering
    gh = pygithub(github_hub, GITHUB_TOKEN)
    with pytest.raises(GithubException) as failed:
        gh.requester.requestJsonAndCheck("GET", f"/repos/octo/app/check-runs/{run.id}/annotations")
    assert failed.value.status == 500
    [found] = github_hub.take_violations()
    assert "the stand-in itself failed" in found.problem


def test_a_query_parameter_the_operation_does_not_have_is_a_violation(github_hub: Hub) -> None:
    sha = _repo_and_sha(github_hub)
    gh = pygithub(github_hub, GITHUB_TOKEN)
    with pytest.raises(GithubException):
        gh.requester.requestJsonAndCheck(  # misspelt: would silently list every run
            "GET", "/repos/octo/app/actions/runs", parameters={"headsha": sha})
    [found] = github_hub.take_violations()
    assert "headsha" in found.problem
