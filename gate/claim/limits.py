"""The default caps on what the gate reads, in one light module: the command line offers
them as defaults before it imports any reader (issue 23)."""

from __future__ import annotations

#: A claim (and an operator's evidence file) larger than this is refused unread.
DEFAULT_MAX_CLAIM_BYTES = 1 << 20
#: A JUnit file larger than this is refused unread.
DEFAULT_MAX_JUNIT_BYTES = 1 << 30
