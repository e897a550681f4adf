"""The per-item fast paths of loading a claim (issue 23) answer as the long ways did: the
duplicate-key hook, the nesting walk (a level at a time), the plain-UTC timestamp read in C,
and the `x-` and enum look-ups of the codec. Each is held against the long way or its limit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.claim.codec import extensions_of, parse_evidence
from gate.claim.errors import InvalidInput
from gate.claim.jsondoc import MAX_DEPTH, parse_json
from gate.claim.loader import load_claim
from gate.claim.model import CheckType, VerifierKind
from gate.claim.timefmt import TimestampError, parse_rfc3339
from tests.test_claim_loading import seed_with, write

PAIR = "\\ud83d\\ude00"  # a surrogate pair escape: the walk then looks at every string too


@pytest.mark.parametrize("escaped", [False, True])
@pytest.mark.parametrize(("arrays", "refused"), [(MAX_DEPTH - 1, False), (MAX_DEPTH, True)])
def test_nesting_is_refused_from_the_level_past_the_limit(
    tmp_path: Path, arrays: int, refused: bool, escaped: bool,
) -> None:
    """The root object is level 1, so its member holds MAX_DEPTH - 1 arrays at most."""
    deep = "[" * arrays + "]" * arrays
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


@pytest.mark.parametrize("escaped", [False, True])
@pytest.mark.parametrize("leaf", ["0", '"s"', "{}"])
@pytest.mark.parametrize(("arrays", "refused"), [(MAX_DEPTH - 2, False), (MAX_DEPTH - 1, True)])
def test_what_the_deepest_array_holds_is_a_level_escape_or_not(
    tmp_path: Path, arrays: int, refused: bool, leaf: str, escaped: bool,
) -> None:
    """A scalar is a level as a container is: the limit is the same whether or not a \\u
    escape elsewhere makes the walk look at the strings (it moved with one before)."""
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
