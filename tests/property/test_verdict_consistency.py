"""A verdict says one thing: its state, unmet list, reason, judgements and per-item
assessments agree, over generated claims, evidence and rule facts (issue 11)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.facts import EvidenceItem, Facts
from gate.claim.github_facts import RemovedTest, TestSetComparison, WorkflowRun
from gate.claim.junit_facts import Outcome
from gate.claim.model import Claim, VerdictState
from gate.claim.policy import Policy
from gate.claim.trust_policy import RemovedTests, TrustPolicy
from gate.engine.decide import decide
from gate.engine.results import worst
from tests.builders import T0
from tests.property.test_engine_properties import NOW, cases

BASELINE = WorkflowRun(
    id=7, name="tests", path=".github/workflows/w.yml", event="push", head_sha="a" * 40,
    status="completed", conclusion="success", run_attempt=1, created_at=T0,
    run_started_at=T0, updated_at=T0, html_url="https://github.example/run/7",
    pull_numbers=(),
)


@st.composite
def removed_test_facts(draw: st.DrawFn) -> tuple[TestSetComparison, ...]:
    comparisons = []
    for index in range(draw(st.integers(0, 2))):
        removed = tuple(
            RemovedTest(f"t{index}.{n}", Outcome.PASSED, draw(st.sampled_from([None,
                                                                               Outcome.SKIPPED])))
            for n in range(draw(st.integers(0, 2)))
        )
        comparable = draw(st.booleans())
        comparisons.append(TestSetComparison(
            f".github/workflows/w{index}.yml", BASELINE, removed if comparable else (),
            note=None if comparable else "more than 200000 tests in one file",
            comparable=comparable,
        ))
    return tuple(comparisons)


@settings(max_examples=300, deadline=None)
@given(cases(), removed_test_facts(), st.sampled_from(list(RemovedTests)))
def test_state_unmet_reason_and_judgements_agree(
    case: tuple[Claim, list[EvidenceItem], Policy],
    comparisons: tuple[TestSetComparison, ...],
    mode: RemovedTests,
) -> None:
    claim, items, policy = case
    policy = Policy(**{**policy.__dict__, "trust": TrustPolicy(removed_tests=mode)})
    verdict = decide(claim, Facts(tuple(items), None, comparisons), policy, NOW)

    assert verdict.judgements, "every decision judges at least one subject"
    assert verdict.state is worst(j.state for j in verdict.judgements)
    assert verdict.unmet == tuple(j.unmet for j in verdict.judgements if j.unmet is not None)
    for judgement in verdict.judgements:
        # a judgement is verified exactly when it has no unmet entry, and the entry's state
        # is the judgement's
        assert (judgement.state is VerdictState.VERIFIED) == (judgement.unmet is None)
        if judgement.unmet is not None:
            assert judgement.unmet.state is judgement.state
        for index in judgement.supporting:
            assessment = verdict.assessments[index]
            assert assessment.problem is None
            assert not assessment.contradicts
            assert assessment.counts
    refuting = any(u.state is VerdictState.REFUTED for u in verdict.unmet)
    assert (verdict.state is VerdictState.REFUTED) == refuting
    assert (verdict.state is VerdictState.VERIFIED) == (not verdict.unmet)
    assert verdict.reason.startswith(str(verdict.state))
    for assessment in verdict.assessments:
        if assessment.counts:
            assert assessment.problem is None
    if verdict.state is VerdictState.VERIFIED:
        assert any(a.counts for a in verdict.assessments)
