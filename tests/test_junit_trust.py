"""Issue 10, class 3 and the XML part of class 2: a test's identity cannot be taken over,
a report that hides failures is never a pass, and a file that is not JUnit is skipped
with a note while malformed XML is refused. Attack and honest control side by side."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.facts import Facts
from gate.claim.junit_facts import Outcome
from gate.claim.model import Claim, Mutation, Task, VerdictState
from gate.claim.policy import default_policy
from gate.claim.policy_parse import parse_policy_document
from gate.engine.decide import decide
from gate.evidence.junit import read_run, run_evidence
from gate.evidence.junit_reader import NotJUnit, read_junit_file
from tests.junit_files import write_text

EDIT = datetime(2026, 8, 27, 18, 4, tzinfo=UTC)
NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)
FAILING = ('<testcase classname="tests.test_login" name="test_login" file="tests/test_login.py"'
           ' line="9"><failure message="assert 401 == 200">tests/test_login.py:9:'
           " AssertionError</failure></testcase>")
#: What pytest writes for a test the agent added that calls
#: record_xml_attribute("classname", "tests.test_login") and ("name", "test_login").
TAKEOVER = ('<testcase classname="tests.test_login" name="test_login" file="tests/test_zz.py"'
            ' line="3"/>')
HONEST = '<testcase classname="tests.test_login" name="test_login" file="tests/test_login.py"/>'


def _claim() -> Claim:
    return Claim("0.1", Task("t-1", "fix login"), "Fixed login.",
                 (Mutation("m1", "file_write", EDIT, "app/login.py"),))


def _report(tmp_path: Path, *cases: str, attrs: str = "") -> Path:
    return write_text(tmp_path / "junit.xml", (
        '<?xml version="1.0"?>\n<testsuites><testsuite name="pytest"'
        f' timestamp="2026-08-27T18:05:00Z"{attrs}>'
        '<testcase classname="tests.test_other" name="test_ok"/>'
        + "".join(cases) + "</testsuite></testsuites>\n"))


@pytest.mark.parametrize("order", ["added-after", "added-before"])
def test_an_added_case_reusing_a_failing_identity_does_not_hide_the_failure(
    tmp_path: Path, order: str
) -> None:
    cases = (FAILING, TAKEOVER) if order == "added-after" else (TAKEOVER, FAILING)
    path = _report(tmp_path, *cases)
    name = "tests/test_login.py::test_login"
    run = read_run([str(path)], (name,))
    assert run.totals.failures == 1
    assert run.totals.flaky == 0
    assert [t.identity for t in run.failing] == ["tests.test_login::test_login"]
    assert run.named_status().failed == (name,)  # required_tests is not fooled
    kept = read_junit_file(path, identities=10)  # nor the removed-tests comparison
    assert kept.identities is not None
    assert kept.identities["tests.test_login::test_login"] is Outcome.FAILURE
    item = run_evidence(run)
    assert item.disqualified is None
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.REFUTED


def test_the_honest_control_passes(tmp_path: Path) -> None:
    name = "tests/test_login.py::test_login"
    run = read_run([str(_report(tmp_path, HONEST))], (name,))
    assert run.named_status().failed == ()
    assert run.named_status().missing == ()
    verdict = decide(_claim(), Facts.of([run_evidence(run)]), default_policy(), NOW)
    assert verdict.state is VerdictState.VERIFIED


def test_the_takeover_only_works_where_the_owner_said_reruns_repeat(tmp_path: Path) -> None:
    """With `junit.reruns: repeated-cases` the owner has said a repeated case is a rerun;
    the failure then reads as flaky, which is what that setting means (docs/junit.md)."""
    policy = parse_policy_document({"id": "p", "junit": {"reruns": "repeated-cases"}}, "p.yml")
    run = read_run([str(_report(tmp_path, FAILING, TAKEOVER))], options=policy.junit)
    assert (run.totals.failures, run.totals.flaky) == (0, 1)


@pytest.mark.parametrize(
    ("attrs", "stated"),
    [(' tests="2" failures="1"', 1), (' tests="2" failures="0" errors="1"', 1),
     (' tests="3" failures="2" errors="1"', 3)],
)
def test_a_suite_stating_more_failures_than_counted_is_never_verified(
    tmp_path: Path, attrs: str, stated: int
) -> None:
    path = _report(tmp_path, HONEST, attrs=attrs)
    item = run_evidence(read_run([str(path)]))
    assert item.disqualified is not None
    assert item.disqualified.code == "count_mismatch"
    assert str(path) in item.disqualified.message
    assert "'pytest'" in item.disqualified.message
    stated_text = "1 failure or error" if stated == 1 else f"{stated} failures and errors"
    assert f"says it had {stated_text}, but 0 failing tests were counted" \
        in item.disqualified.message
    mismatches = item.evidence.observed_value["suite_count_mismatches"]
    assert isinstance(mismatches, list)
    assert mismatches
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.UNVERIFIED


def test_a_suite_agreeing_with_the_count_or_stating_fewer_failures_is_not_disqualified(
    tmp_path: Path,
) -> None:
    for attrs in (' tests="2" failures="0"', ' tests="5" failures="0" errors="0"', ""):
        item = run_evidence(read_run([str(_report(tmp_path, HONEST, attrs=attrs))]))
        assert item.disqualified is None, attrs
    fewer = _report(tmp_path, FAILING, attrs=' tests="2" failures="0"')
    run = read_run([str(fewer)])
    (mismatch,) = run.files[0].mismatches
    assert not mismatch.hides_failures  # the file shows more than it says: it is refuted
    assert run_evidence(run).disqualified is None


def test_a_nested_suite_is_compared_with_its_own_cases(tmp_path: Path) -> None:
    text = ('<testsuites tests="3" failures="1">'
            '<testsuite name="outer" tests="3" failures="1">'
            '<testsuite name="a" tests="1" failures="1"><testcase classname="a" name="t">'
            "<failure/></testcase></testsuite>"
            '<testsuite name="b" tests="2" failures="0"><testcase classname="b" name="t"/>'
            '<testcase classname="b" name="u"/></testsuite>'
            "</testsuite></testsuites>")
    read = read_junit_file(write_text(tmp_path / "nested.xml", text))
    assert read.mismatches == ()
    lying = text.replace('name="b" tests="2" failures="0"', 'name="b" tests="2" failures="1"')
    read = read_junit_file(write_text(tmp_path / "nested.xml", lying))
    assert [(m.suite, m.stated_failing, m.counted_failing) for m in read.mismatches] == [
        ("b", 1, 0)
    ]


def test_a_coverage_report_beside_the_junit_files_is_skipped_with_a_note(
    tmp_path: Path,
) -> None:
    _report(tmp_path, HONEST)
    write_text(tmp_path / "coverage.xml",
               '<?xml version="1.0" ?>\n<coverage version="7.4" line-rate="0.9"><packages/>'
               "</coverage>\n")
    write_text(tmp_path / "checkstyle.xml", '<checkstyle version="10"><file name="a"/>'
               "</checkstyle>")
    run = read_run([str(tmp_path / "*.xml")])
    assert [Path(f.path).name for f in run.files] == ["junit.xml"]
    assert len(run.notes) == 2
    assert all("not a JUnit report" in note for note in run.notes)
    assert any("<coverage>" in note for note in run.notes)
    item = run_evidence(run)
    assert item.evidence.extensions["x-junit"]["skipped_files"] == list(run.notes)
    with pytest.raises(NotJUnit, match="root element is <coverage>"):
        read_junit_file(tmp_path / "coverage.xml")


def test_only_non_junit_files_is_invalid_input_not_an_empty_pass(tmp_path: Path) -> None:
    write_text(tmp_path / "coverage.xml", "<coverage/>")
    with pytest.raises(InvalidInput, match="none of the files is a JUnit report"):
        read_run([str(tmp_path / "*.xml")])


def test_malformed_xml_is_refused_never_skipped(tmp_path: Path) -> None:
    _report(tmp_path, HONEST)
    write_text(tmp_path / "broken.xml", '<testsuite name="x"><testcase name="t">')
    with pytest.raises(InvalidInput) as caught:
        read_run([str(tmp_path / "*.xml")])
    assert not isinstance(caught.value, NotJUnit)
    assert "not well-formed XML" in str(caught.value)
