"""The six rules of completion-claim v0.1, each with its boundaries.

Each test here fails when the rule it names is taken out of `gate.engine.decide.decide`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from gate.claim.facts import Disqualification, Facts, Origin
from gate.claim.model import CheckType, Evidence, PolicyRequest, VerdictState, VerifierKind
from gate.claim.policy import Policy, default_policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from tests.builders import T0, at, claim, evidence, item, mutation

NOW = at(10)
POLICY = default_policy()


def codes(verdict: Verdict) -> list[str]:
    return [entry.code for entry in verdict.unmet]


# Rule 1: self-attested evidence never satisfies a requirement.

def test_rule1_self_attested_operator_evidence_does_not_count() -> None:
    record = evidence(kind=VerifierKind.SELF_ATTESTED)
    verdict = decide(claim(), Facts.of([item(record)]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["self_attested_only"]
    assert verdict.items[0].evidence == record, "self-attested evidence is kept in the record"


def test_rule1_independent_operator_evidence_counts() -> None:
    verdict = decide(claim(), Facts.of([item(evidence())]), POLICY, NOW)
    assert verdict.state is VerdictState.VERIFIED
    assert verdict.unmet == ()


def test_rule1_claim_evidence_labelled_independent_is_self_attested_unless_trusted() -> None:
    agent_written = claim(claim_evidence=[evidence(verifier="gitreal-gate/0.3")])
    untrusted = decide(agent_written, Facts.of([]), POLICY, NOW)
    assert untrusted.state is VerdictState.UNVERIFIED
    assert codes(untrusted) == ["untrusted_verifier"]
    assert "self-attested" in untrusted.unmet[0].message
    trusted = decide(agent_written, Facts.of([]), POLICY.trusting(["gitreal-gate/*"]), NOW)
    assert trusted.state is VerdictState.VERIFIED


def test_rule1_trust_needs_the_pattern_to_match() -> None:
    agent_written = claim(claim_evidence=[evidence(verifier="gitreal-gate/0.3")])
    verdict = decide(agent_written, Facts.of([]), POLICY.trusting(["other-gate/*"]), NOW)
    assert codes(verdict) == ["untrusted_verifier"]


def test_rule1_the_gates_own_id_inside_a_claim_is_never_trusted() -> None:
    forged = claim(claim_evidence=[evidence(verifier="claim-gate/junit@0.1.0")])
    verdict = decide(forged, Facts.of([]), POLICY.trusting(["*"]), NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["untrusted_verifier"]
    assert "gate's own id" in verdict.unmet[0].message


def test_rule1_trusted_claim_evidence_that_says_self_attested_stays_self_attested() -> None:
    modest = claim(claim_evidence=[evidence(verifier="gitreal-gate/0.3",
                                            kind=VerifierKind.SELF_ATTESTED)])
    verdict = decide(modest, Facts.of([]), POLICY.trusting(["*"]), NOW)
    assert codes(verdict) == ["self_attested_only"]


def test_rule1_gate_collected_evidence_is_independent() -> None:
    verdict = decide(claim(), Facts.of([item(evidence(), origin=Origin.GATE)]), POLICY, NOW)
    assert verdict.state is VerdictState.VERIFIED


# Rule 2: evidence counts for a mutation only if observed strictly after it.

def test_rule2_equal_timestamps_do_not_count() -> None:
    verdict = decide(claim(), Facts.of([item(evidence(when=0.0))]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["before_mutation"]


def test_rule2_one_microsecond_after_counts() -> None:
    verdict = decide(claim(), Facts.of([item(evidence(when=0.000001))]), POLICY, NOW)
    assert verdict.state is VerdictState.VERIFIED


def test_rule2_evidence_before_the_mutation_does_not_count() -> None:
    verdict = decide(claim(), Facts.of([item(evidence(when=-5.0))]), POLICY, NOW)
    assert codes(verdict) == ["before_mutation"]
    assert "not after m1" in verdict.unmet[0].message


@pytest.mark.parametrize(
    ("offset_seconds", "state"),
    [(-1, VerdictState.UNVERIFIED), (0, VerdictState.UNVERIFIED), (1, VerdictState.VERIFIED)],
)
def test_rule2_compares_instants_across_time_zones(
    offset_seconds: int, state: VerdictState
) -> None:
    """18:04:02Z is 20:04:02+02:00; the wall-clock digits must not decide the order."""
    plus_two = timezone(timedelta(hours=2))
    observed = (T0 + timedelta(seconds=offset_seconds)).astimezone(plus_two)
    assert observed.utcoffset() == timedelta(hours=2)
    record = replace(evidence(), at=observed)
    assert decide(claim(), Facts.of([item(record)]), POLICY, NOW).state is state


def test_rule2_applies_to_each_mutation_separately() -> None:
    both = claim([mutation("m1", when=0), mutation("m2", when=8)])
    verdict = decide(both, Facts.of([item(evidence(when=7, covers=("m1", "m2")))]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert [(u.mutation, u.code) for u in verdict.unmet] == [("m2", "before_mutation")]


def test_rule2_each_judgement_names_the_items_it_ruled_out_and_why() -> None:
    """Reporters (the time line) show per item what the engine said: it counts for m1 and
    is before m2; a stale item is ruled out as stale for both."""
    both = claim([mutation("m1", when=0), mutation("m2", when=8)])
    stale = evidence(when=-POLICY.max_age_for(CheckType.STATE_READBACK) - 60, covers=("m1",))
    facts = Facts.of([item(evidence(when=7, covers=("m1", "m2"))), item(stale)])
    requiring = replace(POLICY, requires=(CheckType.STATE_READBACK,))
    judgements = {j.subject: j for j in decide(both, facts, requiring, NOW).judgements}
    assert judgements["mutation m1"].supporting == (0,)
    assert judgements["mutation m1"].rejected == ((1, "stale"),)
    assert judgements["mutation m2"].rejected == ((0, "before_mutation"),)
    assert judgements["requirement state_readback"].rejected == (
        (0, "before_mutation"), (1, "stale"))


# Rule 3: every mutation must be covered by counting independent evidence.

def test_rule3_an_uncovered_mutation_leaves_the_claim_unverified() -> None:
    two = claim([mutation("m1"), mutation("m2", when=1)])
    verdict = decide(two, Facts.of([item(evidence(covers=("m1",)))]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert [(u.mutation, u.code) for u in verdict.unmet] == [("m2", "no_evidence")]


def test_rule3_evidence_naming_an_unknown_mutation_covers_nothing() -> None:
    verdict = decide(claim(), Facts.of([item(evidence(covers=("m9",)))]), POLICY, NOW)
    assert codes(verdict) == ["no_evidence"]


def test_rule3_test_run_without_covers_covers_code_changes_only() -> None:
    code_and_state = claim([mutation("c1", kind="file_edit", target="app.py"),
                            mutation("s1", kind="state_write")])
    run = evidence(covers=(), check_type=CheckType.TEST_RUN, verifier="ci/junit")
    verdict = decide(code_and_state, Facts.of([item(run)]), POLICY, NOW)
    assert [(u.mutation, u.code) for u in verdict.unmet] == [("s1", "no_evidence")]
    assert verdict.assessments[0].supports == ("c1",)



def test_rule3_the_policy_chooses_which_kinds_a_test_run_covers() -> None:
    """`code_change_kinds` is configurable: a kind left out stays unmet, one added is covered."""
    mutations = claim([mutation("c1", kind="file_edit", target="app.py"),
                       mutation("g1", kind="schema_migration")])
    run = evidence(covers=(), check_type=CheckType.TEST_RUN, verifier="ci/junit")
    policy = replace(POLICY, code_change_kinds=("schema_migration",))
    verdict = decide(mutations, Facts.of([item(run)]), policy, NOW)
    assert [(u.mutation, u.code) for u in verdict.unmet] == [("c1", "no_evidence")]
    assert verdict.assessments[0].supports == ("g1",)


# Rule 4: absence is unverified, never verified.

def test_rule4_no_evidence_is_unverified() -> None:
    verdict = decide(claim(), Facts.of([]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["no_evidence"]


def test_rule4_a_claim_with_nothing_to_check_is_not_verified() -> None:
    verdict = decide(claim(mutations=[]), Facts.of([]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["no_evidence"]
    assert "never verified" in verdict.unmet[0].message


def test_rule4_a_required_check_with_no_mutations_can_verify() -> None:
    policy = replace(POLICY, requires=(CheckType.TEST_RUN,))
    run = evidence(covers=(), check_type=CheckType.TEST_RUN)
    verdict = decide(claim(mutations=[]), Facts.of([item(run)]), policy, NOW)
    assert verdict.state is VerdictState.VERIFIED


# Rule 5: evidence older than max_age_s at decision time counts as absent.

def test_rule5_age_exactly_the_limit_still_counts() -> None:
    now = at(7 + 300)
    verdict = decide(claim(), Facts.of([item(evidence(when=7))]), POLICY, now)
    assert verdict.state is VerdictState.VERIFIED


def test_rule5_older_than_the_limit_is_stale() -> None:
    now = at(7 + 300) + timedelta(microseconds=1)
    verdict = decide(claim(), Facts.of([item(evidence(when=7))]), POLICY, now)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["stale"]


def test_rule5_limits_are_per_check_type() -> None:
    """The default lets a CI test run count for a day but a readback only for minutes."""
    code = claim([mutation("c1", kind="code_change")])
    run = evidence(covers=("c1",), check_type=CheckType.TEST_RUN)
    assert decide(code, Facts.of([item(run)]), POLICY, at(3600)).state is VerdictState.VERIFIED
    readback = evidence(covers=("m1",))
    verdict = decide(claim(), Facts.of([item(readback)]), POLICY, at(3600))
    assert codes(verdict) == ["stale"]


def test_evidence_from_the_future_never_counts() -> None:
    verdict = decide(claim(), Facts.of([item(evidence(when=11))]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["from_future"]
    assert "future" in verdict.unmet[0].message


# Rule 6: refuted needs a contradicting observation.

def contradicting(when: float = 7.0, kind: VerifierKind = VerifierKind.INDEPENDENT,
                  covers: tuple[str, ...] = ("m1",)) -> Evidence:
    """A readback that observed another zip than the claim expected."""
    return evidence(when=when, kind=kind, covers=covers, expected={"billing_zip": "94107"},
                    observed={"billing_zip": "10001"})


def test_rule6_independent_fresh_contradiction_refutes() -> None:
    verdict = decide(claim(), Facts.of([item(contradicting())]), POLICY, NOW)
    assert verdict.state is VerdictState.REFUTED
    assert codes(verdict) == ["contradicted"]
    assert "billing_zip: expected '94107', observed '10001'" in verdict.unmet[0].message


def test_rule6_a_missing_field_is_a_contradiction() -> None:
    record = evidence(expected={"billing_zip": "94107"}, observed={"name": "Ada"})
    verdict = decide(claim(), Facts.of([item(record)]), POLICY, NOW)
    assert verdict.state is VerdictState.REFUTED
    assert "field absent" in verdict.unmet[0].message


def test_rule6_extra_observed_fields_are_not_a_contradiction() -> None:
    record = evidence(expected={"billing_zip": "94107"},
                      observed={"billing_zip": "94107", "city": "San Francisco"})
    assert decide(claim(), Facts.of([item(record)]), POLICY, NOW).state is VerdictState.VERIFIED


def test_rule6_true_is_not_one() -> None:
    record = evidence(expected={"active": True}, observed={"active": 1})
    assert decide(claim(), Facts.of([item(record)]), POLICY, NOW).state is VerdictState.REFUTED


def test_rule6_nested_objects_compare_field_by_field() -> None:
    record = evidence(expected={"address": {"zip": "94107"}},
                      observed={"address": {"zip": "94107", "city": "SF"}})
    assert decide(claim(), Facts.of([item(record)]), POLICY, NOW).state is VerdictState.VERIFIED


@pytest.mark.parametrize(
    ("when", "kind", "code"),
    [
        (7.0, VerifierKind.SELF_ATTESTED, "self_attested_only"),
        (-1.0, VerifierKind.INDEPENDENT, "before_mutation"),
    ],
)
def test_rule6_contradiction_that_does_not_count_is_not_refuted(
    when: float, kind: VerifierKind, code: str
) -> None:
    verdict = decide(claim(), Facts.of([item(contradicting(when=when, kind=kind))]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == [code]


def test_rule6_stale_contradiction_is_not_refuted() -> None:
    verdict = decide(claim(), Facts.of([item(contradicting())]), POLICY, at(7 + 301))
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["stale"]


def test_rule6_contradiction_in_the_claim_file_is_not_refuted() -> None:
    agent_written = claim(claim_evidence=[contradicting()])
    assert decide(agent_written, Facts.of([]), POLICY, NOW).state is VerdictState.UNVERIFIED


def test_rule6_refuted_outranks_unverified() -> None:
    two = claim([mutation("m1"), mutation("m2")])
    verdict = decide(two, Facts.of([item(contradicting(covers=("m1",)))]), POLICY, NOW)
    assert verdict.state is VerdictState.REFUTED
    assert sorted(codes(verdict)) == ["contradicted", "no_evidence"]
    assert verdict.reason.startswith("refuted: mutation m1")


def test_rule6_a_contradiction_outranks_agreeing_evidence() -> None:
    agreeing = evidence(expected={"billing_zip": "94107"}, observed={"billing_zip": "94107"})
    verdict = decide(claim(), Facts.of([item(agreeing), item(contradicting())]), POLICY, NOW)
    assert verdict.state is VerdictState.REFUTED


def test_expected_without_an_observation_does_not_count() -> None:
    record = evidence(expected={"billing_zip": "94107"}, has_observed=False)
    verdict = decide(claim(), Facts.of([item(record)]), POLICY, NOW)
    assert codes(verdict) == ["no_observation"]


# Requirements, disqualification and the policy.

def test_every_required_check_type_needs_counting_evidence() -> None:
    policy = replace(POLICY, requires=(CheckType.ENDPOINT_HEALTH,))
    verdict = decide(claim(), Facts.of([item(evidence())]), policy, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert [(u.requirement, u.code) for u in verdict.unmet] == [
        (CheckType.ENDPOINT_HEALTH, "missing_check_type")
    ]


def test_a_requirement_is_not_met_by_evidence_before_the_mutations_it_covers() -> None:
    policy = replace(POLICY, requires=(CheckType.STATE_READBACK,))
    verdict = decide(claim(), Facts.of([item(evidence(when=-1))]), policy, NOW)
    assert sorted(codes(verdict)) == ["before_mutation", "before_mutation"]


def test_a_disqualified_item_never_counts_and_says_why() -> None:
    reason = Disqualification("other_commit", "the run tested commit abc, not the head def")
    verdict = decide(claim(), Facts.of([item(evidence(), disqualified=reason)]), POLICY, NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == ["other_commit"]
    assert "not the head def" in verdict.unmet[0].message


def test_the_claims_policy_can_only_tighten() -> None:
    operator = Policy(id="ops", requires=(CheckType.STATE_READBACK,))
    loosening = PolicyRequest(id="agent", requires=(), max_age_s=dict.fromkeys(CheckType, 10**9))
    verdict = decide(claim(policy=loosening), Facts.of([]), operator, NOW)
    assert verdict.policy.requires == (CheckType.STATE_READBACK,)
    assert verdict.policy.max_age_s == operator.max_age_s
    assert verdict.policy.id == "ops"


def test_the_claims_policy_tightens() -> None:
    stricter = PolicyRequest(id=None, requires=(CheckType.ENDPOINT_HEALTH,),
                             max_age_s={CheckType.STATE_READBACK: 5})
    verdict = decide(claim(policy=stricter), Facts.of([item(evidence(when=1))]), POLICY, NOW)
    assert verdict.policy.requires == (CheckType.ENDPOINT_HEALTH,)
    assert verdict.policy.max_age_s[CheckType.STATE_READBACK] == 5
    assert verdict.policy.id == "claim-gate-default+claim"
    assert sorted(codes(verdict)) == ["missing_check_type", "stale"]


def test_the_verdict_records_who_decided_and_when() -> None:
    verdict = decide(claim(), Facts.of([item(evidence())]), POLICY, NOW)
    assert verdict.decided_at == NOW
    assert verdict.decided_by.startswith("claim-gate/")
    assert len(verdict.policy.digest) == 64


def test_a_naive_decision_time_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        decide(claim(), Facts.of([]), POLICY, datetime(2026, 1, 1))
