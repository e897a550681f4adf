"""Issue 21 item 6, the engine's rule: the test job hands on test evidence only, and a record
the test job wrote is no operator record. Each refusal beside the record that counts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.claim.facts import JUNIT_REPORT_FIELD, EvidenceItem, Facts, Origin
from gate.claim.model import CheckType, Evidence, VerdictState, VerifierKind
from gate.claim.policy import default_policy
from gate.claim.test_job import INVENTORY_FIELD, PLUGIN_VERSION_FIELD
from gate.engine.decide import decide
from gate.engine.results import Verdict
from tests.builders import at, claim, evidence, mutation
from tests.inventory_support import clean_inventory

NOW = at(10)
POLICY = default_policy()
PLUGIN = "claim-gate/pytest@0.1.0"
EDIT = mutation("m1", kind="file_edit", target="calc.py")
WRITE = mutation("w1", kind="state_write", target="accounts/1")


def plugin_run(**extensions: Any) -> Evidence:
    run = evidence(check_type=CheckType.TEST_RUN, covers=(), verifier=PLUGIN)
    return replace(run, extensions={INVENTORY_FIELD: clean_inventory(), **extensions})


def readback() -> Evidence:
    return evidence(covers=("w1",), expected={"balance": 10}, observed={"balance": 10})


def handed(record: Evidence, origin: Origin, index: int = 1) -> EvidenceItem:
    return EvidenceItem(record, origin, f"out/{origin}.json", place=f"record {index} at 1:2")


def verdict_of(*items: EvidenceItem, mutations: tuple[Any, ...] = (EDIT,)) -> Verdict:
    return decide(claim(mutations), Facts.of(items), POLICY, NOW)


def codes(verdict: Verdict) -> set[str]:
    return {entry.code for entry in verdict.unmet}


def test_control_the_plugins_run_from_the_test_job_and_an_operator_readback_verify() -> None:
    verdict = verdict_of(handed(plugin_run(), Origin.TEST_JOB),
                         handed(readback(), Origin.OPERATOR), mutations=(EDIT, WRITE))
    assert (verdict.state, verdict.unmet) == (VerdictState.VERIFIED, ())


@pytest.mark.parametrize(("name", "record"), [
    ("a state_readback", readback()),
    ("a test run under an operator's verifier id",
     evidence(check_type=CheckType.TEST_RUN, covers=(), verifier="ops/ci-tests")),
    ("a test run under the plugin's id without its inventory",
     evidence(check_type=CheckType.TEST_RUN, covers=(), verifier=PLUGIN)),
    ("the plugin's inventory on another check type",
     replace(readback(), verifier=replace(readback().verifier, id=PLUGIN),
             extensions={INVENTORY_FIELD: clean_inventory()})),
    ("an endpoint_health",
     evidence(check_type=CheckType.ENDPOINT_HEALTH, covers=("w1",), verifier="ops/health")),
])
def test_the_test_job_hands_on_the_plugins_test_runs_only(name: str, record: Evidence) -> None:
    verdict = verdict_of(handed(plugin_run(), Origin.TEST_JOB),
                         handed(record, Origin.TEST_JOB, index=2), mutations=(EDIT, WRITE))
    assert verdict.state is VerdictState.UNVERIFIED, name
    assert "not_test_evidence" in codes(verdict)
    [rule] = [u for u in verdict.unmet if u.mutation is None and u.requirement is None]
    assert "1 record the test job handed on could not be trusted" in rule.message
    assert "out/test_job.json (record 2 at 1:2)" in rule.message
    refused = verdict.items[1]
    assert refused.disqualified is not None
    assert refused.disqualified.code == "not_test_evidence"
    assert refused.evidence.verifier.kind is VerifierKind.SELF_ATTESTED, "the agent's word"


def test_a_refused_record_leaves_the_claim_unverified_when_everything_else_counts() -> None:
    """Not dropped as if absent: the code change is covered, and still the claim is not verified."""
    stray = evidence(check_type=CheckType.STATE_READBACK, covers=(), verifier="ops/reader",
                     expected={"a": 1}, observed={"a": 1})
    verdict = verdict_of(handed(plugin_run(), Origin.TEST_JOB),
                         handed(stray, Origin.TEST_JOB, index=2))
    assert (verdict.state, codes(verdict)) == (VerdictState.UNVERIFIED, {"not_test_evidence"})
    control = verdict_of(handed(plugin_run(), Origin.TEST_JOB))
    assert control.state is VerdictState.VERIFIED


def test_a_contradiction_the_test_job_adds_refutes_nothing() -> None:
    """A failing readback the agent's code wrote is no observation either: unverified."""
    contradicting = evidence(covers=("w1",), expected={"balance": 10}, observed={"balance": 9})
    verdict = verdict_of(handed(plugin_run(), Origin.TEST_JOB),
                         handed(contradicting, Origin.TEST_JOB, index=2), mutations=(EDIT, WRITE))
    assert verdict.state is VerdictState.UNVERIFIED
    assert codes(verdict) == {"not_test_evidence"}
    assert verdict_of(handed(contradicting, Origin.OPERATOR), mutations=(WRITE,)).state \
        is VerdictState.REFUTED  # control: the operator's own readback refutes


@pytest.mark.parametrize("mark", ["verifier", INVENTORY_FIELD, JUNIT_REPORT_FIELD,
                                  PLUGIN_VERSION_FIELD])
def test_a_record_with_the_plugins_marks_is_no_operator_record(mark: str) -> None:
    run = evidence(check_type=CheckType.TEST_RUN, covers=(), verifier="ops/ci-tests")
    if mark == "verifier":
        run = replace(run, verifier=replace(run.verifier, id=PLUGIN))
    else:
        run = replace(run, extensions={mark: {"path": "out/junit.xml"}})
    verdict = verdict_of(handed(run, Origin.OPERATOR))
    assert (verdict.state, codes(verdict)) == (VerdictState.UNVERIFIED, {"test_job_record"})
    assert "--test-evidence" in verdict.unmet[0].message
    assert "1 test-job record passed as operator evidence" in verdict.unmet[-1].message


def test_control_an_operator_test_run_without_the_plugins_marks_counts() -> None:
    run = evidence(check_type=CheckType.TEST_RUN, covers=(), verifier="ops/ci-tests")
    assert verdict_of(handed(run, Origin.OPERATOR)).state is VerdictState.VERIFIED


def test_many_refusals_are_counted_and_shown_three_at_a_time() -> None:
    strays = [handed(readback(), Origin.TEST_JOB, index=n) for n in range(2, 7)]
    verdict = verdict_of(handed(plugin_run(), Origin.TEST_JOB), *strays,
                         mutations=(EDIT, WRITE))
    [rule] = [u for u in verdict.unmet if u.mutation is None and u.requirement is None]
    assert rule.message.startswith("5 records the test job handed on could not be trusted")
    assert rule.message.endswith("; and 2 more")
