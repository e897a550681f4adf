"""Fault hooks (5xx, rate limits, delays), call counting, the Enterprise base path, App tokens."""

from __future__ import annotations

import time

import jwt
import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from github import (
    Auth,
    Github,
    GithubException,
    GithubIntegration,
    GithubRetry,
    RateLimitExceededException,
)
from urllib3.util import Retry

from tests.github_standin import ArtifactSpec, Hub, pygithub, zip_bytes
from tests.github_standin.plugin import GITHUB_TOKEN, HubFactory

REPO = "GET /repos/{owner}/{repo}"


def test_server_errors_then_normal_service(github_hub: Hub) -> None:
    github_hub.add_repo("octo/app")
    github_hub.fail(REPO, times=2, status=502)
    with pytest.raises(GithubException) as failed:
        pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")
    assert failed.value.status == 502

    retrying = Retry(total=3, status_forcelist=[502], backoff_factor=0, allowed_methods=None)
    assert pygithub(github_hub, GITHUB_TOKEN, retry=retrying).get_repo("octo/app").name == "app"
    assert github_hub.calls[REPO] == 3  # one refused, one refused then retried, one served


def test_secondary_rate_limit_carries_retry_after_and_github_retry_honours_it(
    github_hub: Hub,
) -> None:
    github_hub.add_repo("octo/app")
    github_hub.rate_limit(REPO, times=1, status=429, retry_after=7)
    github_hub.rate_limit(REPO, times=1, status=403, retry_after=0)
    url = f"{github_hub.api_url}/repos/octo/app"
    auth = {"Authorization": f"token {GITHUB_TOKEN}"}

    limited = requests.get(url, headers=auth, timeout=10)
    assert limited.status_code == 429
    assert limited.headers["Retry-After"] == "7"
    assert limited.headers["x-ratelimit-resource"] == "core"
    assert "secondary rate limit" in limited.json()["message"]

    retrying = GithubRetry(total=2, backoff_factor=0)
    assert pygithub(github_hub, GITHUB_TOKEN, retry=retrying).get_repo("octo/app").name == "app"
    assert github_hub.calls[REPO] == 3


def test_primary_rate_limit_has_no_requests_left(github_hub: Hub) -> None:
    github_hub.add_repo("octo/app")
    github_hub.rate_limit(REPO, primary=True, retry_after=60)
    answer = requests.get(f"{github_hub.api_url}/repos/octo/app",
                          headers={"Authorization": f"token {GITHUB_TOKEN}"}, timeout=10)
    assert answer.status_code == 403
    assert answer.headers["x-ratelimit-remaining"] == "0"
    assert int(answer.headers["x-ratelimit-reset"]) > 0
    assert "Retry-After" not in answer.headers
    github_hub.rate_limit(REPO, primary=True, retry_after=60)
    with pytest.raises(RateLimitExceededException):
        pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app")
    assert pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").name == "app"


def test_delay_past_the_client_timeout_then_normal_service(github_hub: Hub) -> None:
    github_hub.add_repo("octo/app")
    github_hub.delay(REPO, seconds=120, times=1)
    with pytest.raises(requests.exceptions.Timeout):
        pygithub(github_hub, GITHUB_TOKEN, timeout=1).get_repo("octo/app")
    assert pygithub(github_hub, GITHUB_TOKEN).get_repo("octo/app").name == "app"
    assert github_hub.calls[REPO] == 2


def test_a_fault_for_an_endpoint_that_is_not_served_is_refused(github_hub: Hub) -> None:
    with pytest.raises(ValueError, match="no endpoint"):
        github_hub.fail("GET /repos/{owner}/{repo}/nothing")


def test_enterprise_base_path(make_github_hub: HubFactory) -> None:
    hub = make_github_hub(base_path="/api/v3")
    repo = hub.add_repo("octo/app")
    sha = repo.branches["main"]
    run = hub.add_workflow_run(repo, head_sha=sha, event="push",
                               artifacts=[ArtifactSpec("junit", zip_bytes({"a.xml": "<a/>"}))])
    assert hub.api_url.endswith("/api/v3")
    gh = pygithub(hub, GITHUB_TOKEN)
    gh_repo = gh.get_repo("octo/app")
    assert gh_repo.url == f"{hub.api_url}/repos/octo/app"
    artifact = next(iter(gh_repo.get_workflow_run(run.id).get_artifacts()))
    assert artifact.archive_download_url.startswith(f"{hub.api_url}/repos/")
    headers, _ = gh.requester.requestJsonAndCheck(
        "GET", artifact.archive_download_url, follow_302_redirect=False)
    assert requests.get(headers["location"], timeout=10).content == zip_bytes({"a.xml": "<a/>"})
    posted = gh_repo.create_check_run(name="completion-claim", head_sha=sha,
                                      conclusion="success", output={"title": "t",
                                                                    "summary": "s"})
    assert posted.url.startswith(hub.api_url)

    outside = requests.get(f"{hub.web_url}/repos/octo/app",
                           headers={"Authorization": f"token {GITHUB_TOKEN}"}, timeout=10)
    assert outside.status_code == 404
    assert len(hub.take_violations()) == 1


def _key_pair() -> tuple[str, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


def test_a_github_app_installation_token_posts_as_the_app(github_hub: Hub) -> None:
    private, public = _key_pair()
    the_app = github_hub.add_app("claim-gate", public_key_pem=public)
    repo = github_hub.add_repo("octo/app")
    installation = github_hub.add_installation(the_app, repo.owner)
    app_auth = Auth.AppAuth(the_app.id, private)

    integration = GithubIntegration(auth=app_auth, base_url=github_hub.api_url)
    assert integration.get_repo_installation("octo", "app").id == installation.id
    gh = Github(base_url=github_hub.api_url, auth=app_auth.get_installation_auth(installation.id),
                retry=None, seconds_between_requests=0, seconds_between_writes=0)
    posted = gh.get_repo("octo/app").create_check_run(
        name="completion-claim", head_sha=repo.branches["main"], conclusion="success",
        output={"title": "Verified", "summary": "ok"})
    assert posted.app.slug == "claim-gate"
    assert [r.app.id for r in github_hub.check_runs(name="completion-claim")] == [the_app.id]
    assert github_hub.calls["POST /app/installations/{installation_id}/access_tokens"] == 1


def test_a_jwt_signed_with_another_key_is_refused(github_hub: Hub) -> None:
    _, public = _key_pair()
    wrong_private, _ = _key_pair()
    the_app = github_hub.add_app("claim-gate", public_key_pem=public)
    installation = github_hub.add_installation(the_app, github_hub.add_user("octo"))
    now = int(time.time())
    forged = jwt.encode({"iss": str(the_app.id), "iat": now - 30, "exp": now + 300},
                        wrong_private, algorithm="RS256")
    answer = requests.post(
        f"{github_hub.api_url}/app/installations/{installation.id}/access_tokens",
        headers={"Authorization": f"Bearer {forged}"}, timeout=10)
    assert answer.status_code == 401
    assert github_hub.tokens.keys() == {GITHUB_TOKEN}
