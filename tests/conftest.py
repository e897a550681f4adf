"""Fixtures shared by the whole suite."""

pytest_plugins = ("tests.github_standin.plugin", "pytester")
