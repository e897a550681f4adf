"""The JSON reader's nesting walk (a level at a time, strings looked at only when a \\u escape
could spell a lone surrogate) refuses exactly what the plain recursive definition does, with
or without an escape elsewhere in the text. The limit is lowered to 3 so that small generated
values reach past it."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim import jsondoc
from gate.claim.errors import InvalidInput

LIMIT = 3
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                  max_size=3),
    max_leaves=12,
)


def depth(value: Any) -> int:
    """The long way: every value is a level, the root is level 1."""
    children = value.values() if isinstance(value, dict) else value
    if isinstance(value, dict | list) and children:
        return 1 + max(map(depth, children))
    return 1


@settings(max_examples=100, deadline=None)
@given(VALUES, st.booleans())
def test_the_walk_refuses_exactly_past_the_limit(value: Any, escaped: bool) -> None:
    text = json.dumps(value, ensure_ascii=False)
    if escaped:  # a surrogate pair elsewhere: the walk then looks at every string too
        text = f'[{text}, "\\ud83d\\ude00"]'
        value = [value, "\U0001f600"]
    with mock.patch.object(jsondoc, "MAX_DEPTH", LIMIT):
        if depth(value) > LIMIT:
            with pytest.raises(InvalidInput, match=f"nested deeper than {LIMIT} levels"):
                jsondoc.parse_json(text, "doc.json", "claim")
        else:
            assert jsondoc.parse_json(text, "doc.json", "claim") == value
