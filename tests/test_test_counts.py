"""Issue 16 item 4: the gate reads a test_run's counts, not the record's `expected`; a narrowed
run is not the suite's result; a test_run covers only code changes. Each attack beside its
honest control, decided by the engine."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.claim.facts import Facts
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from tests.builders import PASSING_RUN, at, claim, evidence, item, mutation

POLICY = default_policy()
CODE = mutation("c1", kind="commit")
WRITE = mutation("w1", kind="state_write")


def _decide(observed: Any, expected: Any = None, covers: tuple[str, ...] = (),
            mutations: tuple[Any, ...] = (CODE,), **extensions: Any) -> tuple[str, set[str]]:
    run = evidence(check_type=CheckType.TEST_RUN, covers=covers, observed=observed,
                   expected=expected)
    run = replace(run, extensions=extensions)
    verdict = decide(claim(list(mutations)), Facts.of([item(run)]), POLICY, at(60))
    return verdict.state, {u.code for u in verdict.unmet}


CASES = [
    # (name, observed, expected, extensions, state, codes)
    ("control", PASSING_RUN, None, {}, VerdictState.VERIFIED, set()),
    ("control with expected", PASSING_RUN, {"failures": 0}, {}, VerdictState.VERIFIED, set()),
    ("failing, lenient expected", {"tests": 5, "failures": 3}, {"failures": 3}, {},
     VerdictState.REFUTED, {"contradicted"}),
    ("failing, no expected", {"tests": 5, "failures": 3}, None, {},
     VerdictState.REFUTED, {"contradicted"}),
    ("errors, expected says nothing of them", {"tests": 5, "failures": 0, "errors": 2},
     {"failures": 0}, {}, VerdictState.REFUTED, {"contradicted"}),
    ("no counts", {"result": "all good"}, None, {}, VerdictState.UNVERIFIED,
     {"no_test_counts"}),
    ("nothing executed", {"tests": 4, "failures": 0, "skipped": 4}, None, {},
     VerdictState.UNVERIFIED, {"no_tests"}),
    ("interrupted", {"tests": 4, "failures": 0, "exit_status": 2}, None, {},
     VerdictState.UNVERIFIED, {"incomplete_run"}),
    ("-k narrowed", PASSING_RUN, None, {"x-selection": {"keyword": "not slow"}},
     VerdictState.UNVERIFIED, {"narrowed_selection"}),
    ("--deselect", PASSING_RUN, None, {"x-selection": {"deselect": ["t.py::test_a"]}},
     VerdictState.UNVERIFIED, {"narrowed_selection"}),
    ("a test id as path", PASSING_RUN, None, {"x-test-paths": ["tests/t.py::test_ok"]},
     VerdictState.UNVERIFIED, {"narrowed_selection"}),
    # a run's own failures stand whatever else is wrong with it (issue 24 item 13)
    ("-k narrowed, failing", {"tests": 5, "failures": 1}, None,
     {"x-selection": {"keyword": "not slow"}}, VerdictState.REFUTED, {"contradicted"}),
    ("interrupted, failing", {"tests": 4, "failures": 1, "exit_status": 2}, None, {},
     VerdictState.REFUTED, {"contradicted"}),
    ("nothing ran but an error", {"tests": 0, "failures": 0, "errors": 1}, None, {},
     VerdictState.REFUTED, {"contradicted"}),
    ("--ff only reorders", PASSING_RUN, None, {"x-selection": {"failedfirst": True}},
     VerdictState.VERIFIED, set()),
    ("whole directories", PASSING_RUN, None, {"x-test-paths": ["tests", "src"]},
     VerdictState.VERIFIED, set()),
    # issue 21 item 5: complete runs only
    ("every collected test reported", {**PASSING_RUN, "collected": PASSING_RUN["tests"],
                                       "unfinished": 0, "interrupted": False}, None, {},
     VerdictState.VERIFIED, set()),
    ("pytest.exit(returncode=0)", {"tests": 4, "failures": 0, "exit_status": 0,
                                   "interrupted": True}, None,
     {"x-interrupted-by": "pytest.exit: done (returncode=0)"},
     VerdictState.UNVERIFIED, {"incomplete_run"}),
    ("collected more than reported", {"tests": 4, "failures": 0, "exit_status": 0,
                                      "collected": 5}, None, {},
     VerdictState.UNVERIFIED, {"incomplete_run"}),
    ("a test named unfinished", {"tests": 4, "failures": 0, "exit_status": 0, "collected": 4,
                                 "unfinished": 1, "unfinished_tests": ["t.py::test_e"]}, None,
     {}, VerdictState.UNVERIFIED, {"incomplete_run"}),
    ("ended early, failing", {"tests": 4, "failures": 1, "exit_status": 0, "collected": 9,
                              "interrupted": True}, None, {},
     VerdictState.REFUTED, {"contradicted"}),
]


@pytest.mark.parametrize(("observed", "expected", "extensions", "state", "codes"),
                         [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_the_gate_reads_the_counts(observed: Any, expected: Any, extensions: dict[str, Any],
                                   state: VerdictState, codes: set[str]) -> None:
    assert _decide(observed, expected, **extensions) == (state, codes)


def test_a_test_run_never_covers_a_state_write() -> None:
    # Control: the state write backed by its own readback, the code by the run.
    readback = evidence(check_type=CheckType.STATE_READBACK, covers=("w1",), when=30)
    run = evidence(check_type=CheckType.TEST_RUN, covers=("c1", "w1"))
    both = claim([CODE, WRITE])
    verdict = decide(both, Facts.of([item(run), item(readback)]), POLICY, at(60))
    assert verdict.state is VerdictState.VERIFIED
    # Attack: the run alone "covers" the state write too.
    verdict = decide(both, Facts.of([item(run)]), POLICY, at(60))
    assert verdict.state is VerdictState.UNVERIFIED
    assert [(u.code, u.mutation) for u in verdict.unmet] == [("no_evidence", "w1")]
    deploy = mutation("d1", kind="deploy")
    only = decide(claim([deploy]), Facts.of([item(replace(run, covers=("d1",)))]), POLICY,
                  at(60))
    assert [(u.code, u.mutation) for u in only.unmet] == [("no_evidence", "d1")]


def test_an_unfinished_run_names_what_did_not_report() -> None:
    observed = {"tests": 1, "failures": 0, "exit_status": 0, "collected": 3, "unfinished": 2,
                "unfinished_tests": ["t.py::test_b", "t.py::test_c"]}
    run = evidence(check_type=CheckType.TEST_RUN, covers=(), observed=observed)
    verdict = decide(claim([CODE]), Facts.of([item(run)]), POLICY, at(60))
    message = {u.code: u.message for u in verdict.unmet}["incomplete_run"]
    assert "2 of 3 collected tests did not finish with a result: t.py::test_b, t.py::test_c" \
        in message
    ended = evidence(check_type=CheckType.TEST_RUN, covers=(),
                     observed={**observed, "interrupted": True})
    ended = replace(ended, extensions={"x-interrupted-by": "pytest.exit: done (returncode=0)"})
    verdict = decide(claim([CODE]), Facts.of([item(ended)]), POLICY, at(60))
    message = {u.code: u.message for u in verdict.unmet}["incomplete_run"]
    assert "ended before its end (pytest.exit: done (returncode=0))" in message
