"""The plugin's pure logic: tallying outcomes, reading porcelain, the CI fallback, the record."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gate.claim.commit import normalise_sha
from gate.claim.schema import schema_errors
from gate.evidence.pytest_record import (
    MAX_LISTED_TESTS,
    MAX_NODE_ID_CHARS,
    SETTLE_EVERY,
    SessionFacts,
    Tally,
    TreeState,
    build_record,
    commit_from_environment,
    dirty_paths,
    junit_properties,
    porcelain_paths,
)

SHA = "0123456789abcdef0123456789abcdef01234567"
START = datetime(2026, 8, 27, 18, 4, 2, 123456, tzinfo=UTC)
END = datetime(2026, 8, 27, 18, 4, 9, tzinfo=UTC)


def _passing(tally: Tally, nodeid: str) -> None:
    for when in ("setup", "call", "teardown"):
        tally.add(nodeid, when, "passed")


def test_each_test_counts_once_by_its_most_severe_phase() -> None:
    tally = Tally()
    _passing(tally, "t.py::ok")
    tally.add("t.py::fails", "setup", "passed")
    tally.add("t.py::fails", "call", "failed")
    tally.add("t.py::fails", "teardown", "passed")
    tally.add("t.py::setup_error", "setup", "failed")
    tally.add("t.py::setup_error", "teardown", "passed")
    tally.add("t.py::fails_and_teardown_error", "call", "failed")
    tally.add("t.py::fails_and_teardown_error", "teardown", "failed")
    tally.add("t.py::skipped", "setup", "skipped")
    tally.add("t.py::skipped", "teardown", "passed")
    totals = tally.totals()
    assert (totals.tests, totals.passed, totals.failures, totals.errors, totals.skipped) == (
        5, 1, 1, 2, 1,
    )
    assert totals.failed_tests == ("t.py::fails",)
    assert totals.errored_tests == ("t.py::setup_error", "t.py::fails_and_teardown_error")
    assert totals.executed == 4


def test_a_rerun_test_is_decided_by_its_last_attempt_and_flagged_flaky() -> None:
    tally = Tally()
    tally.add("t.py::flaky", "setup", "passed")
    tally.add("t.py::flaky", "call", "rerun")
    _passing(tally, "t.py::flaky")
    tally.add("t.py::broken", "setup", "passed")
    tally.add("t.py::broken", "call", "rerun")
    tally.add("t.py::broken", "setup", "passed")
    tally.add("t.py::broken", "call", "failed")
    totals = tally.totals()
    assert (totals.tests, totals.passed, totals.failures, totals.flaky) == (2, 1, 1, 1)


def test_reports_held_past_the_settling_point_count_in_order_as_if_counted_at_once() -> None:
    # The tally holds reports and counts them in batches: a rerun whose attempts straddle a
    # batch, and a collection error and the totals read mid-batch, see every report so far.
    tally = Tally()
    tests = SETTLE_EVERY // 3
    for n in range(tests):
        _passing(tally, f"t.py::ok{n}")
    tally.add("t.py::flaky", "setup", "passed")
    tally.add("t.py::flaky", "call", "rerun")  # the batch is counted about here
    tally.add("t.py::flaky", "setup", "passed")
    tally.add("t.py::flaky", "call", "failed")
    tally.add("t.py::flaky", "teardown", "passed")
    tally.add("t.py::late", "setup", "passed")
    tally.add("t.py::late", "call", "failed")
    tally.add_collection_error("t.py")
    totals = tally.totals()
    assert (totals.tests, totals.passed, totals.failures, totals.errors, totals.flaky,
            totals.rerun_tests) == (tests + 3, tests, 2, 1, 0, 1)
    assert totals.failed_tests == ("t.py::flaky", "t.py::late")
    assert totals.unfinished_tests == ()  # the failing one stands as it is


def test_a_test_passes_only_with_its_call_report() -> None:
    """Issue 21 item 5: a session ended after a test's setup (pytest.exit, os._exit in a
    worker) did not pass that test; a test without its teardown report did not finish, and a
    collected test that never reported is named too."""
    tally = Tally()
    tally.collected(["t.py::ok", "t.py::ended_in", "t.py::never", "t.py::no_teardown"])
    _passing(tally, "t.py::ok")
    tally.add("t.py::ended_in", "setup", "passed")
    tally.add("t.py::no_teardown", "setup", "passed")
    tally.add("t.py::no_teardown", "call", "passed")
    totals = tally.totals()
    assert (totals.tests, totals.passed, totals.collected) == (2, 2, 4)
    assert totals.unfinished_tests == ("t.py::ended_in", "t.py::never", "t.py::no_teardown")
    assert totals.unfinished == 3


def test_a_finished_session_has_nothing_unfinished() -> None:
    """The control: every collected test with its teardown, a setup skip and a setup error
    among them (they have no call report, and need none), and a failure without teardown
    (its failure stands)."""
    tally = Tally()
    tally.collected(["t.py::ok", "t.py::skip", "t.py::error", "t.py::fails"])
    _passing(tally, "t.py::ok")
    tally.add("t.py::skip", "setup", "skipped")
    tally.add("t.py::skip", "teardown", "passed")
    tally.add("t.py::error", "setup", "failed")
    tally.add("t.py::error", "teardown", "passed")
    tally.add("t.py::fails", "setup", "passed")
    tally.add("t.py::fails", "call", "failed")
    totals = tally.totals()
    assert (totals.tests, totals.passed, totals.skipped, totals.errors, totals.failures) == (
        4, 1, 1, 1, 1)
    assert (totals.collected, totals.unfinished, totals.unfinished_tests) == (4, 0, ())


def test_xdist_workers_each_say_what_they_collected() -> None:
    tally = Tally()
    assert tally.totals().collected is None  # no collection reported at all
    tally.collected(["t.py::a", "t.py::b"])
    tally.collected(["t.py::b", "t.py::a"])
    assert tally.totals().collected == 2


def test_collection_errors_are_errors() -> None:
    tally = Tally()
    tally.add_collection_error("tests/test_broken.py")
    tally.add_collection_error("")
    totals = tally.totals()
    assert totals.errors == 2
    assert totals.errored_tests == ("tests/test_broken.py", "<collection>")


def test_listed_node_ids_are_capped_so_the_record_stays_small() -> None:
    tally = Tally()
    for index in range(MAX_LISTED_TESTS + 50):
        tally.add(f"t.py::test_{index}[{'x' * 1000}]", "call", "failed")
    totals = tally.totals()
    assert totals.failures == MAX_LISTED_TESTS + 50
    assert len(totals.failed_tests) == MAX_LISTED_TESTS
    assert all(len(node) == MAX_NODE_ID_CHARS for node in totals.failed_tests)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SHA, SHA),
        (SHA.upper(), SHA),
        (f" {SHA}\n", SHA),
        ("ab" * 32, "ab" * 32),
        (SHA[:12], None),
        ("HEAD", None),
        ("", None),
        (None, None),
        (12345, None),
        ("g" * 40, None),
    ],
)
def test_only_full_commit_ids_are_commits(text: object, expected: str | None) -> None:
    assert normalise_sha(text) == expected


def test_the_ci_variable_names_the_commit_when_there_is_no_git() -> None:
    found = commit_from_environment({"CIRCLE_SHA1": SHA, "BUILDKITE_COMMIT": "HEAD"})
    assert found == TreeState(SHA, "env:CIRCLE_SHA1", None)
    first = commit_from_environment({"GITHUB_SHA": SHA, "CI_COMMIT_SHA": "f" * 40})
    assert first.source == "env:GITHUB_SHA"
    # Buildkite may say HEAD: that is not a commit, and nothing else is set.
    unknown = commit_from_environment({"BUILDKITE_COMMIT": "HEAD"})
    assert unknown.commit is None
    assert unknown.problem


def test_porcelain_paths_include_both_sides_of_a_rename() -> None:
    output = b" M src/a.py\0R  new name.py\0old name.py\0?? out/evidence.json\0"
    assert porcelain_paths(output) == ("src/a.py", "new name.py", "old name.py",
                                       "out/evidence.json")
    assert porcelain_paths(b"") == ()


def test_own_outputs_and_bytecode_caches_do_not_make_the_tree_dirty() -> None:
    output = (
        b"?? out/evidence.json\0?? reports/junit.xml\0?? pkg/__pycache__/m.cpython-311.pyc\0"
        b"?? __pycache__/c.pyc\0"
    )
    assert dirty_paths(output, ["out/evidence.json", "reports/junit.xml"]) == ()
    assert dirty_paths(output + b" M conftest.py\0", ["out/evidence.json"]) == (
        "reports/junit.xml", "conftest.py",
    )


def _facts(tree: TreeState, **changes: object) -> SessionFacts:
    tally = Tally()
    _passing(tally, "t.py::ok")
    tally.add("t.py::bad", "call", "failed")
    values: dict[str, object] = {
        "started_at": START, "finished_at": END, "totals": tally.totals(), "tree": tree,
        "exit_status": 1, "pytest_version": "9.0.3", "plugin_version": "0.1.0",
        "python_version": "3.11.7", "test_paths": ("tests",),
    }
    values.update(changes)
    return SessionFacts(**values)  # type: ignore[arg-type]


def test_the_record_is_a_valid_test_run_bound_to_its_commit() -> None:
    record = build_record(_facts(TreeState(SHA, "git", True), workers=2))
    assert list(schema_errors(record, "#/$defs/evidence")) == []
    assert record == {
        "check_type": "test_run",
        "expected": {"failures": 0, "errors": 0},
        "observed_value": {
            "tests": 2, "passed": 1, "failures": 1, "errors": 0, "skipped": 0, "flaky": 0,
            "failed_tests": ["t.py::bad"], "errored_tests": [], "exit_status": 1,
            "unfinished": 0, "unfinished_tests": [], "interrupted": False,
        },
        "at": "2026-08-27T18:04:02.123456Z",
        "covers": [],
        "verifier": {"id": "claim-gate/pytest@0.1.0", "kind": "independent"},
        "x-finished-at": "2026-08-27T18:04:09Z",
        "x-commit": SHA,
        "x-commit-source": "git",
        "x-tree-clean": True,
        "x-pytest-version": "9.0.3",
        "x-plugin-version": "0.1.0",
        "x-python-version": "3.11.7",
        "x-test-paths": ["tests"],
        "x-xdist-workers": 2,
    }


def test_a_dirty_or_unknown_tree_says_so_in_the_record() -> None:
    dirty = build_record(_facts(TreeState(SHA, "git", False, ("a.py",) * 30)))
    assert dirty["x-tree-clean"] is False
    assert dirty["x-dirty-paths"] == ["a.py"] * 20
    unknown = build_record(_facts(TreeState(None, None, None, problem="git is not installed")))
    assert unknown["x-commit"] is None
    assert unknown["x-commit-problem"] == "git is not installed"
    for record in (dirty, unknown):
        assert list(schema_errors(record, "#/$defs/evidence")) == []


def test_a_naive_start_time_is_refused() -> None:
    with pytest.raises(ValueError, match="naive"):
        build_record(_facts(TreeState(SHA, "git", True), started_at=datetime(2026, 1, 1)))


def test_junit_properties_carry_the_binding() -> None:
    assert junit_properties(TreeState(SHA, "git", False), START) == (
        ("claim-gate.commit", SHA),
        ("claim-gate.tree_clean", "false"),
        ("claim-gate.started_at", "2026-08-27T18:04:02.123456Z"),
    )
    assert junit_properties(TreeState(None, None, None), START)[:2] == (
        ("claim-gate.commit", "unknown"), ("claim-gate.tree_clean", "unknown"),
    )
