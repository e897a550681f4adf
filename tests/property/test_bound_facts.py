"""A fact bound to something other than the decision's subject never moves a verdict toward
`verified` (issue 20): over generated subjects, claims and facts, adding items whose binding
differs from the subject (another commit, PR, base, claim, the gate's own workflow, a run
from before the PR's base last changed) leaves the state exactly as it was and none of them
supports anything; a subject whose head or base branch moved while it was observed is never
verified."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.claim.facts import EvidenceItem, Facts, Origin, Producer
from gate.claim.github_facts import PullChanges, PullObservation
from gate.claim.model import Claim, VerdictState, VerifierKind
from gate.claim.policy import Policy
from gate.claim.subject import Binding, Subject
from gate.engine.binding import NOT_BOUND
from gate.engine.decide import decide
from tests.builders import T0
from tests.property.test_engine_properties import NOW, cases, evidence_for

SHAS = st.text("0123456789abcdef", min_size=40, max_size=40)
GATE = ".github/workflows/claim.yml"
CI = ".github/workflows/ci.yml"
REBOUND = T0 + timedelta(seconds=300)


@st.composite
def subjects(draw: st.DrawFn) -> Subject:
    return Subject(
        repository="octo/app", pull_number=draw(st.integers(1, 50)), head_sha=draw(SHAS),
        base_ref=draw(st.sampled_from(["main", "release"])), base_sha=draw(SHAS),
        claim_sha256=draw(SHAS), gate_workflow=GATE,
    )


def _bound(subject: Subject) -> Binding:
    return Binding(commit=subject.head_sha, pull_number=subject.pull_number, event="push",
                   workflow_path=CI, observed_at=REBOUND + timedelta(seconds=1))


@st.composite
def foreign(draw: st.DrawFn, subject: Subject) -> Binding:
    """A binding that differs from `subject` in one way or more."""
    bound = _bound(subject)
    other_sha = draw(SHAS.filter(lambda s: s != subject.head_sha))
    ways = [
        replace(bound, commit=other_sha),
        replace(bound, pull_number=(subject.pull_number or 0) + draw(st.integers(1, 9))),
        replace(bound, base_ref="copilot/base"),
        replace(bound, claim_sha256=draw(SHAS.filter(lambda s: s != subject.claim_sha256))),
        replace(bound, workflow_path=GATE, event=draw(st.sampled_from(
            ["push", "pull_request", "pull_request_review"]))),
        replace(bound, event="pull_request", observed_at=draw(st.sampled_from(
            [None, REBOUND, REBOUND - timedelta(seconds=90)]))),
    ]
    picked = draw(st.lists(st.sampled_from(range(len(ways))), min_size=1, max_size=3,
                           unique=True))
    binding = ways[picked[0]]
    for index in picked[1:]:
        binding = replace(binding, **{k: v for k, v in ways[index].__dict__.items()
                                      if v != getattr(bound, k)})
    return binding


def _facts(items: list[EvidenceItem], subject: Subject) -> Facts:
    pull = PullObservation(PullChanges(frozenset({"app/parser.py"}), True), None,
                           subject.base_ref, rebound_at=REBOUND)
    return Facts(tuple(items), pull, subject=subject)


@settings(max_examples=120, deadline=None)
@given(cases(), subjects(), st.data())
def test_a_fact_not_bound_to_the_subject_never_moves_a_verdict_toward_verified(
    case: tuple[Claim, list[EvidenceItem], Policy], subject: Subject, data: st.DataObject
) -> None:
    claim, items, policy = case
    ids = tuple(m.id for m in claim.mutations)
    bound = [replace(i, binding=_bound(subject)) for i in items]
    extra = [
        EvidenceItem(data.draw(evidence_for(ids, VerifierKind.INDEPENDENT)), Origin.GATE,
                     f"foreign #{n}", producer=Producer(CI, "success"),
                     binding=data.draw(foreign(subject)))
        for n in range(data.draw(st.integers(1, 4)))
    ]
    before = decide(claim, _facts(bound, subject), policy, NOW)
    after = decide(claim, _facts(bound + extra, subject), policy, NOW)

    assert after.state is before.state
    first_foreign = len(claim.evidence) + len(bound)
    foreign_indices = set(range(first_foreign, first_foreign + len(extra)))
    for judgement in after.judgements:
        assert not foreign_indices & set(judgement.supporting), judgement
        assert not foreign_indices & set(judgement.contradicting), judgement
    for index in foreign_indices:
        assert after.items[index].disqualified is not None
        assert after.items[index].disqualified.code == NOT_BOUND  # type: ignore[union-attr]


@settings(max_examples=60, deadline=None)
@given(cases(), subjects(), st.sampled_from(["head_sha", "base_ref"]), SHAS)
def test_a_subject_that_moved_while_observed_is_never_verified(
    case: tuple[Claim, list[EvidenceItem], Policy], subject: Subject, field: str, moved: str
) -> None:
    claim, items, policy = case
    now = replace(subject, head_sha=moved) if field == "head_sha" \
        else replace(subject, base_ref="other")
    if now == subject:
        return
    facts = replace(_facts([replace(i, binding=_bound(subject)) for i in items], subject),
                    reread=now)
    verdict = decide(claim, facts, policy, NOW)
    assert verdict.state is not VerdictState.VERIFIED
    assert "superseded" in {u.code for u in verdict.unmet}
