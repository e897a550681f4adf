"""Clients pointed at a stand-in, with the pacing PyGithub would otherwise add switched off."""

from __future__ import annotations

from typing import Any

from github import Auth, Github

from tests.github_standin.hub import Hub


def pygithub(hub: Hub, token: str, *, retry: Any = None, timeout: int = 15,
             per_page: int = 100) -> Github:
    """PyGithub 2.x against the hub: no pauses between requests or writes, `retry` as given
    (None: no retries, so a test sees each fault it injects)."""
    return Github(
        base_url=hub.api_url,
        auth=Auth.Token(token),
        retry=retry,
        timeout=timeout,
        per_page=per_page,
        seconds_between_requests=0,
        seconds_between_writes=0,
    )
