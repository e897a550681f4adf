"""Posting as a dedicated GitHub App: `app-id` + `app-private-key` → an installation token.

Every workflow's `GITHUB_TOKEN` posts check runs as the same "GitHub Actions" app, so a
required check pinned to GitHub Actions can be satisfied by any workflow the PR adds. A
check posted with the gate's own App's installation token can be pinned to that App, and
no workflow without the App's private key can post under it.
"""

from __future__ import annotations

from github import Auth, GithubException, GithubIntegration, GithubRetry
from jwt.exceptions import PyJWTError
from requests.exceptions import RequestException

from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.evidence.github.api import RetryPolicy


def installation_token(
    api_url: str, app_id: str, private_key: str, repository: str, retry: RetryPolicy
) -> str:
    """A token of the App's installation on `repository` (JWT signed with the App's key)."""
    if "PRIVATE KEY" not in private_key:
        raise InvalidInput(
            "action inputs", "app-private-key", "is not a PEM private key",
            "pass the App's private key (the .pem file's content) from a secret",
        )
    owner, _, name = repository.partition("/")
    integration = GithubIntegration(
        auth=Auth.AppAuth(app_id, private_key),
        base_url=api_url.rstrip("/"),
        timeout=retry.timeout_s,
        retry=GithubRetry(total=retry.total, backoff_factor=retry.backoff_factor,
                          status_forcelist=[500, 502, 503, 504]),
        seconds_between_requests=None,
        seconds_between_writes=None,
    )
    try:
        installation = integration.get_repo_installation(owner, name)
        return integration.get_access_token(installation.id).token
    except GithubException as exc:
        message = exc.data.get("message") if isinstance(exc.data, dict) else exc.data
        raise CouldNotDecide(
            f"GitHub App {app_id} could not get an installation token for {repository}:"
            f" {exc.status} {message} (is the App installed on the repository, and is the"
            " key the App's?)"
        ) from None
    except PyJWTError as exc:
        raise InvalidInput(
            "action inputs", "app-private-key", f"the key cannot sign a token: {exc}",
            "pass the App's private key (the .pem file's content) from a secret",
        ) from None
    except (RequestException, ValueError) as exc:
        raise CouldNotDecide(f"GitHub App {app_id}: no installation token: {exc}") from None
