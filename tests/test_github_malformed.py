"""A malformed answer from GitHub (a proxy, an outage page, an API change) is CouldNotDecide
naming the endpoint, never an internal error (issue 11). The stand-in only speaks GitHub's
documented shapes, so the fault is injected at the requester with pytest-mock."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_mock import MockerFixture

from gate.claim.errors import CouldNotDecide
from gate.evidence.github.api import GitHubApi, RetryPolicy, connect

SHA = "a" * 40


def _api(mocker: MockerFixture, answer: Any) -> GitHubApi:
    api = GitHubApi(github=connect("http://127.0.0.1:9", "t", RetryPolicy(total=0)),
                    repository="octo/app")
    mocker.patch.object(api, "_request", return_value=({}, answer))
    return api


@pytest.mark.parametrize(("call", "answer", "endpoint"), [
    (lambda api: api.workflow_runs(SHA), {"workflow_runs": [{"name": "ci"}]},
     "GET /repos/{owner}/{repo}/actions/runs"),
    (lambda api: api.artifacts(7), {"artifacts": [{"id": "seven", "name": "junit"}]},
     "GET /repos/{owner}/{repo}/actions/runs/{id}/artifacts"),
    (lambda api: api.check_runs(SHA, "completion-claim"), {"check_runs": [{"name": "x"}]},
     "GET /repos/{owner}/{repo}/commits/{sha}/check-runs"),
    (lambda api: api.create_check_run({"name": "x"}), {"html_url": None},
     "POST /repos/{owner}/{repo}/check-runs"),
    (lambda api: list(api.activity("octo/app", "main")), [{"activity_type": "push"}],
     "GET /repos/{owner}/{repo}/activity"),
])
def test_a_malformed_object_is_could_not_decide_naming_the_endpoint(
    mocker: MockerFixture, call: Any, answer: Any, endpoint: str
) -> None:
    with pytest.raises(CouldNotDecide) as caught:
        call(_api(mocker, answer))
    assert endpoint in str(caught.value)
    assert "not shaped as documented" in str(caught.value)


@pytest.mark.parametrize(("answer", "said"), [
    ([], "does not say whether an App opened it"),
    ({"number": 1}, "does not say whether an App opened it"),
    ({"performed_via_github_app": {"id": 5}}, "without a slug"),
    ({"performed_via_github_app": {"slug": ""}}, "without a slug"),
])
def test_an_unreadable_opener_app_is_could_not_decide(
    mocker: MockerFixture, answer: Any, said: str
) -> None:
    """Not "a person opened it": the agents rule gates a PR whose app cannot be read."""
    with pytest.raises(CouldNotDecide, match=said):
        _api(mocker, answer).pull_app(1)


@pytest.mark.parametrize(("answer", "app"), [
    ({"performed_via_github_app": None}, None),
    ({"performed_via_github_app": {"slug": "chatgpt-codex-connector"}}, "chatgpt-codex-connector"),
])
def test_the_opener_app_is_read(mocker: MockerFixture, answer: Any, app: str | None) -> None:
    assert _api(mocker, answer).pull_app(1) == app
