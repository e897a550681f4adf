"""Argument types the command's subcommands share: each refuses bad text in argparse's way
(exit 3 with the reason), so every option that takes a commit or a count says the same."""

from __future__ import annotations

import argparse
from datetime import datetime

from gate.claim.commit import parse_commit_sha
from gate.claim.timefmt import TimestampError, parse_rfc3339


def commit_sha(text: str) -> str:
    """A full commit object name (40 or 64 hex digits), lower-cased."""
    try:
        return parse_commit_sha(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def positive_int(text: str) -> int:
    """A whole number above zero (sizes, seconds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be positive")
    return value


def timestamp(text: str) -> datetime:
    """An RFC 3339 date-time with a zone (a naive time is refused)."""
    try:
        return parse_rfc3339(text)
    except TimestampError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
