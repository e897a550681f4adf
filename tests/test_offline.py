"""The suite's own guard: a test cannot quietly reach the network."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import UnarrangedNetworkError


def test_a_connection_beyond_loopback_is_refused_and_recorded(
    network_attempts: list[str],
) -> None:
    with pytest.raises(UnarrangedNetworkError, match="only loopback"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)
    assert network_attempts == ["('192.0.2.1', 443)"]
    network_attempts.clear()  # arranged here; any other test with an attempt fails


def test_loopback_stays_allowed() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.create_connection(server.getsockname(), timeout=1):
            pass
