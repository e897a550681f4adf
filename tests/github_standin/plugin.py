"""pytest fixtures of the GitHub stand-in (registered from tests/conftest.py).

- `github_api` (session): GitHub's description, loaded once.
- `make_github_hub` (function): a factory `make_github_hub(base_path="", clock=None)` of started
  hubs; each is stopped at teardown and the test fails if any hub recorded a violation.
- `github_hub`: one started hub at the root path, with the token `GITHUB_TOKEN` registered
  as a workflow's token (GitHub Actions app, a workflow's default permissions).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

import pytest

from tests.github_standin.hub import Hub
from tests.github_standin.openapi import ApiDescription

GITHUB_TOKEN = "ghs_workflow_token"

HubFactory = Callable[..., Hub]


@pytest.fixture(scope="session")
def github_api() -> ApiDescription:
    return ApiDescription.load()


@pytest.fixture
def make_github_hub(github_api: ApiDescription) -> Iterator[HubFactory]:
    hubs: list[Hub] = []

    def make(base_path: str = "", clock: Callable[[], datetime] | None = None) -> Hub:
        hub = Hub(github_api, base_path=base_path, clock=clock).start()
        hub.add_token(GITHUB_TOKEN)
        hubs.append(hub)
        return hub

    yield make
    for hub in hubs:
        hub.stop()
    found = [str(v) for hub in hubs for v in hub.violations]
    assert not found, "GitHub stand-in saw departures from GitHub's API description:\n" + (
        "\n".join(found))


@pytest.fixture
def github_hub(make_github_hub: HubFactory) -> Hub:
    return make_github_hub()
