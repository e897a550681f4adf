"""The compiled schema check asks an array's items as one column (gate/claim/schema_check.py
`_Compiler.column`: a claim's mutations and evidence records, issue 23). Its fast answer is
only ever yes, so it is held here to the value-by-value check on columns drawn from each
definition (most valid, some missing at a limit), and on values of types json.loads never
makes (a str or dict subclass, True for 1), which the fast path leaves to the long way."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.claim.schema import claim_schema
from gate.claim.schema_check import _Compiler
from tests.property.test_schema_check import from_schema

ROOT = claim_schema()
NAMES = ["mutation", "evidence", "verifier", "id", "timestamp", "check_type", "unmet", "task"]


class Text(str):
    pass


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.data())
def test_a_column_answers_as_its_values_one_by_one(name: str, data: st.DataObject) -> None:
    schema = ROOT["$defs"][name]
    values = data.draw(st.lists(from_schema(schema), max_size=4))
    compiler = _Compiler(ROOT)
    assert compiler.column(schema)(values) == all(map(compiler.compile(schema), values))


@pytest.mark.parametrize(("name", "values", "holds"), [
    ("id", [Text("m1"), "m2"], True),
    ("id", ["m1", ""], False),
    ("id", ["m1", "a" * 257], False),
    ("timestamp", ["2026-08-27T18:04:02Z", "2026-08-27T18:04:02"], False),
    ("mutation", [OrderedDict(id="m1", kind="k", at="2026-08-27T18:04:02Z")], True),
    ("mutation", [{"id": "m1", "kind": "k", "at": "2026-08-27T18:04:02Z", "x-a": 1}], True),
    ("mutation", [{"id": "m1", "kind": "k", "at": "2026-08-27T18:04:02Z", "other": 1}], False),
    ("mutation", [{"id": "m1", "kind": "k"}], False),
    ("evidence", [{"check_type": "test_run", "at": "2026-08-27T18:04:02Z",
                   "verifier": {"id": "v", "kind": "independent"}, "covers": [Text("m1")]}],
     True),
    ("evidence", [{"check_type": "test_run", "at": "2026-08-27T18:04:02Z",
                   "verifier": {"id": "v", "kind": True}}], False),
])
def test_values_json_never_makes_are_asked_the_long_way(name: str, values: list[Any],
                                                        holds: bool) -> None:
    schema = ROOT["$defs"][name]
    compiler = _Compiler(ROOT)
    assert all(map(compiler.compile(schema), values)) is holds
    assert compiler.column(schema)(values) is holds
