"""Small pure pieces of the probe room: JSON pointers and secret redaction."""

from __future__ import annotations

import pytest

from gate.claim.model import JSON
from gate.evidence.probe.observe import REDACTED, Secrets, resolve_pointer

DOCUMENT = {"a/b": {"m~n": [10, 20]}, "list": ["x", "y"], "": 1}


@pytest.mark.parametrize(
    ("pointer", "found", "value"),
    [
        ("", True, DOCUMENT),
        ("/a~1b/m~0n/1", True, 20),
        ("/list/0", True, "x"),
        ("/list/01", False, None),
        ("/list/2", False, None),
        ("/list/-", False, None),
        ("/", True, 1),
        ("/missing", False, None),
        ("/list/0/deeper", False, None),
    ],
)
def test_resolve_pointer_follows_rfc_6901(pointer: str, found: bool, value: JSON) -> None:
    assert resolve_pointer(DOCUMENT, pointer) == (found, value)


def test_redaction_reaches_keys_values_and_nesting() -> None:
    secrets = Secrets(("Bearer tok-123", "tok-123"))
    redacted = secrets.redact({"tok-123": ["a Bearer tok-123 b", {"k": "xtok-123x"}], "n": 5})
    assert redacted == {REDACTED: [f"a {REDACTED} b", {"k": f"x{REDACTED}x"}], "n": 5}
