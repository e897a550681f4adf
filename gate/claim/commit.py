"""One commit-id type and one validator for every face and collector.

A commit is named by its full object name: 40 hexadecimal digits (SHA-1) or 64 (a SHA-256
repository), any case, kept in lower case. Abbreviated ids are refused, not prefix-matched:
seven digits can name two commits, and an agent can make the second one.
"""

from __future__ import annotations

import re
from typing import NewType

CommitSha = NewType("CommitSha", str)

COMMIT_SHA_FORMAT = "a full commit id: 40 hexadecimal digits (64 in a SHA-256 repository)"

_OBJECT_NAME = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def normalise_sha(text: object) -> CommitSha | None:
    """A full commit id in lower case, else None (for values a producer wrote)."""
    if not isinstance(text, str):
        return None
    lowered = text.strip().lower()
    return CommitSha(lowered) if _OBJECT_NAME.match(lowered) else None


def parse_commit_sha(text: str) -> CommitSha:
    """An operator's or GitHub's commit id; ValueError names the expected format."""
    sha = normalise_sha(text)
    if sha is None:
        raise ValueError(f"{text!r} is not {COMMIT_SHA_FORMAT}")
    return sha
