"""Issue 24 item 13: real suites' JUnit as their writers write it.

(a) A run whose cases show failures is refuted whatever its own count attributes say (pytest
counting a teardown error beside the failure, Surefire 3.0.2 counting reruns, a suite error
with no case); only a report that shows no failure and states some is `count_mismatch`.
(e) A suite-level `<error>` fails the run as a suite error; it is not one more test.
Small literal XML, written here by hand; the engine decides each."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.claim.facts import Facts
from gate.claim.model import Claim, Mutation, Task, VerdictState
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from gate.evidence.junit import read_run, run_evidence
from gate.faces.cli import main
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


#: jest-junit by default: a test file that failed to load leaves no case, only the passing ones.
JEST_DEFAULT = (f'<testsuites name="jest tests" tests="2" failures="0" errors="0">'
                f'<testsuite name="cart" tests="2" failures="0"{STAMP}>'
                '<testcase classname="cart adds" name="cart adds"/>'
                '<testcase classname="cart totals" name="cart totals"/>'
                "</testsuite></testsuites>")


@pytest.mark.parametrize(("status", "exit_code", "codes"), [
    ("0", 0, set()),  # control: the job passed
    ("1", 1, {"failed_exit_status"}),
])
def test_the_test_jobs_exit_status_is_part_of_the_evidence(
    tmp_path: Path, status: str, exit_code: int, codes: set[str]
) -> None:
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({
        "spec_version": "0.1", "task": {"id": "t-1", "description": "fix the cart"},
        "claimed_outcome": "Fixed.", "mutations": [
            {"id": "m1", "kind": "file_write", "target": "src/cart.js",
             "at": "2026-08-27T18:04:00Z"}]}))
    junit = write_text(tmp_path / "junit.xml", JEST_DEFAULT)
    out = io.StringIO()
    code = main(["verify", str(claim), "--junit", str(junit), "--test-exit-status", status,
                 "--format", "json"], clock=lambda: NOW, out=out, err=io.StringIO())
    verdict = json.loads(out.getvalue())["verdict"]
    assert (code, {u["code"] for u in verdict["unmet"]}) == (exit_code, codes)
    if codes:
        assert "JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true" in verdict["reason"]


#: jest-junit: `test.todo("refunds")` is a bare case its suite's `tests` attribute leaves out.
JEST_TODO = (f'<testsuites name="jest tests" tests="1" failures="0" errors="0">'
             f'<testsuite name="cart" tests="{{stated}}" failures="0"{STAMP}>'
             '<testcase classname="cart pays" name="cart pays" time="0.01"/>'
             '<testcase classname="cart refunds" name="cart refunds" time="0"/>'
             "</testsuite></testsuites>")


@pytest.mark.parametrize(("stated", "missing"), [
    ("2", ()),  # control: the suite counts both cases, so both ran
    ("1", ("cart refunds",)),  # the todo: counted by nothing, so it never ran
])
def test_a_todo_never_satisfies_a_required_test(
    tmp_path: Path, stated: str, missing: tuple[str, ...]
) -> None:
    path = write_text(tmp_path / "junit.xml", JEST_TODO.format(stated=stated))
    run = read_run([str(path)], ("cart refunds",))
    assert run.named_status().missing == missing
    assert run.named_status().failed == ()
