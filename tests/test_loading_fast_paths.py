"""The per-item fast paths of loading a claim (issue 23) answer as the long ways did: the
duplicate-key hook, the nesting walk (a level at a time), the plain-UTC timestamp read in C,
the `x-` and enum look-ups of the codec, each timestamp text read once, the model made
without the frozen __init__, and the semantic check over all ids at once. Each is held
against the long way or its limit."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, fields
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.codec import claim_times, extensions_of, parse_claim, parse_evidence, read_times
from gate.claim.errors import InvalidInput
from gate.claim.jsondoc import MAX_DEPTH, _parse_long_way, parse_json
from gate.claim.loader import _semantic_problems, load_claim
from gate.claim.model import CheckType, Claim, Mutation, Task, VerifierKind
from gate.claim.timefmt import TimestampError, parse_rfc3339
from tests.test_claim_loading import seed_with, write

PAIR = "\\ud83d\\ude00"  # a surrogate pair escape: the walk then looks at every string too


@pytest.mark.parametrize("escaped", [False, True])
@pytest.mark.parametrize("leaf", ["", "0", '"s"', "{}"])
@pytest.mark.parametrize("refused", [False, True])
def test_nesting_is_refused_from_the_level_past_the_limit_escape_or_not(
    tmp_path: Path, refused: bool, leaf: str, escaped: bool,
) -> None:
    """The root object is level 1, so its member holds MAX_DEPTH - 1 empty arrays at most; a
    scalar or object in the deepest array is a level as a container is, and the limit is the
    same whether or not a \\u escape elsewhere makes the walk look at the strings (it moved
    with one before)."""
    arrays = MAX_DEPTH - (2 if leaf else 1) + refused
    deep = "[" * arrays + leaf + "]" * arrays
    text = json.dumps(seed_with(**{"x-deep": 0, "x-text": "t"}))
    text = text.replace('"x-deep": 0', f'"x-deep": {deep}')
    if escaped:
        text = text.replace('"x-text": "t"', f'"x-text": "{PAIR}"')
    path = write(tmp_path, text)
    if not refused:
        assert load_claim(path).claim.extensions["x-deep"]
        return
    with pytest.raises(InvalidInput, match=f"nested deeper than {MAX_DEPTH} levels"):
        load_claim(path)


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": 2, "a": 3}', '{"k": {"x": 1, "x": 1}}', '[{"a": 1}, {"b": 1, "b": 2}]',
])
def test_a_repeated_key_is_named_wherever_it_is(text: str) -> None:
    with pytest.raises(InvalidInput, match=r"the key '(a|x|b)' appears twice"):
        parse_json(text, "doc.json", "claim")


def test_objects_without_repeats_keep_every_key_in_order() -> None:
    assert list(parse_json('{"b": 1, "a": {"d": 2, "c": 3}}', "d", "claim")["a"]) == ["d", "c"]


@pytest.mark.parametrize("moment", [
    "2026-08-27T18:04:02", "0001-01-01T00:00:00", "9999-12-31T23:59:59", "2024-02-29T12:00:00",
])
def test_a_plain_utc_timestamp_reads_as_its_long_spelling(moment: str) -> None:
    fast, long = parse_rfc3339(moment + "Z"), parse_rfc3339(moment + "+00:00")
    assert fast == long
    assert fast.tzinfo is long.tzinfo
    assert fast.utcoffset() == long.utcoffset()


@pytest.mark.parametrize("moment", [
    "2026-02-30T18:04:02", "2026-13-01T00:00:00", "2026-08-27T24:00:00",
    "2026-08-27T18:60:00", "2026-08-27T18:04:60",
])
def test_a_plain_utc_timestamp_of_no_such_moment_is_refused_as_the_long_spelling_is(
    moment: str,
) -> None:
    with pytest.raises(TimestampError) as fast:
        parse_rfc3339(moment + "Z")
    with pytest.raises(TimestampError) as long:
        parse_rfc3339(moment + "+00:00")
    assert str(fast.value) == str(long.value).replace("+00:00", "Z")


def test_extensions_are_the_x_keys_in_order_and_none_is_an_empty_map() -> None:
    assert extensions_of({"a": 1, "x-b": 2, "xc": 3, "x-": 4}) == {"x-b": 2, "x-": 4}
    assert list(extensions_of({"x-z": 1, "x-a": 2})) == ["x-z", "x-a"]
    assert extensions_of({"id": "m1", "kind": "k"}) == {}


def test_the_codec_looks_up_check_types_and_kinds_and_still_refuses_others() -> None:
    record = {"check_type": "test_run", "at": "2026-08-27T18:04:02Z",
              "verifier": {"id": "v", "kind": "independent"}}
    evidence = parse_evidence(record)
    assert evidence.check_type is CheckType.TEST_RUN
    assert evidence.verifier.kind is VerifierKind.INDEPENDENT
    for field, value in (("check_type", "nope"), ("check_type", ["test_run"])):
        with pytest.raises(ValueError, match="is not a valid CheckType"):
            parse_evidence({**record, field: value})
    with pytest.raises(ValueError, match="is not a valid VerifierKind"):
        parse_evidence({**record, "verifier": {"id": "v", "kind": "trusted"}})


def _long_way_claim(document: dict[str, Any]) -> Claim:
    """The model through each class's own __init__ (parse_evidence still builds that way)."""
    return Claim(
        spec_version=document["spec_version"],
        task=Task(id=document["task"]["id"], description=document["task"]["description"],
                  extensions=extensions_of(document["task"])),
        claimed_outcome=document["claimed_outcome"],
        mutations=tuple(
            Mutation(id=item["id"], kind=item["kind"], at=parse_rfc3339(item["at"]),
                     target=item.get("target"), extensions=extensions_of(item))
            for item in document["mutations"]),
        evidence=tuple(parse_evidence(item) for item in document.get("evidence", [])),
        policy=parse_claim(document).policy,
        extensions=extensions_of(document),
    )


