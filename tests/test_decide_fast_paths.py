"""The engine's per-item fast paths (issue 23: `decide` on a 10,000-mutation claim) answer as
the long ways do: the expected-against-observed comparison of all-string values in C, an
item's covers when it names one known mutation, and a mutation every candidate of which
supports it, judged without weighing each. Each is held to the long way it skips."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.facts import Disqualification, EvidenceItem, Facts, Origin, Producer
from gate.claim.github_facts import PullChanges, PullObservation
from gate.claim.loader import load_claim
from gate.claim.model import CheckType, Evidence, Mutation, VerdictState, Verifier, VerifierKind
from gate.claim.policy import default_policy
from gate.engine.decide import (
    _all_support,
    _before_message,
    _judge_mutation,
    _judge_mutations,
    _judge_requirement,
    _judgement,
    _met,
    _mutation_unmet,
    _weigh,
    decide,
)
from gate.engine.readings import (
    Reading,
    _same,
    _show,
    differences,
    effective_covers,
    item_indexes,
    none_ruled_out,
    read_item,
    read_items,
)
from gate.engine.results import Assessment, Judgement, Problem
from gate.engine.trust import judge_once
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
    assert effective_covers(evidence, known, code_change) == expected


READINGS = st.lists(st.builds(
    Reading, st.booleans(),
    st.one_of(st.none(), st.just(Problem("stale", "old"))),
    st.just(("m",)), st.sampled_from([(), ("value: differs",)]),
), min_size=1, max_size=4)


@settings(max_examples=100, deadline=None)
@given(READINGS, st.data())
def test_a_mutation_is_judged_as_weighing_its_candidates_judges_it(
        readings: list[Reading], data: st.DataObject) -> None:
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


@st.composite
def scenes(draw: st.DrawFn) -> tuple[Any, ...]:
    """Mutations and the items covering them, dated around one another, some of them with a
    problem, a contradiction or a binding that orders them after a code change by commit."""
    mutations = [Mutation(f"m{n}", "state_write", T0 + timedelta(seconds=draw(st.integers(0, 3))))
                 for n in range(draw(st.integers(1, 3)))]
    ids = [m.id for m in mutations]
    count = draw(st.integers(1, 5))
    items = [EvidenceItem(Evidence(CheckType.STATE_READBACK,
                                   T0 + timedelta(seconds=draw(st.integers(0, 4))),
                                   Verifier("v", VerifierKind.INDEPENDENT)), Origin.CLAIM, "claim")
             for _ in range(count)]
    readings = [Reading(True, draw(st.sampled_from([None, Problem("stale", "old")])),
                         tuple(draw(st.lists(st.sampled_from(ids), unique=True, max_size=2))),
                         draw(st.sampled_from([(), ("value: differs",)])))
                for _ in range(count)]
    future = {m: Problem("mutation_time_invalid", f"{m} is dated later")
              for m in draw(st.sets(st.sampled_from(ids)))}
    bound = draw(st.sets(st.integers(0, count - 1)))
    return mutations, items, readings, future, bound


def judged_both_ways(scene: tuple[Any, ...]) -> bool:
    """`_judge_mutations` is `_judge_mutation` of each mutation, and a requirement whose every
    candidate `_all_support` finds supporting is what `_judge_requirement` weighs it to;
    whether it was."""
    mutations, items, readings, future, bound = scene
    known = {m.id: m for m in mutations}
    by_mutation: dict[str, list[int]] = {}
    for index, reading in enumerate(readings):
        for mutation_id in reading.covers:
            by_mutation.setdefault(mutation_id, []).append(index)

    def after(index: int, mutation: Mutation) -> bool:  # by time, or by a binding
        return bool(items[index].evidence.at > mutation.at or index in bound)

    clean = [r.problem is None and not r.contradiction for r in readings]
    judged = _judge_mutations(mutations, by_mutation, items, readings, clean, future, after)
    assert judged == [_judge_mutation(m, by_mutation.get(m.id, []), items, readings,
                                      future.get(m.id), after) for m in mutations]
    supported = {m.id: len(j.supporting) == len(by_mutation.get(m.id, ()))
                 for m, j in zip(mutations, judged, strict=True)}
    candidates = list(range(len(items)))
    if not _all_support(candidates, readings, clean, supported):
        return False
    assert _met(CheckType.STATE_READBACK, candidates) == _judge_requirement(
        CheckType.STATE_READBACK, candidates, items, readings, known, future, after)
    return True


@settings(max_examples=300, deadline=None)
@given(scenes())
def test_mutations_and_requirements_judged_at_once_are_judged_as_one_by_one(
        scene: tuple[Any, ...]) -> None:
    judged_both_ways(scene)


def test_a_requirement_every_candidate_supports_takes_the_fast_path() -> None:
    mutation = Mutation("m0", "state_write", T0)
    item = EvidenceItem(Evidence(CheckType.STATE_READBACK, T0 + timedelta(seconds=1),
                                 Verifier("v", VerifierKind.INDEPENDENT)), Origin.CLAIM, "claim")
    late = replace(item, evidence=replace(item.evidence, at=T0))  # not after m0 by time
    clean = [Reading(True, None, ("m0",), ())] * 2
    assert judged_both_ways(([mutation], [item, item], clean, {}, set()))
    assert judged_both_ways(([mutation], [item, late], clean, {}, {1}))  # bound: by commit
    assert not judged_both_ways(([mutation], [item, late], clean, {}, set()))


def test_the_claims_own_items_made_without_the_frozen_init_are_the_classes_own() -> None:
    verdict = decide(EXAMPLE.claim, Facts(), default_policy().trusting(["gitreal-gate/*"]),
                     datetime(2026, 8, 27, 18, 5, tzinfo=UTC))
    assert verdict.items
    for item in verdict.items:
        own = EvidenceItem(**{f.name: getattr(item, f.name) for f in fields(item)})
        assert list(vars(item)) == [f.name for f in fields(item)] == list(vars(own))
        assert item == own
        assert repr(item) == repr(own)
        with pytest.raises(FrozenInstanceError):
            setattr(item, "source", "edited")  # noqa: B010 (frozen: any attribute)


DECIDED_AT = T0 + timedelta(minutes=5)
#: Around the limits: the decision time itself, just after it, the oldest fresh moment of a
#: readback (300 s), just before it, and a day back (a test run's limit).
MOMENTS = st.sampled_from([DECIDED_AT, DECIDED_AT + timedelta(microseconds=1),
                           DECIDED_AT - timedelta(seconds=300),
                           DECIDED_AT - timedelta(seconds=300, microseconds=1),
                           T0, DECIDED_AT - timedelta(days=1)])
WRITTEN = st.builds(
    lambda check, at, verifier, kind, expected, observed, has, covers: Evidence(
        check, at, Verifier(verifier, kind), covers=covers, expected=expected,
        observed_value=observed, has_observed_value=has),
    st.sampled_from([CheckType.STATE_READBACK, CheckType.STATE_READBACK, CheckType.TEST_RUN,
                     CheckType.ENDPOINT_HEALTH]),
    MOMENTS, st.sampled_from(["gitreal-gate/0.3", "gitreal-gate/0.3", "me", "claim-gate/x"]),
    st.sampled_from([VerifierKind.INDEPENDENT, VerifierKind.INDEPENDENT,
                     VerifierKind.SELF_ATTESTED]),
    st.sampled_from([None, {"zip": "94107"}, {"zip": 1}]),
    st.sampled_from([{"zip": "94107"}, {"zip": True}, {"tests": 3, "failures": 1}, None]),
    st.booleans(), st.sampled_from([("m0",), ("m1",), (), ("m0", "m0"), ("gone",)]))
ITEMS = st.builds(
    EvidenceItem, WRITTEN, st.sampled_from([Origin.CLAIM, Origin.CLAIM, Origin.OPERATOR]),
    st.just("claim"),
    st.sampled_from([None, None, None, Disqualification("dirty_tree", "the tree was dirty")]),
    st.sampled_from([None, None, None, Producer("ci.yml", "failure", "main")]))


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEMS, max_size=6))
def test_items_read_at_once_are_read_as_one_by_one(items: list[EvidenceItem]) -> None:
    """`read_items` is `read_item` of each item, whether or not `none_ruled_out` lets it skip
    each item's steps (a problem of any kind in any item sends all of them the long way)."""
    policy = default_policy().trusting(["gitreal-gate/*"])
    known = {name: Mutation(name, "state_write", T0) for name in ("m0", "m1")}
    trust = judge_once(policy.trusted_verifiers)
    pull = PullObservation(PullChanges(frozenset(), True), None, base_ref="develop")
    assert read_items(items, policy, DECIDED_AT, known, ("m1",), trust, pull) == tuple(
        read_item(item, index, policy, DECIDED_AT, known, ("m1",), trust, pull)
        for index, item in enumerate(items))


