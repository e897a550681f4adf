"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ("tests.github_standin.plugin", "pytester")


@pytest.fixture(autouse=True)
def _inner_sessions_without_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest sessions (pytester, subprocesses) run outside our ini file: where
    pytest-benchmark is installed it warns under xdist, and warnings are errors here."""
    options = os.environ.get("PYTEST_ADDOPTS", "")
    if "no:benchmark" not in options:
        monkeypatch.setenv("PYTEST_ADDOPTS", f"{options} -p no:benchmark".strip())


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytester clears PYTEST_ADDOPTS when it starts; set it again for its inner sessions."""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:benchmark")
    return pytester