def _varied_claim() -> dict[str, Any]:
    """Mutations and evidence with and without targets, covers, observed values and `x-`
    fields (on some items only, on the verifier too), times shared and not."""
    document = seed_with()
    mutation, record = document["mutations"][0], document["evidence"][0]
    document["mutations"] = [
        mutation,
        {"id": "m2", "kind": "deploy", "at": "2026-08-27T19:04:02+02:00", "x-why": [1]},
        {"id": "m3", "kind": "commit", "at": mutation["at"]},
    ]
    document["evidence"] = [
        record,
        {"check_type": "test_run", "at": record["at"], "covers": ["m2", "m3"],
         "verifier": {"id": "ci", "kind": "self_attested", "x-run": 7}, "x-note": None},
        {"check_type": "endpoint_health", "at": "2026-08-27T18:04:09.5Z",
         "observed_value": None, "verifier": {"id": "probe", "kind": "independent"}},
    ]
    return document


@pytest.mark.parametrize("document", [seed_with(), _varied_claim()], ids=["seed", "varied"])
def test_the_model_is_made_as_each_class_makes_it(document: dict[str, Any]) -> None:
    """Field for field and in field order, as __init__ sets them: equal, the same instance
    dict (a field added to the model and not to the fast path fails here), still frozen."""
    fast, long = parse_claim(document), _long_way_claim(document)
    assert fast == long
    pairs: list[tuple[Any, Any]] = [
        *zip(fast.mutations, long.mutations, strict=True),
        *zip(fast.evidence, long.evidence, strict=True),
        *((a.verifier, b.verifier) for a, b in zip(fast.evidence, long.evidence, strict=True)),
    ]
    for made, built in pairs:
        assert type(made) is type(built)
        assert list(vars(made).items()) == list(vars(built).items())
        assert list(vars(made)) == [f.name for f in fields(made)]
        assert [type(v) for v in vars(made).values()] == [type(v) for v in vars(built).values()]
    with pytest.raises(FrozenInstanceError):
        fast.mutations[0].id = "m9"  # type: ignore[misc]


def test_only_the_items_with_x_fields_hold_them() -> None:
    claim = parse_claim(_varied_claim())
    assert [m.extensions for m in claim.mutations] == [{}, {"x-why": [1]}, {}]
    assert [e.extensions for e in claim.evidence] == [{}, {"x-note": None}, {}]
    assert [e.verifier.extensions for e in claim.evidence] == [{}, {"x-run": 7}, {}]
    assert [e.has_observed_value for e in claim.evidence] == [True, False, True]


def test_a_timestamp_read_once_for_many_items_is_the_same_moment() -> None:
    document = _varied_claim()
    texts = claim_times(document)
    times = read_times(texts)
    assert list(times) == list(dict.fromkeys(texts))
    for text in texts:
        assert times[text] == parse_rfc3339(text)
        assert times[text].utcoffset() == parse_rfc3339(text).utcoffset()
    with pytest.raises(TimestampError, match="no time zone"):
        read_times(["2026-08-27T18:04:02Z", "2026-08-27T18:04:02"])


