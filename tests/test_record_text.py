"""The completed record written from the verdict in columns (gate/report/record_text.py) is
the long way's text byte for byte: `indented_json(completed_record(...))`, itself held to
`json.dumps(indent=2)`. Held on decided claims (the spec's example, the mixed claim that
reaches every shape of the record, a claim of many mutations) and on generated items of every
shape: extensions beside and in place of dumped keys, a claimed kind the gate overrules,
problems, items of several shapes side by side, values the writer sends the long way."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.facts import EvidenceItem, Origin
from gate.claim.loader import LoadedClaim, load_claim
from gate.claim.model import CheckType, Evidence, Verifier, VerifierKind
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from gate.engine.results import Assessment, Problem, Verdict
from gate.report.json_text import indented_json
from gate.report.record import completed_record
from gate.report.record_text import _alike, record_text

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 8, 27, 18, 5, tzinfo=UTC)
TRUSTED = default_policy().trusting(["gitreal-gate/*"])


def long_way(loaded: LoadedClaim, verdict: Verdict) -> str:
    return indented_json(completed_record(loaded.document.raw, verdict))


def decided(path: Path) -> tuple[LoadedClaim, Verdict]:
    from gate.claim.facts import Facts

    loaded = load_claim(path)
    return loaded, decide(loaded.claim, Facts(items=()), TRUSTED, NOW)


def test_the_spec_example_and_the_mixed_claim_are_written_as_the_long_way() -> None:
    for path in (ROOT / "examples" / "claim.json",
                 ROOT / "tests" / "data" / "json_output" / "mixed.claim.json"):
        loaded, verdict = decided(path)
        assert record_text(loaded.document.raw, verdict) == long_way(loaded, verdict)


def test_a_claim_of_many_mutations_some_unmet_is_written_as_the_long_way(
        tmp_path: Path) -> None:
    """The bench's shape (one readback per mutation), with some items stale, untrusted or
    dated before their mutation, so several shapes share the array."""
    document = json.loads((ROOT / "examples" / "claim.json").read_text())
    template = document["evidence"][0]
    document["mutations"] = [{"id": f"m{i}", "kind": "state_write", "target": f"a/{i}",
                              "at": "2026-08-27T18:04:02Z"} for i in range(60)]
    document["evidence"] = [
        dict(template, covers=[f"m{i}"], target=f"a/{i}",
             at=["2026-08-27T18:04:09Z", "2026-08-27T17:00:00Z", "2026-08-27T18:04:01Z"][i % 3],
             verifier={"id": "gitreal-gate/0.3" if i % 4 else "someone/1", "kind": "independent"})
        for i in range(60)
    ]
    del document["verdict"]
    path = tmp_path / "many.json"
    path.write_text(json.dumps(document))
    loaded, verdict = decided(path)
    assert {a.problem is None for a in verdict.assessments} == {True, False}
    assert record_text(loaded.document.raw, verdict) == long_way(loaded, verdict)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                    st.sampled_from(["", "\x00", ",\x00{", "%s", "\n", "é", "1.5"]))
NAMES = st.sampled_from(["", "a", "%s", "x-a"])
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=2),
                   st.dictionaries(NAMES, SCALARS, max_size=2))
#: Extension keys beside the dumped ones and in their place (the long way overwrites those).
OWN = st.dictionaries(st.sampled_from(["x-a", "x-%s", "id", "kind", "x-claimed-kind"]), VALUES,
                      max_size=2)
ADDED = st.dictionaries(st.sampled_from(["x-a", "x-b", "target", "at", "x-claim-gate",
                                         "check_type"]), VALUES, max_size=2)
MOMENTS = st.sampled_from([
    datetime(2026, 8, 27, 18, 4, 9, tzinfo=UTC),
    datetime(2026, 8, 27, 18, 4, 9, 250000, tzinfo=UTC),
    datetime(2026, 8, 27, 20, 4, 9, tzinfo=timezone(timedelta(hours=2))),
])
IDS = st.lists(st.sampled_from(["m1", "m2", "m%", 'm"']), max_size=2).map(tuple)


def _evidence(has_observed: bool, observed: Any, **fields: Any) -> Evidence:
    return Evidence(observed_value=observed if has_observed else None,
                    has_observed_value=has_observed, **fields)


EVIDENCE = st.builds(
    _evidence, st.booleans(), VALUES,
    check_type=st.sampled_from(list(CheckType)), at=MOMENTS,
    verifier=st.builds(Verifier, st.sampled_from(["gitreal-gate/0.3", "me", ""]),
                       st.sampled_from(list(VerifierKind)), OWN),
    covers=IDS, target=st.sampled_from([None, "", "accounts/1", "%s"]),
    expected=st.one_of(st.none(), st.dictionaries(NAMES, VALUES, max_size=2)),
    extensions=ADDED,
)
ITEMS = st.tuples(
    st.builds(EvidenceItem, EVIDENCE, st.sampled_from(list(Origin)),
              st.sampled_from(["claim", "records.json", "%s"])),
    st.builds(Assessment, independent=st.booleans(), covers=IDS,
              problem=st.one_of(st.none(), st.builds(Problem, st.sampled_from(["stale", "x%"]),
                                                     NAMES)),
              contradicts=st.booleans(), supports=IDS, contradicts_mutations=IDS,
              satisfies=st.lists(st.sampled_from(list(CheckType)), max_size=2).map(tuple)),
)


EXAMPLE = decided(ROOT / "examples" / "claim.json")


@settings(max_examples=50, deadline=None)
@given(st.lists(ITEMS, max_size=5),
       st.dictionaries(st.sampled_from(["task", "x-raw", "evidence", "mutations"]), VALUES,
                       max_size=3))
def test_items_of_every_shape_are_written_as_the_long_way(
        drawn: list[tuple[EvidenceItem, Assessment]], raw: dict[str, Any]) -> None:
    _, verdict = EXAMPLE
    verdict = replace(verdict, items=tuple(item for item, _ in drawn),
                      assessments=tuple(assessment for _, assessment in drawn))
    try:
        expected = indented_json(completed_record(raw, verdict))
    except TypeError as exc:  # an extension put a scalar where the dump writes an object
        with pytest.raises(type(exc)):
            record_text(raw, verdict)
        return
    assert record_text(raw, verdict) == expected
    assert expected == json.dumps(completed_record(raw, verdict), indent=2, ensure_ascii=False)


def test_a_key_the_writer_does_not_spell_goes_the_long_way() -> None:
    """A raw key that is not a string: json.dumps turns it into one its own way."""
    loaded, verdict = EXAMPLE
    raw = {**loaded.document.raw, 7: "seven", None: [1]}
    assert record_text(raw, verdict) == json.dumps(completed_record(raw, verdict), indent=2,
                                                   ensure_ascii=False)


@pytest.mark.parametrize("independent", [True, False])
@pytest.mark.parametrize(("own", "added"), [
    ({"x-claimed-kind": 1}, {}), ({"id": "other"}, {}), ({"kind": "k"}, {}), ({"x-a": 1}, {}),
    ({}, {"x-claim-gate": 1}), ({}, {"target": "t"}), ({}, {"covers": []}), ({}, {"x-b": [1]}),
])
def test_an_extension_beside_or_in_place_of_a_dumped_key_is_written_as_the_long_way(
        own: dict[str, Any], added: dict[str, Any], independent: bool) -> None:
    loaded, verdict = EXAMPLE
    item, assessment = verdict.items[0], verdict.assessments[0]
    evidence = replace(item.evidence, extensions=added,
                       verifier=replace(item.evidence.verifier, extensions=own))
    verdict = replace(verdict, items=(replace(item, evidence=evidence), item),
                      assessments=(replace(assessment, independent=independent), assessment))
    assert record_text(loaded.document.raw, verdict) == long_way(loaded, verdict)


def test_the_end_is_written_after_the_record_whichever_way_it_is_written() -> None:
    """`end` (the output's last new line) is joined with the record's pieces, and follows the
    long way's text too."""
    loaded, verdict = EXAMPLE
    raw = loaded.document.raw
    assert record_text(raw, verdict, end="\n") == long_way(loaded, verdict) + "\n"
    odd = {**raw, 7: "seven"}  # a key the writer does not spell: the long way
    assert record_text(odd, verdict, end="\n") == json.dumps(
        completed_record(odd, verdict), indent=2, ensure_ascii=False) + "\n"


def test_a_column_is_written_once_only_for_values_written_alike() -> None:
    """An item's covers stand for what it supports only when each is the same object or
    tuples of strings equal to them: 1 and True, a list and a tuple, are written apart."""
    covers = [("m1",), ("m2",)]
    assert _alike(list(covers), covers) is covers
    assert _alike([("m1",), ("m2",)], covers) is covers
    for column in ([("m1",), ("m3",)], [["m1"], ["m2"]], [(1,), (True,)]):
        assert _alike(column, covers) is column
    numbers: list[Any] = [(1,), (2,)]
    truths: list[Any] = [(True,), (2,)]
    assert truths == numbers
    assert _alike(truths, numbers) is truths


def test_covers_and_supports_equal_but_written_apart_are_written_as_the_long_way() -> None:
    loaded, verdict = EXAMPLE
    item, assessment = verdict.items[0], verdict.assessments[0]
    odd = replace(item, evidence=replace(item.evidence, covers=(1,)))  # type: ignore[arg-type]
    ones: Any = (1,)
    truths: Any = (True,)
    verdict = replace(verdict, items=(odd, odd),
                      assessments=(replace(assessment, supports=truths, covers=ones),) * 2)
    assert record_text(loaded.document.raw, verdict) == long_way(loaded, verdict)


@pytest.mark.parametrize("second", [{"zip": "94107"}, {"zip": True}, {"zip": 1}, {"zip": 1.0}])
def test_objects_every_item_writes_alike_or_not_are_written_as_the_long_way(
        second: dict[str, Any]) -> None:
    """A column whose texts are all one text goes into the template once: equal objects
    (`expected` of every readback); 1, True and 1.0 are written apart."""
    loaded, verdict = EXAMPLE
    item, assessment = verdict.items[0], verdict.assessments[0]
    items = tuple(replace(item, evidence=replace(item.evidence, expected=expected,
                                                 observed_value=expected))
                  for expected in ({"zip": 1}, second, {"zip": 1}))
    verdict = replace(verdict, items=items, assessments=(assessment,) * 3)
    assert record_text(loaded.document.raw, verdict) == long_way(loaded, verdict)