def test_items_with_nothing_against_them_are_read_at_once() -> None:
    policy = default_policy().trusting(["gitreal-gate/*"])
    trust = judge_once(policy.trusted_verifiers)
    fresh = EvidenceItem(Evidence(CheckType.STATE_READBACK, DECIDED_AT - timedelta(seconds=300),
                                  Verifier("gitreal-gate/0.3", VerifierKind.INDEPENDENT),
                                  covers=("m0",)), Origin.CLAIM, "claim")
    assert none_ruled_out([fresh, fresh], policy, DECIDED_AT, trust)
    stale = replace(fresh, evidence=replace(fresh.evidence, at=fresh.evidence.at
                                            - timedelta(microseconds=1)))
    future = replace(fresh, evidence=replace(fresh.evidence, at=DECIDED_AT
                                             + timedelta(microseconds=1)))
    for other in (stale, future, replace(fresh, origin=Origin.OPERATOR, producer=Producer("c")),
                  replace(fresh, disqualified=Disqualification("dirty_tree", "dirty"))):
        assert not none_ruled_out([fresh, other], policy, DECIDED_AT, trust)


AGREEING = st.builds(
    lambda expected, observed, has, covers: EvidenceItem(Evidence(
        CheckType.STATE_READBACK, DECIDED_AT, Verifier("gitreal-gate/0.3",
                                                       VerifierKind.INDEPENDENT),
        covers=covers, expected=expected, observed_value=observed, has_observed_value=has),
        Origin.CLAIM, "claim"),
    st.sampled_from([None, {"zip": "94107"}, {"zip": "94107", "n": "1"}, {"zip": 1}, {},
                     {"zip": {"a": "b"}}]),
    st.sampled_from([{"zip": "94107"}, {"zip": "94107", "n": "1"}, {"zip": 1}, {"zip": True},
                     {}, ["zip"], None]),
    st.just(True), st.sampled_from([("m0",), ("m1",), (), ("m0", "m1"), ("m0", "m0"), ("gone",)]))