def _broken(change: str) -> dict[str, Any]:
    document = _varied_claim()
    if change == "twice":
        document["mutations"][2]["id"] = "m1"
    elif change == "covers":
        document["evidence"][1]["covers"] = ["m2", "m7"]
    elif change == "time":
        document["mutations"][1]["at"] = "2026-02-30T18:04:02Z"
    elif change == "decided":
        document["verdict"]["decided_at"] = "2026-08-27T25:04:10Z"
    elif change == "all":
        document["mutations"][2]["id"] = "m1"
        document["evidence"][1]["covers"] = ["m7"]
        document["evidence"][2]["at"] = "2026-13-01T00:00:00Z"
    return document


@pytest.mark.parametrize("change", ["none", "twice", "covers", "time", "decided", "all"])
def test_the_semantic_check_answers_as_the_long_way(tmp_path: Path, change: str) -> None:
    """The check in C over all ids refuses exactly what the item-by-item walk finds, and
    names every place it names, in its order."""
    document = _broken(change)
    problems = _semantic_problems(document)
    path = write(tmp_path, json.dumps(document, indent=1))
    if not problems:
        loaded = load_claim(path)
        assert loaded.claim == _long_way_claim(document)
        return
    with pytest.raises(InvalidInput) as caught:
        load_claim(path)
    told = [caught.value.problem, *caught.value.more]
    assert len(told) == len(problems)
    for line, (where, message) in zip(told, problems, strict=True):
        assert f"{where}: {message}" in line


SPACES = st.sampled_from(["", "", " ", "\t", "\n", "\r", "  "])
KEYS = st.sampled_from(["a", "b", "a:", ":", '"', '":', "x-a", ""])
SCALAR_TEXTS = st.sampled_from(['1', 'true', 'null', '":"', '"\\":"', '": x"', '"a"', '" :"'])


@st.composite
def object_texts(draw: st.DrawFn, depth: int = 2) -> str:
    """An object's text with keys that may repeat, white space around each colon or none,
    and strings that hold `":` themselves (escaped quotes, a leading colon)."""
    members = []
    for key in draw(st.lists(KEYS, max_size=4)):
        value = draw(object_texts(depth - 1)) if depth and draw(st.booleans()) \
            else draw(SCALAR_TEXTS)
        members.append(f"{json.dumps(key)}{draw(SPACES)}:{draw(SPACES)}{value}")
    return "{" + ",".join(members) + "}"


def _outcome(parse: Any, text: str) -> tuple[str, Any]:
    try:
        return "parsed", parse(text, "doc.json", "claim")
    except InvalidInput as exc:
        return "refused", str(exc)


@settings(max_examples=400, deadline=None)
@given(st.lists(object_texts(), min_size=1, max_size=3).map(lambda texts: "[" + ",".join(texts)
                                                               + "]"))
def test_a_key_lost_to_a_repeat_is_found_as_the_long_way_finds_it(text: str) -> None:
    """Parsed without the pairs hook and cleared by counting `":`, or parsed again the long
    way: the same value, or the same refusal with the same words, for every text."""
    assert _outcome(parse_json, text) == _outcome(_parse_long_way, text)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2, "b" : 3}',  # a spaced key beside the repeat: the count cannot clear it
    '{"a": 1, "a": 2, "b"\n: 3}', '{"a": 1, "a": 2, "b"\t:3, "c"\r:4}',
    '{"a": 1, "a": 2, "s": "\\":"}',  # a `":` inside a string: counted, never enough
    '{"a": {"b": 1, "b": 1}, "c": [{"d": 2}, {"e": 3, "e": 3}]}',
])
def test_a_repeated_key_is_refused_however_the_text_is_spaced(text: str) -> None:
    with pytest.raises(InvalidInput, match="appears twice in one object"):
        parse_json(text, "doc.json", "claim")


def test_a_text_the_count_clears_is_parsed_without_the_long_way() -> None:
    text = json.dumps({"a": [{"b": "18:04:02", "c": {"d": None}}], "e": "x: y"})
    with patch("gate.claim.jsondoc._parse_long_way", side_effect=AssertionError):
        assert parse_json(text, "doc.json", "claim") == json.loads(text)
