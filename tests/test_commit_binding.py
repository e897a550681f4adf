"""The gate side: which operator test runs are about the commit under review."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from gate.claim.codec import parse_evidence
from gate.claim.commit import parse_commit_sha
from gate.engine.test_counts import count_problem
from gate.evidence.commit_binding import check_record
from gate.evidence.operator_records import qualify
from tests.inventory_support import clean_inventory

HEAD = "a" * 40
OTHER = "b" * 40


def _record(**extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "check_type": "test_run",
        "expected": {"failures": 0, "errors": 0},
        "observed_value": {"tests": 3, "passed": 3, "failures": 0, "errors": 0, "skipped": 0,
                           "exit_status": 0},
        "at": datetime(2026, 8, 27, tzinfo=UTC).isoformat(),
        "verifier": {"id": "claim-gate/pytest@0.1.0", "kind": "independent"},
        "x-commit": HEAD,
        "x-tree-clean": True,
        "x-producer-inventory": clean_inventory(),
    }
    record.update(extra)
    return record


def _code(record: dict[str, Any], head: str | None = HEAD) -> str | None:
    found = qualify(parse_evidence(record), head)
    return found.code if found else None


def _counted(record: dict[str, Any]) -> str | None:
    found = count_problem(parse_evidence(record))
    return found.code if found else None


def test_a_clean_run_on_the_head_counts() -> None:
    assert _code(_record()) is None
    assert _code(_record(**{"x-commit": HEAD.upper()})) is None


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"x-commit": OTHER}, "other_commit"),
        ({"x-tree-clean": False}, "dirty_tree"),
        ({"x-tree-clean": "no"}, "dirty_tree"),
        ({"x-commit": None}, "unbound_commit"),
        ({"x-commit": HEAD[:12]}, "unbound_commit"),
        ({"x-commit": ["not", "a", "sha"]}, "unbound_commit"),
    ],
)
def test_with_head_sha_other_dirty_and_unbound_runs_do_not_count(
    changes: dict[str, Any], code: str
) -> None:
    assert _code(_record(**changes)) == code


def test_a_record_without_any_binding_is_unbound_when_a_head_is_given() -> None:
    record = _record()
    del record["x-commit"], record["x-tree-clean"]
    found = qualify(parse_evidence(record), HEAD)
    assert found is not None
    assert found.code == "unbound_commit"
    assert "records no commit" in found.message


def test_other_commit_message_names_both_commits() -> None:
    found = check_record(parse_evidence(_record(**{"x-commit": OTHER})), HEAD)
    assert found is not None
    assert "bbbbbbbbbbbb" in found.message
    assert "aaaaaaaaaaaa" in found.message


def test_a_ci_variable_binding_with_unknown_cleanliness_counts() -> None:
    assert _code(_record(**{"x-tree-clean": None})) is None


def test_without_head_sha_the_binding_is_not_checked() -> None:
    assert _code(_record(**{"x-commit": OTHER, "x-tree-clean": False}), None) is None


def test_only_test_runs_are_bound_to_a_commit() -> None:
    record = _record(check_type="endpoint_health")
    del record["x-commit"]
    assert _code(record) is None


@pytest.mark.parametrize(
    ("observed", "code"),
    [
        ({"tests": 0, "failures": 0, "skipped": 0}, "no_tests"),
        ({"tests": 4, "failures": 0, "skipped": 4}, "no_tests"),
        ({"tests": 4, "failures": 0, "skipped": 3, "exit_status": 0}, None),
        ({"tests": 4, "failures": 0, "exit_status": 2}, "incomplete_run"),
        ({"tests": 4, "failures": 0, "exit_status": 3}, "incomplete_run"),
        ({"tests": 4, "exit_status": 1, "failures": 1}, None),  # refuted by the engine
        # Issue 16: a test_run that does not count what ran and failed is no test run.
        ({"tests": True, "failures": 0}, "no_test_counts"),
        ({"tests": 4}, "no_test_counts"),
        ("all good", "no_test_counts"),
    ],
)
def test_runs_that_tested_nothing_or_stopped_early_do_not_count(
    observed: Any, code: str | None
) -> None:
    # Issue 16 item 4 moved this judgement from the record collector into the engine
    # (gate/engine/test_counts.py), where it applies to every producer.
    assert _counted(_record(observed_value=observed)) == code
    assert _code(_record(observed_value=observed), None) is None


def test_an_incomplete_run_counts_for_no_producer() -> None:
    # Issue 16 changed this: the exit status was read only from the plugin's records, so
    # another id was enough to pass an interrupted session off as a run.
    record = _record(observed_value={"tests": 4, "failures": 0, "exit_status": 2})
    record["verifier"] = {"id": "someone-else/1", "kind": "independent"}
    assert _counted(record) == "incomplete_run"


@pytest.mark.parametrize("text", [HEAD, HEAD.upper(), "c" * 64])
def test_head_sha_must_be_a_full_commit_id(text: str) -> None:
    assert parse_commit_sha(text) == text.lower()


@pytest.mark.parametrize("text", ["", "HEAD", HEAD[:7], HEAD + "0", "z" * 40])
def test_abbreviated_or_symbolic_head_shas_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="40 hexadecimal digits"):
        parse_commit_sha(text)


def test_a_record_expresses_its_commit_as_the_binding_every_fact_shares() -> None:
    """The command line's commit binding in the engine's shape: the subject rule finds a
    record on another commit not bound to the head, as `check_record` does first."""
    from gate.claim.facts import EvidenceItem, Facts, Origin
    from gate.claim.subject import Subject
    from gate.engine.binding import bind_to_subject, mismatches
    from gate.evidence.commit_binding import record_fact_binding

    on_head, elsewhere = parse_evidence(_record()), parse_evidence(_record(**{"x-commit": OTHER}))
    bound, other = record_fact_binding(on_head), record_fact_binding(elsewhere)
    assert bound is not None
    assert other is not None
    assert (bound.commit, other.commit) == (HEAD, OTHER)
    assert mismatches(bound, Subject(head_sha=HEAD)) == []
    assert mismatches(other, Subject(head_sha=HEAD))
    assert record_fact_binding(parse_evidence(_record(check_type="state_readback"))) is None
    item = EvidenceItem(elsewhere, Origin.OPERATOR, "record", binding=other)
    judged = bind_to_subject(item, Facts(subject=Subject(head_sha=HEAD)))
    assert judged.disqualified is not None
    assert judged.disqualified.code == "not_bound"
