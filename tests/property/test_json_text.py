"""The record writer spells every value as `json.dumps(value, indent=2, ensure_ascii=False)`
does, byte for byte (gate/report/json_text.py writes containers of scalars in one C call per
kind and depth, and splits them apart again on separators the encoder never writes inside a
string: drawn strings hold NUL, brackets, commas and new lines to try it)."""

from __future__ import annotations

import json
from enum import IntEnum, StrEnum
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.report.json_text import constant, indented_json


class Colour(StrEnum):
    RED = "red"


class Size(IntEnum):
    ONE = 1


TRICKY = st.sampled_from(["", "\x00", ",\x00{", "},\x00{", "],\x00[", "]", "}", "{", "[",
                          ",\n  {", "\n", '"', "\\", "\u2028", "\ud800", "é", "🚀", "NaN"])
TEXT = st.one_of(st.text(max_size=6), TRICKY,
                 st.lists(TRICKY, max_size=4).map("".join))
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-2**70, 2**70),
    st.floats(allow_nan=True, allow_infinity=True), TEXT,
    st.sampled_from([Colour.RED, Size.ONE, 1.0, -0.0, 1e16, 1e-7]),
)
KEYS = st.one_of(TEXT, st.sampled_from([1, 2.5, True, None, Colour.RED]))


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(TEXT, children, max_size=5),
        st.dictionaries(KEYS, children, max_size=3),
    )


VALUES = st.recursive(SCALARS, containers, max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_text_is_json_dumps_indented_by_two(value: Any) -> None:
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.dictionaries(TEXT, SCALARS, min_size=1, max_size=4),
                          st.lists(SCALARS, min_size=1, max_size=4)), min_size=2, max_size=30))
def test_many_containers_of_scalars_at_one_depth_come_apart_in_their_places(
    value: list[Any],
) -> None:
    """Where the batching could go wrong: many of one kind and depth, split apart again."""
    assert indented_json({"a": value, "b": [value]}) == json.dumps(
        {"a": value, "b": [value]}, indent=2, ensure_ascii=False)


def test_a_record_shape_with_empty_and_nested_containers() -> None:
    value = {"mutations": [{"id": "m1", "at": "t"}, {"id": "m2"}], "empty": {}, "none": [],
             "evidence": [{"covers": ["m1"], "verifier": {"id": "v", "kind": "k"},
                           "x-claim-gate": {"counts": True, "covers": [], "problem": None}}],
             "deep": [[[{"a": [1, [2, {"b": {}}]]}]]]}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_an_object_met_again_is_written_as_json_dumps_writes_it() -> None:
    """Columns are written a depth at a time: an object inside itself (a cycle) is refused as
    json.dumps refuses it, and one shared at two depths is written at each."""
    shared: dict[str, Any] = {"x": [1, {"y": None}]}
    value = [shared, {"k": shared, "l": [shared, []]}, shared]
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)
    looped: dict[str, Any] = {"a": [1]}
    looped["b"] = [looped]
    with pytest.raises(ValueError, match="Circular reference"):
        indented_json(looped)
    twice: list[Any] = []
    twice += [twice, twice]
    with pytest.raises(ValueError, match="Circular reference"):
        indented_json(twice)


#: Values a column of one shape's objects may repeat: equal but written apart (1, True, 1.0;
#: 0.0, -0.0), a StrEnum beside its string, a `%` the template must keep, one shared object.
_SHARED_LIST: list[Any] = ["m0", {"a": 1}]
REPEATED = st.sampled_from([1, True, 1.0, 0.0, -0.0, None, "red", Colour.RED, Size.ONE, "%s",
                            "%%", "", _SHARED_LIST, ["m0", {"a": 1}], (), []])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.fixed_dictionaries({"k": REPEATED, "%s": REPEATED, "n": st.just(2)}),
                min_size=2, max_size=6),
       st.integers(1, 40))
def test_a_column_of_one_value_is_written_once_as_each_of_its_values_would_be(
    rows: list[dict[str, Any]], copies: int,
) -> None:
    """A key whose values all write the same text goes into the template once; equal values
    written apart (1, True, 1.0; 0.0, -0.0) and a shared object at two depths never merge."""
    value = {"rows": rows * copies, "nested": [{"r": row} for row in rows]}
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_a_column_whose_values_write_alike_is_recognised_and_no_other() -> None:
    shared = {"a": [1]}
    alike: list[list[Any]] = [["red", "red", Colour.RED], [shared, shared], [True, True],
                              [(), ()]]
    apart: list[list[Any]] = [[1, True], [1, 1.0], [0.0, -0.0], [{"a": [1]}, {"a": [1]}],
                              ["red"], [Colour.RED, "red"]]  # a StrEnum first: not a str
    assert all(map(constant, alike))
    assert not any(map(constant, apart))
