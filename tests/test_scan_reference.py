"""Which PR and which server `claim-gate scan` reads, parsed before any request."""

from __future__ import annotations

import pytest

from gate.claim.errors import InvalidInput
from gate.evidence.github.permissions import permission_for
from gate.faces.scan_ref import GITHUB_API, choose_api_url, parse_reference


@pytest.mark.parametrize(("text", "repository", "number", "api"), [
    ("octo/app#12", "octo/app", 12, None),
    (" octo/my.app_2#7 ", "octo/my.app_2", 7, None),
    ("https://github.com/octo/app/pull/12", "octo/app", 12, GITHUB_API),
    ("https://www.github.com/octo/app/pull/12/files", "octo/app", 12, GITHUB_API),
    ("https://GitHub.com/octo/app/pull/12#issuecomment-1", "octo/app", 12, GITHUB_API),
    ("https://ghe.example.com/octo/app/pull/3", "octo/app", 3, "https://ghe.example.com/api/v3"),
    ("http://127.0.0.1:8080/octo/app/pull/3", "octo/app", 3, "http://127.0.0.1:8080/api/v3"),
])
def test_references(text: str, repository: str, number: int, api: str | None) -> None:
    ref = parse_reference(text)
    assert (ref.repository, ref.number, ref.api_url) == (repository, number, api)
    assert str(ref) == f"{repository}#{number}"


@pytest.mark.parametrize("text", [
    "octo/app#-1", "octo/app#1.5", "octo/app/#1", "https://github.com/octo/pull/1",
    "https://github.com/octo/app/pulls/1", "https:///octo/app/pull/1", "github.com/octo/app/pull/1",
    "https://github.com/octo/app/pull/1x",
])
def test_malformed_references(text: str) -> None:
    with pytest.raises(InvalidInput, match="OWNER/REPO#N"):
        parse_reference(text)


def test_the_api_url_comes_from_the_flag_then_the_url_then_the_runner() -> None:
    short, url = parse_reference("octo/app#1"), parse_reference("https://ghe.example.com/o/r/pull/1")
    runner = {"GITHUB_API_URL": "https://ghe.corp/api/v3/"}
    assert choose_api_url("", short, {}) == GITHUB_API
    assert choose_api_url("", short, runner) == "https://ghe.corp/api/v3"
    assert choose_api_url("", url, runner) == "https://ghe.example.com/api/v3"
    assert choose_api_url("https://ghe.example.com/api/v3/", url, {}) == (
        "https://ghe.example.com/api/v3")
    assert choose_api_url("https://api.github.com", parse_reference(
        "https://github.com/o/r/pull/1"), {}) == GITHUB_API
    with pytest.raises(InvalidInput, match="not the API of the server"):
        choose_api_url("https://api.github.com", url, {})
    with pytest.raises(InvalidInput, match="not an http"):
        choose_api_url("ghe.example.com", short, {})


@pytest.mark.parametrize(("path", "needed"), [
    ("/repos/o/r/actions/runs", "actions: read"),
    ("/api/v3/repos/o/r/actions/artifacts/5/zip", "actions: read"),
    ("/repos/o/r/commits/abc/check-runs", "checks: read"),
    ("/repos/o/r/commits/abc/check-suites", "checks: read"),
    ("/repos/o/r/commits/abc/statuses", "statuses: read"),
    ("/repos/o/r/deployments/3/statuses", "deployments: read"),
    ("/repos/o/r/pulls/3/files", "pull-requests: read"),
    ("/repos/o/r/commits/abc/pulls", "pull-requests: read"),
    ("/repos/o/r/contents/.claim.json?ref=abc", "contents: read"),
    ("/repos/o/r/commits/abc", "contents: read"),
    ("/repos/o/r/activity", "contents: read"),
    ("/repos/o/r/issues/3", "issues: read"),
    ("/repos/o/r/compare/abc...def", "contents: read"),
    ("/repos/o/r/issues/3/timeline", "pull-requests: read"),
    ("/app/installations/1/access_tokens", None),
])
def test_a_403_names_the_permission_of_the_endpoint(path: str, needed: str | None) -> None:
    assert permission_for(path) == needed


@pytest.mark.parametrize(("api_url", "token", "warned"), [
    ("http://ghe.corp/api/v3", "t", True),
    ("http://127.0.0.1.evil.example/api/v3", "t", True),
    ("http://127.0.0.1:8080/api/v3", "t", False),
    ("https://ghe.corp/api/v3", "t", False),
    ("http://ghe.corp/api/v3", "", False),
])
def test_a_token_sent_over_plain_http_is_warned_about(
    api_url: str, token: str, warned: bool
) -> None:
    import io

    from gate.faces.scan import _warn_unsafe

    err = io.StringIO()
    _warn_unsafe(api_url, token, err)
    assert ("unencrypted" in err.getvalue()) is warned
