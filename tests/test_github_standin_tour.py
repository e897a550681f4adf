"""One scenario that calls every endpoint the stand-in serves, each answer validated."""

from __future__ import annotations

from datetime import UTC, datetime

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from github import Auth, GithubIntegration

from tests.github_standin import ArtifactSpec, DeploymentStatusSpec, Hub, pygithub, zip_bytes
from tests.github_standin.plugin import GITHUB_TOKEN
from tests.github_standin.routes import ROUTES


def test_every_endpoint_answers_within_the_description(github_hub: Hub) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    the_app = github_hub.add_app("claim-gate", public_key_pem=public)
    repo = github_hub.add_repo("octo/app", files={"docs/a.md": "a"})
    installation = github_hub.add_installation(the_app, repo.owner)
    head = github_hub.add_commit(repo, {".claim.json": "{}"}, branch="fix",
                                 pushed_at=datetime(2026, 3, 1, tzinfo=UTC))
    pull = github_hub.add_pull(repo, head="fix", app=github_hub.add_app("an-agent"))
    run = github_hub.add_workflow_run(repo, head_sha=head.sha, pull_requests=[pull],
                                      artifacts=[ArtifactSpec("junit", zip_bytes({"j": "x"}))])
    github_hub.rerun(run)
    deployment = github_hub.add_deployment(repo, sha=head.sha,
                                           statuses=[DeploymentStatusSpec("success")])
    comment = github_hub.add_comment(repo, pull.number, "hello",
                                     user=github_hub.actions_app.bot)
    artifact = run.artifacts[0]
    gh = pygithub(github_hub, GITHUB_TOKEN)

    def get(path: str, **parameters: str | int) -> object:
        _, data = gh.requester.requestJsonAndCheck(
            "GET", f"/repos/octo/app{path}", parameters=parameters or None,
            follow_302_redirect=False)
        return data

    get("")
    get("/activity", ref="fix")
    get("/pulls", head="octo:fix")
    get(f"/pulls/{pull.number}")
    get(f"/pulls/{pull.number}/files")
    get(f"/issues/{pull.number}")
    github_hub.add_review(pull, repo.owner, "/claim-gate accept looks right")
    get(f"/pulls/{pull.number}/reviews")
    get(f"/collaborators/{repo.owner.login}/permission")
    get(f"/commits/{head.sha}/pulls")
    get(f"/compare/{pull.base_sha}...{head.sha}", per_page=1)
    github_hub.retarget_pull(pull, repo.default_branch)
    github_hub.set_pull_state(pull, "closed")
    github_hub.set_pull_state(pull, "open")
    get(f"/issues/{pull.number}/timeline")
    get(f"/commits/{head.sha}/check-suites")
    get(f"/commits/{head.sha}/check-runs")
    get(f"/commits/{head.sha}/statuses")
    get(f"/commits/{head.sha}/status")
    get(f"/commits/{head.sha}")
    get("/contents/.claim.json", ref="fix")
    get("/actions/runs", head_sha=head.sha)
    get("/actions/workflows/ci.yml/runs")
    get(f"/actions/runs/{run.id}")
    get(f"/actions/runs/{run.id}/attempts/1")
    get(f"/actions/runs/{run.id}/jobs")
    get(f"/actions/runs/{run.id}/attempts/1/jobs")
    get(f"/actions/runs/{run.id}/artifacts")
    get(f"/actions/artifacts/{artifact.id}")
    get(f"/actions/artifacts/{artifact.id}/zip")
    get(f"/check-suites/{run.check_suite_id}")
    get(f"/deployments/{deployment.id}")
    get("/deployments", sha=head.sha)
    get(f"/deployments/{deployment.id}/statuses")
    get(f"/issues/{pull.number}/comments")
    posted = gh.get_repo("octo/app").create_check_run(
        name="completion-claim", head_sha=head.sha, status="in_progress")
    posted.edit(conclusion="neutral", output={"title": "t", "summary": "s", "annotations": [
        {"path": ".claim.json", "start_line": 1, "end_line": 1, "annotation_level": "warning",
         "message": "m"}]})
    get(f"/check-runs/{posted.id}")
    get(f"/check-runs/{posted.id}/annotations")
    gh.get_repo("octo/app").get_commit(head.sha).create_status("pending", context="c")
    gh.requester.requestJsonAndCheck(
        "POST", f"/repos/octo/app/issues/{pull.number}/comments", input={"body": "b"})
    gh.requester.requestJsonAndCheck(
        "PATCH", f"/repos/octo/app/issues/comments/{comment.id}", input={"body": "c"})
    integration = GithubIntegration(auth=Auth.AppAuth(the_app.id, private),
                                    base_url=github_hub.api_url)
    assert integration.get_repo_installation("octo", "app").id == installation.id
    assert integration.get_access_token(installation.id).token in github_hub.tokens
    assert requests.get(github_hub.storage_url + "/blobs/none", timeout=10).status_code == 404

    assert set(github_hub.calls) == {route.endpoint for route in ROUTES}
    assert all(r.status < 400 for r in github_hub.requests), [
        (r.endpoint, r.status) for r in github_hub.requests if r.status >= 400]
