"""The engine's complete-picture rules over collected facts (issue 10), without GitHub.

A property states the promise over every combination of the facts the collectors record:
no run still going, run that did not succeed, unread artifact, unknown arrival or missing
baseline can leave the verdict `verified`.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from gate.claim.ci_facts import CiObservation, HeadRun, UnreadArtifact
from gate.claim.facts import EvidenceItem, Facts, Origin, Producer
from gate.claim.github_facts import Arrival, PullChanges, PullObservation, TestSetComparison
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import default_policy
from gate.claim.trust_policy import RemovedTests
from gate.engine.bases import decided_for, external_id, protected_bases, refuse_base
from gate.engine.decide import decide
from gate.engine.results import Verdict
from tests.builders import T0, at, claim, evidence, item, mutation

CI = ".github/workflows/ci.yml"
ARRIVED = Arrival("a" * 40, at(-60), "the push")
NOW = at(600)


def _pull(arrival: Arrival = ARRIVED, base: str = "main") -> PullObservation:
    return PullObservation(PullChanges(frozenset({"app.py"}), True), arrival, base)


def _ci_item(conclusion: str | None = "success", base: str | None = "main",
             expected: dict[str, int] | None = None,
             observed: dict[str, int] | None = None) -> EvidenceItem:
    record = evidence(when=5, covers=("m1",), check_type=CheckType.TEST_RUN,
                      verifier="claim-gate/junit@0.1.0", expected=expected, observed=observed)
    return replace(item(record, Origin.GATE), producer=Producer(CI, conclusion, base))


def _decide(facts: Facts) -> Verdict:
    policy = replace(default_policy(), requires=(CheckType.TEST_RUN,))
    return decide(claim([mutation("m1", "file_edit")]), facts, policy, NOW)


def _codes(verdict: Verdict) -> set[str]:
    return {u.code for u in verdict.unmet}


def test_the_honest_facts_verify() -> None:
    runs = (HeadRun("CI #1", CI, "completed", "success"),)
    verdict = _decide(Facts((_ci_item(),), _pull(), (), CiObservation(runs)))
    assert verdict.state is VerdictState.VERIFIED, verdict.reason


def test_a_failed_run_refutes_when_its_tests_fail_but_never_supports() -> None:
    failing = _ci_item("failure", expected={"failures": 0}, observed={"tests": 5, "failures": 2})
    assert _decide(Facts((failing,), _pull())).state is VerdictState.REFUTED
    passing = _ci_item("failure", expected={"failures": 0}, observed={"tests": 5, "failures": 0})
    verdict = _decide(Facts((passing,), _pull()))
    assert verdict.state is VerdictState.UNVERIFIED
    assert "run_not_successful" in _codes(verdict)


def test_a_run_made_for_another_base_neither_supports_nor_refutes() -> None:
    failing = _ci_item(base="copilot/base", expected={"failures": 0},
                       observed={"tests": 5, "failures": 2})
    verdict = _decide(Facts((failing,), _pull()))
    assert verdict.state is VerdictState.UNVERIFIED
    assert "other_base" in _codes(verdict)


def test_only_trusted_workflows_are_waited_for() -> None:
    runs = (HeadRun("Docs #2", ".github/workflows/docs.yml", "in_progress", None),)
    facts = Facts((_ci_item(),), _pull(), (), CiObservation(runs))
    assert "ci_incomplete" in _codes(_decide(facts))
    policy = replace(default_policy(), requires=(CheckType.TEST_RUN,))
    policy = replace(policy, trust=replace(policy.trust, trusted_workflows=(CI,)))
    verdict = decide(claim([mutation("m1", "file_edit")]), facts, policy, NOW)
    assert verdict.state is VerdictState.VERIFIED, verdict.reason


def test_a_missing_baseline_is_unverified_unless_the_owner_only_lists_removals() -> None:
    gone = TestSetComparison(CI, None, note="no finished run of ci.yml on main")
    facts = Facts((_ci_item(),), _pull(), (gone,))
    assert "no_baseline" in _codes(_decide(facts))
    policy = replace(default_policy(), requires=(CheckType.TEST_RUN,))
    policy = replace(policy, trust=replace(policy.trust, removed_tests=RemovedTests.WARN))
    verdict = decide(claim([mutation("m1", "file_edit")]), facts, policy, NOW)
    assert verdict.state is VerdictState.VERIFIED, verdict.reason


_STATUS = st.sampled_from(["queued", "in_progress", "waiting", "completed"])
_CONCLUSION = st.sampled_from([None, "success", "failure", "timed_out", "startup_failure",
                               "cancelled", "skipped", "neutral", "action_required", "stale"])


@given(
    runs=st.lists(st.tuples(_STATUS, _CONCLUSION), max_size=4),
    unread=st.booleans(), arrival_known=st.booleans(), baseline=st.booleans(),
    item_conclusion=_CONCLUSION, item_base=st.sampled_from(["main", "other", None]),
)
def test_no_unread_input_or_unfinished_run_gives_verified(
    runs: list[tuple[str, str | None]], unread: bool, arrival_known: bool, baseline: bool,
    item_conclusion: str | None, item_base: str | None,
) -> None:
    head_runs = tuple(HeadRun(f"run {i}", CI, s, c) for i, (s, c) in enumerate(runs))
    observation = CiObservation(head_runs, (UnreadArtifact("artifact x", CI, "broken"),)
                                if unread else ())
    arrival = ARRIVED if arrival_known else Arrival("a" * 40, None, "activity unreadable")
    sets = () if baseline else (TestSetComparison(CI, None, note="no baseline"),)
    facts = Facts((_ci_item(item_conclusion, item_base),), _pull(arrival), sets, observation)
    verdict = _decide(facts)
    complete = (
        all(s == "completed" and c in ("success", "skipped", "neutral") for s, c in runs)
        and not unread and arrival_known and baseline
        and item_conclusion in (None, "success") and item_base in ("main", None)
    )
    assert (verdict.state is VerdictState.VERIFIED) == complete, verdict.reason


def test_protected_bases_and_what_a_check_says_it_was_decided_for() -> None:
    assert protected_bases((), "main") == ("main",)
    assert protected_bases(("main", "release"), "trunk") == ("main", "release")
    assert protected_bases((), None) == ()
    assert refuse_base("main", ("main",)) is None
    assert "not a protected base ('main')" in (refuse_base("copilot/x", ("main",)) or "")
    assert "could not be learnt" in (refuse_base("main", ()) or "")
    assert decided_for(external_id(12, "release/2.x")) == (12, "release/2.x")
    for text in (None, "", "claim-gate pr=x base=main", "other pr=1 base=main",
                 "claim-gate pr=1 base=", "claim-gate pr=1 main", "claim-gate pr=1 base=a b"):
        assert decided_for(text) is None, text
    assert T0 < NOW
