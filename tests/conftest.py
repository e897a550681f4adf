"""Fixtures shared by the whole suite."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator

import pytest

from tests.inner_sessions import INNER_PYTEST_OPTIONS, with_inner_options

pytest_plugins = ("tests.github_standin.plugin", "tests.junit_tools", "pytester")


@pytest.fixture(autouse=True)
def _inner_sessions_without_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest sessions (pytester, subprocesses) run outside our ini file, without the
    suite's plugins they never use (`tests/inner_sessions.py` says why)."""
    monkeypatch.setenv("PYTEST_ADDOPTS", with_inner_options(os.environ.get("PYTEST_ADDOPTS", "")))


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester clears PYTEST_ADDOPTS when it starts; set it again for its inner sessions."""
    monkeypatch.setenv("PYTEST_ADDOPTS", INNER_PYTEST_OPTIONS)
    return pytester


class UnarrangedNetworkError(OSError):
    """A test reached for a network address it did not start a server on. An OSError, so the
    code under test closes its socket as on any network failure; the fixture then fails the
    test at teardown, however the code handled it."""


def _loopback(address: object) -> bool:
    if not isinstance(address, tuple):
        return True  # AF_UNIX paths and the like stay on this machine
    host = str(address[0])
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


@pytest.fixture
def network_attempts() -> list[str]:
    """Connections beyond loopback that the current test attempted (refused)."""
    return []


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch, network_attempts: list[str]) -> Iterator[None]:
    """Offline tests, enforced: any connection beyond loopback fails the test that made it."""
    original = socket.socket.connect

    def connect(self: socket.socket, address: object) -> None:
        if not _loopback(address):
            network_attempts.append(repr(address))
            message = f"test tried to reach {address!r}; only loopback is allowed"
            raise UnarrangedNetworkError(message)
        original(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield
    assert not network_attempts, f"the test tried to reach the network: {network_attempts}"