@settings(max_examples=300, deadline=None)
@given(st.lists(AGREEING, min_size=1, max_size=5))
def test_items_nothing_rules_out_are_compared_and_cover_as_one_by_one(
        items: list[EvidenceItem]) -> None:
    """Every item fresh and trusted (`none_ruled_out`): their comparisons and covers, read in
    C when all agree and each names one known mutation or none, are what `read_item` finds."""
    policy = default_policy().trusting(["gitreal-gate/*"])
    known = {name: Mutation(name, "state_write", T0) for name in ("m0", "m1")}
    trust = judge_once(policy.trusted_verifiers)
    assert none_ruled_out(items, policy, DECIDED_AT, trust)
    assert read_items(items, policy, DECIDED_AT, known, (), trust) == tuple(
        read_item(item, index, policy, DECIDED_AT, known, (), trust)
        for index, item in enumerate(items))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([("m0",), ("m1",), ("m2",), (), ("m0", "m1")]),
                          st.sampled_from([CheckType.STATE_READBACK, CheckType.STATE_READBACK,
                                           CheckType.TEST_RUN])), max_size=5))
def test_items_are_indexed_by_what_they_cover_and_their_check_as_one_by_one(
        drawn: list[tuple[tuple[str, ...], CheckType]]) -> None:
    items = [EvidenceItem(Evidence(check, T0, Verifier("v", VerifierKind.INDEPENDENT)),
                          Origin.CLAIM, "claim") for _, check in drawn]
    readings = [Reading(True, None, covers, ()) for covers, _ in drawn]
    by_mutation: dict[str, list[int]] = {}
    by_check: dict[CheckType, list[int]] = {}
    for index, (covers, check) in enumerate(drawn):
        for mutation_id in covers:
            by_mutation.setdefault(mutation_id, []).append(index)
        by_check.setdefault(check, []).append(index)
    found = item_indexes(items, readings)
    assert (dict(found[0]), dict(found[1])) == (by_mutation, by_check)
