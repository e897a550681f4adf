"""The compiled schema check answers exactly as jsonschema on generated documents.

The documents are drawn from the shipped schema itself (every keyword it uses, with values at
and beside each limit: lengths 0/1/256/257, integers -1/0 and 1.0, true for 1, naive and
zoned timestamps, duplicate and unknown check types, `x-` and other extra keys), then, for
the invalid side, one value somewhere is replaced by an arbitrary JSON value or a near miss.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, event, find, given, settings
from hypothesis import strategies as st

from gate.claim.schema import claim_schema, conforms, validator
from gate.claim.schema_check import SchemaKeywordError, compile_schema
from tests.property.test_hostile_inputs import JSON_VALUES, replace_somewhere

ROOT = claim_schema()
REFS = (None, "#/$defs/completed", "#/$defs/evidence", "#/$defs/policy", "#/$defs/verdict")

GOOD_TIMES = ["2026-08-27T18:04:02Z", "2026-08-27t18:04:02.123456789+02:00",
              "2026-13-45T25:61:61Z"]  # the pattern's shape; the date is the loader's to check
BAD_TIMES = ["2026-08-27T18:04:02", "2026-08-27 18:04:02Z", "2026-08-27T18:04:02.1234567890Z",
             "", "\u0661\u0669\u0669\u0669-01-01T00:00:00Z"]
NEAR_MISSES = st.sampled_from([
    True, False, 0, 1, -1, 1.0, 0.5, "", "x", "test_run", "state_readback", "verified",
    "2026-08-27T18:04:02Z", [], {}, None, ["test_run", "test_run"], ["test_run", 1],
    {"test_run": 1}, {"nope": 1}, {"x-extra": 1}, "a" * 257,
])


def _sometimes_missed(good: list[Any], bad: list[Any]) -> st.SearchStrategy[Any]:
    """Mostly a good value, one time in ten a near miss: a document has dozens of leaves,
    and the drawn documents should often be valid as a whole."""
    return st.integers(0, 9).flatmap(lambda n: st.sampled_from(bad if n == 0 else good))


def _texts(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "pattern" in schema and "T" in schema["pattern"]:
        return _sometimes_missed(GOOD_TIMES, BAD_TIMES)
    if "pattern" in schema:
        return _sometimes_missed(["ok", "a_b"], ["not_ok!", ""])
    most = schema.get("maxLength", 3)
    least = schema.get("minLength", 0)
    good = sorted({least, least + 1, most})
    bad = sorted({most + 1} | ({least - 1} if least else set()))
    return _sometimes_missed(good, bad).flatmap(lambda n: st.text("ab-", min_size=n,
                                                                   max_size=n))


def _objects(schema: dict[str, Any], draw: st.DrawFn) -> dict[str, Any]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    document: dict[str, Any] = {}
    for key, sub in properties.items():
        if key in required or draw(st.booleans()):
            document[key] = draw(from_schema(sub))
    if "propertyNames" in schema:
        names = [*_resolved(schema["propertyNames"])["enum"], "", "x-a", "other"]
        for _ in range(draw(st.integers(0, 3))):
            name = draw(_sometimes_missed(names[:-3], names[-3:]))
            document[name] = draw(from_schema(schema.get("additionalProperties", {})))
    if draw(st.integers(0, 9)) == 0:
        document[draw(st.sampled_from(["x-note", "x-", "extra", "X-no"]))] = draw(JSON_VALUES)
    return document


_STRATEGIES: dict[int, st.SearchStrategy[Any]] = {}


def _resolved(schema: Any) -> Any:
    while "$ref" in schema:
        target = ROOT
        for part in schema["$ref"][2:].split("/"):
            target = target[part]
        schema = target
    return schema


@st.composite
def _drawn(draw: st.DrawFn, schema: Any) -> Any:
    if "$ref" in schema:
        return draw(from_schema(_resolved(schema)))
    if "allOf" in schema:
        return draw(from_schema({**schema["allOf"][0], "required": schema.get("required", [])}))
    if "oneOf" in schema:
        return draw(st.one_of([from_schema(sub) for sub in schema["oneOf"]]))
    if "enum" in schema or "const" in schema:
        wanted = schema.get("enum", [schema.get("const")])
        return draw(st.integers(0, 9).flatmap(
            lambda n: NEAR_MISSES if n == 0 else st.sampled_from(wanted)))
    kinds = schema.get("type")
    kind = draw(st.sampled_from(kinds)) if isinstance(kinds, list) else kinds
    if kind == "object":
        return _objects(schema, draw)
    if kind == "array":
        return draw(st.lists(from_schema(schema.get("items", {})), max_size=3))
    if kind == "string":
        return draw(_texts(schema))
    if kind == "integer":
        return draw(_sometimes_missed([0, 1, 300, 1.0], [-1, 2.5, True, "1"]))
    if kind == "null":
        return None
    return draw(JSON_VALUES)


def from_schema(schema: Any) -> st.SearchStrategy[Any]:
    """Documents near `schema`: most follow it, some miss at a limit (one per schema object,
    built once: the schema's dicts live as long as the test)."""
    return _STRATEGIES.setdefault(id(schema), _drawn(schema))


@st.composite
def _changed(draw: st.DrawFn) -> Any:
    """A drawn document with one value somewhere replaced (most are invalid)."""
    return replace_somewhere(draw, draw(from_schema(ROOT)), st.booleans(),
                             JSON_VALUES | NEAR_MISSES)


def _same_answer(document: Any) -> None:
    for ref in REFS:
        expected = validator(ref).is_valid(document)
        event(f"{ref or 'claim'}: {'valid' if expected else 'invalid'}")
        assert conforms(ref)(document) == expected, (ref, document)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(from_schema(ROOT))
def test_documents_drawn_from_the_schema(document: Any) -> None:
    _same_answer(document)


@pytest.mark.parametrize("name", ["completed", "evidence", "policy", "verdict"])
def test_documents_drawn_from_each_definition(name: str) -> None:
    """The definitions the gate checks on their own (`#/$defs/evidence` for records) and
    those a claim-shaped document rarely gets right (a verdict's `unmet`)."""

    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(from_schema(ROOT["$defs"][name]))
    def check(document: Any) -> None:
        _same_answer(document)

    check()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_changed())
def test_documents_with_one_value_replaced(document: Any) -> None:
    _same_answer(document)


def test_both_answers_are_reached() -> None:
    """The generators reach valid and invalid documents (a check that only ever says
    'invalid' would pass the properties above on invalid documents alone)."""
    check = validator()
    assert check.is_valid(find(from_schema(ROOT), check.is_valid))
    assert not check.is_valid(find(from_schema(ROOT), lambda document: not check.is_valid(
        document)))


def test_a_keyword_it_does_not_know_is_refused() -> None:
    with pytest.raises(SchemaKeywordError, match="maxItems"):
        compile_schema({"type": "array", "maxItems": 2})
    with pytest.raises(SchemaKeywordError, match="inside the schema"):
        compile_schema({"$ref": "https://example.com/other.json"})
