"""Issue 24 item 13: real suites' JUnit as their writers write it.

(a) A run whose cases show failures is refuted whatever its own count attributes say (pytest
counting a teardown error beside the failure, Surefire 3.0.2 counting reruns, a suite error
with no case); only a report that shows no failure and states some is `count_mismatch`.
(e) A suite-level `<error>` fails the run as a suite error; it is not one more test.
Small literal XML, written here by hand; the engine decides each."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.claim.facts import Facts
from gate.claim.model import Claim, Mutation, Task, VerdictState
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from gate.evidence.junit import read_run, run_evidence
from tests.junit_files import write_text

EDIT = datetime(2026, 8, 27, 18, 4, tzinfo=UTC)
NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)
STAMP = ' timestamp="2026-08-27T18:05:00+00:00"'

#: pytest: a failing test whose fixture teardown also errors is one case with a <failure> and
#: an <error>, and the suite counts both (failures="1" errors="1").
PYTEST_TEARDOWN = (
    f'<testsuites><testsuite name="pytest" tests="2" failures="1" errors="1"{STAMP}>'
    '<testcase classname="tests.test_db" name="test_ok"/>'
    '<testcase classname="tests.test_db" name="test_write"><failure message="assert 1 == 2"/>'
    '<error message="failed on teardown with \'conn closed\'"/></testcase>'
    "</testsuite></testsuites>")
#: Surefire 3.0.2 with rerunFailingTestsCount: the suite counts each rerun as a failure.
SUREFIRE_RERUNS = (
    f'<testsuite name="com.acme.PayTest" tests="2" failures="3" errors="0"{STAMP}>'
    '<testcase classname="com.acme.PayTest" name="pays"/>'
    '<testcase classname="com.acme.PayTest" name="refunds"><failure message="expected 5"/>'
    '<rerunFailure message="expected 5"/><rerunFailure message="expected 5"/></testcase>'
    "</testsuite>")
#: A suite that says one failed and shows none: this one is hiding something.
HIDING = (f'<testsuite name="pytest" tests="2" failures="1"{STAMP}>'
          '<testcase classname="t" name="a"/><testcase classname="t" name="b"/></testsuite>')
#: prove (TAP::Harness::JUnit): 7 passing cases and the script's own exit as a suite error.
PROVE = (f'<testsuite name="t_basic_t" tests="7" failures="0" errors="1"{STAMP}>'
         + "".join(f'<testcase name="{n} - step"/>' for n in range(1, 8))
         + '<error message="Dubious, test returned 255 (wstat 65280, 0xff00)"/></testsuite>')
#: A test file that failed to import: no case, only the suite's error.
ONLY_A_SUITE_ERROR = (f'<testsuite name="tests.test_app" tests="0" errors="1"{STAMP}>'
                      '<error message="ImportError: cannot import name \'x\'"/></testsuite>')


def _decide(tmp_path: Path, text: str) -> Verdict:
    run = read_run([str(write_text(tmp_path / "junit.xml", text))])
    claim = Claim("0.1", Task("t-1", "fix it"), "Fixed.",
                  (Mutation("m1", "file_write", EDIT, "app/x.py"),))
    return decide(claim, Facts.of([run_evidence(run)]), default_policy(), NOW)


@pytest.mark.parametrize("text", [PYTEST_TEARDOWN, SUREFIRE_RERUNS, PROVE, ONLY_A_SUITE_ERROR],
                         ids=["pytest teardown error", "surefire reruns", "prove",
                              "only a suite error"])
def test_a_run_that_shows_failures_is_refuted_whatever_its_attributes_say(
    tmp_path: Path, text: str
) -> None:
    verdict = _decide(tmp_path, text)
    assert verdict.state is VerdictState.REFUTED, verdict.reason
    assert {u.code for u in verdict.unmet} == {"contradicted"}
    assert "hides failures" not in verdict.reason


def test_the_control_a_report_stating_failures_it_does_not_show_is_unverified(
    tmp_path: Path
) -> None:
    verdict = _decide(tmp_path, HIDING)
    assert verdict.state is VerdictState.UNVERIFIED
    assert {u.code for u in verdict.unmet} == {"count_mismatch"}
    assert "a report that hides failures is never a pass" in verdict.reason


def test_a_suite_error_is_a_suite_error_not_one_more_test(tmp_path: Path) -> None:
    run = read_run([str(write_text(tmp_path / "prove.xml", PROVE))])
    totals = run.totals
    assert (totals.tests, totals.passed, totals.errors, totals.suite_errors) == (7, 7, 1, 1)
    assert totals.unique == 7
    assert run.files[0].mismatches == ()  # tests="7" errors="1": the writer agrees
