"""Reporters: pure functions from a verdict to text, JSON or an API payload."""
