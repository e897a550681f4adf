"""The engine's per-item fast paths (issue 23: `decide` on a 10,000-mutation claim) answer as
the long ways do: the expected-against-observed comparison of all-string values in C, an
item's covers when it names one known mutation, and a mutation every candidate of which
supports it, judged without weighing each. Each is held to the long way it skips."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.facts import EvidenceItem, Facts, Origin
from gate.claim.loader import load_claim
from gate.claim.model import CheckType, Evidence, Mutation, VerdictState, Verifier, VerifierKind
from gate.claim.policy import default_policy
from gate.engine.decide import (
    _before_message,
    _effective_covers,
    _judge_mutation,
    _judgement,
    _mutation_unmet,
    _Reading,
    _same,
    _show,
    _weigh,
    decide,
    differences,
)
from gate.engine.results import Assessment, Judgement, Problem
from tests.builders import T0

EXAMPLE = load_claim(Path(__file__).resolve().parent.parent / "examples" / "claim.json")

SCALARS = st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 1.0, 2]),
                    st.sampled_from(["", "a", "94107", "1", "True"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(["a", "b"]), inner,
                                                 max_size=2)), max_leaves=4)
OBJECTS = st.dictionaries(st.sampled_from(["a", "b", "c"]), VALUES, max_size=3)


def long_differences(expected: dict[str, Any], observed: Any, prefix: str = "") -> list[str]:
    """`differences` as it was written before its fast path, key by key."""
    if not isinstance(observed, dict):
        return [f"{prefix or 'value'}: expected an object, observed {_show(observed)}"]
    found: list[str] = []
    for key, want in expected.items():
        name = f"{prefix}.{key}" if prefix else key
        if key not in observed:
            found.append(f"{name}: expected {_show(want)}, observed nothing (field absent)")
        elif isinstance(want, dict) and isinstance(observed[key], dict):
            found.extend(long_differences(want, observed[key], name))
        elif not _same(want, observed[key]):
            found.append(f"{name}: expected {_show(want)}, observed {_show(observed[key])}")
    return found


@settings(max_examples=100, deadline=None)
@given(OBJECTS, st.one_of(OBJECTS, VALUES))
def test_differences_are_the_long_ways(expected: dict[str, Any], observed: Any) -> None:
    assert differences(expected, observed) == long_differences(expected, observed)
    assert differences(expected, dict(expected)) == []


IDS = st.lists(st.sampled_from(["m0", "m1", "m2", "gone"]), max_size=3).map(tuple)


@settings(max_examples=100, deadline=None)
@given(IDS, st.sampled_from(list(CheckType)), st.sets(st.sampled_from(["m0", "m1", "m2"])))
def test_an_items_covers_are_the_long_ways(covers: tuple[str, ...], check: CheckType,
                                           code: set[str]) -> None:
    known = {name: Mutation(name, "state_write", T0) for name in ("m0", "m1", "m2")}
    code_change = tuple(sorted(code))
    evidence = Evidence(check, T0, Verifier("v", VerifierKind.INDEPENDENT), covers=covers)
    if check is CheckType.TEST_RUN:
        named = [c for c in covers if c in code_change]
        expected = tuple(dict.fromkeys(named)) if covers else code_change
    else:
        expected = tuple(dict.fromkeys(c for c in covers if c in known))
    assert _effective_covers(evidence, known, code_change) == expected


READINGS = st.lists(st.builds(
    _Reading, st.booleans(),
    st.one_of(st.none(), st.just(Problem("stale", "old"))),
    st.just(("m",)), st.sampled_from([(), ("value: differs",)]),
), min_size=1, max_size=4)


@settings(max_examples=100, deadline=None)
@given(READINGS, st.data())
def test_a_mutation_is_judged_as_weighing_its_candidates_judges_it(
        readings: list[_Reading], data: st.DataObject) -> None:
    candidates = data.draw(st.lists(st.sampled_from(range(len(readings))), unique=True))
    late = data.draw(st.sets(st.sampled_from(range(len(readings)))))
    mutation = Mutation("m", "state_write", T0)
    items = [EvidenceItem(Evidence(CheckType.STATE_READBACK, T0 + timedelta(seconds=1),
                                   Verifier("v", VerifierKind.INDEPENDENT)), Origin.CLAIM, "claim")
             for _ in readings]

    def after(index: int, _mutation: Mutation) -> bool:
        return index not in late

    found = _weigh(candidates, readings, lambda i: after(i, mutation),
                   lambda i: _before_message(i, items[i].evidence, mutation), lambda i: None)
    unmet = _mutation_unmet(mutation, found, items, readings) \
        if found.contradicting or not found.supporting else None
    long_way = _judgement(f"mutation {mutation.id}", unmet, found)
    assert _judge_mutation(mutation, candidates, items, readings, None, after) == long_way


def test_results_made_without_the_frozen_init_are_the_classes_own() -> None:
    """Every field in field order, equal to what the class makes, and still frozen."""
    verdict = decide(EXAMPLE.claim, Facts(), default_policy().trusting(["gitreal-gate/*"]),
                     datetime(2026, 8, 27, 18, 5, tzinfo=UTC))
    made: list[Assessment | Judgement] = [*verdict.assessments]
    made += [j for j in verdict.judgements if j.subject.startswith("mutation ")]
    assert verdict.state is VerdictState.VERIFIED
    assert len(made) >= 2
    for result in made:
        own = type(result)(**{f.name: getattr(result, f.name) for f in fields(result)})
        assert list(vars(result)) == [f.name for f in fields(result)] == list(vars(own))
        assert result == own
        assert repr(result) == repr(own)
        with pytest.raises(FrozenInstanceError):
            setattr(result, "subject", "edited")  # noqa: B010 (frozen: any attribute)
