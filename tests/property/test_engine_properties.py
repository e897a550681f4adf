"""Properties of `decide` over generated claims and evidence (hypothesis)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.facts import Disqualification, EvidenceItem, Facts, Origin
from gate.claim.model import (
    CheckType,
    Claim,
    Evidence,
    Mutation,
    Task,
    VerdictState,
    Verifier,
    VerifierKind,
)
from gate.claim.policy import Policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from tests.builders import T0

NOW = T0 + timedelta(seconds=600)
KINDS = ["file_write", "code_change", "state_write", "deploy", "mystery"]
VERIFIERS = ["ci/junit", "gitreal-gate/0.3", "claim-gate/junit@0.1.0", "agent/self"]


@st.composite
def mutations(draw: st.DrawFn) -> tuple[Mutation, ...]:
    count = draw(st.integers(0, 5))
    return tuple(
        Mutation(
            id=f"m{index}",
            kind=draw(st.sampled_from(KINDS)),
            at=T0 + timedelta(seconds=draw(st.integers(0, 300))),
        )
        for index in range(count)
    )


@st.composite
def evidence_for(
    draw: st.DrawFn, ids: tuple[str, ...], kind: VerifierKind | None = None
) -> Evidence:
    expected = draw(st.one_of(st.none(), st.just({"value": 1})))
    observed = draw(st.sampled_from([{"value": 1}, {"value": 2}, {"value": 1, "extra": True}]))
    return Evidence(
        check_type=draw(st.sampled_from(list(CheckType))),
        at=T0 + timedelta(seconds=draw(st.integers(-60, 700))),
        verifier=Verifier(
            draw(st.sampled_from(VERIFIERS)),
            kind if kind is not None else draw(st.sampled_from(list(VerifierKind))),
        ),
        covers=tuple(draw(st.lists(st.sampled_from(ids), unique=True))) if ids else (),
        expected=expected,
        observed_value=observed,
        has_observed_value=draw(st.booleans()) if expected is not None else True,
    )


@st.composite
def items_for(draw: st.DrawFn, ids: tuple[str, ...]) -> list[EvidenceItem]:
    records = draw(st.lists(evidence_for(ids), max_size=6))
    result = []
    for record in records:
        disqualified = draw(st.sampled_from(
            [None, None, None, Disqualification("other_commit", "another commit"),
             Disqualification("dirty_tree", "dirty tree")]
        ))
        origin = draw(st.sampled_from([Origin.OPERATOR, Origin.GATE]))
        result.append(EvidenceItem(record, origin, "generated", disqualified))
    return result


@st.composite
def cases(draw: st.DrawFn) -> tuple[Claim, list[EvidenceItem], Policy]:
    claimed = draw(mutations())
    ids = tuple(m.id for m in claimed)
    claim = Claim(
        spec_version="0.1",
        task=Task("t", "d"),
        claimed_outcome="done",
        mutations=claimed,
        evidence=tuple(draw(st.lists(evidence_for(ids), max_size=3))),
    )
    policy = Policy(
        id="p",
        requires=tuple(sorted(draw(st.sets(st.sampled_from(list(CheckType)), max_size=2)))),
        max_age_s=dict.fromkeys(CheckType, draw(st.sampled_from([60, 300, 86400]))),
        trusted_verifiers=tuple(draw(st.lists(st.sampled_from(["gitreal-gate/*", "*"]),
                                              max_size=1))),
    )
    return claim, draw(items_for(ids)), policy


def outcome(verdict: Verdict) -> tuple[VerdictState, Counter[tuple[str, str | None, str | None]]]:
    return verdict.state, Counter(
        (u.code, u.mutation, str(u.requirement) if u.requirement else None) for u in verdict.unmet
    )


@settings(max_examples=300, deadline=None)
@given(cases(), st.data())
def test_removing_independent_evidence_never_makes_a_verdict_verified(
    case: tuple[Claim, list[EvidenceItem], Policy], data: st.DataObject
) -> None:
    """From unverified, fewer observations never verify. From refuted, dropping only
    observations that do not contradict keeps it refuted (dropping the contradiction itself
    may rightly change the verdict: the contradicting observation is gone)."""
    claim, items, policy = case
    before = decide(claim, Facts.of(items), policy, NOW)
    if before.state is VerdictState.VERIFIED or not items:
        return
    drop = data.draw(st.sets(st.integers(0, len(items) - 1), min_size=1))
    offset = len(claim.evidence)
    if before.state is VerdictState.REFUTED:
        contradicting = {
            index - offset for index, a in enumerate(before.assessments)
            if a.contradicts_mutations or (a.contradicts and not a.problem)
        }
        drop -= contradicting
    fewer = [entry for index, entry in enumerate(items) if index not in drop]
    after = decide(claim, Facts.of(fewer), policy, NOW).state
    assert after is not VerdictState.VERIFIED
    if before.state is VerdictState.REFUTED:
        assert after is VerdictState.REFUTED


@settings(max_examples=300, deadline=None)
@given(cases(), st.data())
def test_adding_self_attested_evidence_never_changes_the_state(
    case: tuple[Claim, list[EvidenceItem], Policy], data: st.DataObject
) -> None:
    claim, items, policy = case
    ids = tuple(m.id for m in claim.mutations)
    before = decide(claim, Facts.of(items), policy, NOW).state
    labelled = data.draw(st.lists(evidence_for(ids, VerifierKind.SELF_ATTESTED), min_size=1,
                                  max_size=3))
    extra = [EvidenceItem(record, Origin.OPERATOR, "agent") for record in labelled]
    assert decide(claim, Facts.of(items + extra), policy, NOW).state is before
    untrusted_policy = replace(policy, trusted_verifiers=())
    baseline = decide(claim, Facts.of(items), untrusted_policy, NOW).state
    in_claim = replace(claim, evidence=claim.evidence + tuple(
        data.draw(st.lists(evidence_for(ids), min_size=1, max_size=3))
    ))
    assert decide(in_claim, Facts.of(items), untrusted_policy, NOW).state is baseline


@settings(max_examples=300, deadline=None)
@given(cases(), st.randoms(use_true_random=False))
def test_the_verdict_does_not_depend_on_order(
    case: tuple[Claim, list[EvidenceItem], Policy], rng: object
) -> None:
    import random

    assert isinstance(rng, random.Random)
    claim, items, policy = case
    shuffled_mutations = list(claim.mutations)
    rng.shuffle(shuffled_mutations)
    shuffled_claim_evidence = list(claim.evidence)
    rng.shuffle(shuffled_claim_evidence)
    shuffled_items = list(items)
    rng.shuffle(shuffled_items)
    reordered = replace(claim, mutations=tuple(shuffled_mutations),
                        evidence=tuple(shuffled_claim_evidence))
    assert outcome(decide(reordered, Facts.of(shuffled_items), policy, NOW)) == outcome(
        decide(claim, Facts.of(items), policy, NOW)
    )


@settings(max_examples=300, deadline=None)
@given(cases())
def test_with_no_counting_evidence_the_state_is_never_verified(
    case: tuple[Claim, list[EvidenceItem], Policy],
) -> None:
    claim, items, policy = case
    verdict = decide(claim, Facts.of(items), policy, NOW)
    if not any(assessment.counts for assessment in verdict.assessments):
        assert verdict.state is not VerdictState.VERIFIED
    if verdict.state is VerdictState.VERIFIED:
        assert all(
            any(m.id in a.supports for a in verdict.assessments) for m in claim.mutations
        )
