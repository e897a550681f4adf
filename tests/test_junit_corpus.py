"""Every file of the third-party JUnit corpora (`../shared/junit-corpus*/`), read as the gate
reads it, against the counts the source project's own tests state (the manifests).

The files are never committed here (issue 26): where the corpora are not beside the clone,
each test skips and says where it looked. The expectations are the manifests' own figures,
read under each project's convention (dorny, test-summary and Launchable fold errors into
failures; the rerun mode is MANIFEST-2's `claim_gate_mode`, or the retries MANIFEST.tsv
notes for mikepenz); where claim-gate's documented rules answer otherwise on purpose, the
manifest says so (`claim_gate_expected`, a malformed file refused) or NOTED quotes the note.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import JUnitFile
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence.junit_reader import NotJUnit, read_junit_file
from tests.shared_corpora import Row, corpus_rows, missing_corpora, shared_folder, skip_reason

SHARED = shared_folder()
ROWS = corpus_rows(SHARED)
PRESENT = pytest.mark.skipif(bool(missing_corpora(SHARED)), reason=skip_reason(SHARED))
REPEATED = JUnitOptions(Reruns.REPEATED_CASES)

#: Refusals' messages: the words each must contain (the manifest says the file is malformed
#: or not JUnit; these check that the person reading the message learns which).
REFUSED_WORDS: dict[str, str] = {
    "EnricoMi__publish-unit-test-result-action/corrupt-xml.xml": "not well-formed XML",
    "EnricoMi__publish-unit-test-result-action/empty.xml": "the file is empty",
    "EnricoMi__publish-unit-test-result-action/non-xml.xml": "not well-formed XML",
    "EnricoMi__publish-unit-test-result-action/non-junit.xml": "root element is <suites>",
    "mikepenz__action-junit-report/expectedRetries.xml": "Unescaped '<'",
    "mikepenz__action-junit-report/mikepenz__web-test-runner-expected.xml": "Unescaped '<'",
    "lukejpreston__xunit-viewer/utf-16.xml": "not well-formed XML",
    "lukejpreston__xunit-viewer/complete_single_case_only.xml": "Unescaped '<'",
    "lukejpreston__xunit-viewer/invalid.xml": "not well-formed XML",
    "inorton__junit2html/junit-testrun.xml": "root element is <testrun>",
    "jenkinsci__junit-plugin/testXxe-xxe.xml": "the DOCTYPE declares entities",
    "mikepenz__action-junit-report/TEST-test.CorruptTest.xml": "not well-formed XML",
}
#: Well-formed files whose root is not JUnit: the manifest gives 0 tests and the source's
#: parse error ("Invalid format.") or an Eclipse <testrun>; the gate skips them as not JUnit.
NOT_JUNIT = {"EnricoMi__publish-unit-test-result-action/non-junit.xml",
             "inorton__junit2html/junit-testrun.xml"}

#: Rows of MANIFEST.tsv (which has no claim_gate_expected column) whose figures stand in the
#: notes instead: (figures, the note's words).
NOTED: dict[str, tuple[dict[str, int], str]] = {
    "EnricoMi__publish-unit-test-result-action/no-attributes.xml": (
        {"tests": 4, "passed": 1, "failures": 1, "errors": 1, "skipped": 1},
        "its summary (.results.json / suite sums) still reports 4 tests: 1 pass, 1 failure,"
        " 1 error, 1 skipped (the per-case list drops unnamed cases; the gate never drops a"
        " case: an unnamed failure still fails)",
    ),
}

def _params() -> list[object]:
    if not ROWS:
        return [pytest.param(None, id="no-corpus", marks=pytest.mark.skip(
            reason=skip_reason(SHARED)))]
    return [pytest.param(row, id=f"{row.corpus}/{row.key}") for row in ROWS]


def _refused(row: Row) -> None:
    with pytest.raises(InvalidInput) as caught:
        read_junit_file(row.path)
    message = str(caught.value)
    assert message.startswith(str(row.path)), message
    words = REFUSED_WORDS.get(row.key)
    if words is not None:
        assert words in message
    # a well-formed file with another root is "not JUnit" (skipped by artifact readers);
    # malformed XML stays plain invalid input, never skipped
    assert isinstance(caught.value, NotJUnit) == (row.key in NOT_JUNIT)
    if "well-formed" in message or "Unescaped" in message:  # where in the file, too
        assert re.match(rf"^{re.escape(str(row.path))}:\d+:\d+: ", message), message


def _case_runs(read: JUnitFile) -> int:
    """The `<testcase>` runs: whether a suite's own `<error>` is one of `tests` is issue 24's
    to settle (item 13), so both readings are taken, and nothing else."""
    totals = read.totals
    counted = totals.passed + totals.failures + totals.errors + totals.skipped
    assert counted in (totals.tests, totals.tests + totals.suite_errors)
    return totals.tests - totals.suite_errors if counted == totals.tests else totals.tests


def _ours(read: JUnitFile, row: Row) -> dict[str, int]:
    """Our figures in the source's convention for a suite's own failure or error: Jenkins
    makes a case of it ("synthesized" in its notes); the others (Launchable's payload has one
    event per testcase) count the cases alone, where the gate adds a failing entry
    (docs/junit.md rule 2)."""
    totals = read.totals
    as_case = "synthesized" in row.notes
    outside = 0 if as_case else totals.suite_errors
    return {
        "tests": _case_runs(read) + (totals.suite_errors if as_case else 0),
        "passed": totals.passed, "failures": totals.failures,
        "errors": totals.errors - outside, "skipped": totals.skipped, "flaky": totals.flaky,
        "unique": totals.unique, "fe": totals.failures + totals.errors - outside,
    }


def _check_invariants(read: JUnitFile) -> None:
    totals = read.totals
    assert totals.unique <= totals.tests
    assert totals.tests + totals.suite_errors \
        == totals.passed + totals.failures + totals.errors + totals.skipped
    assert len(read.failing) == totals.failures + totals.errors
    assert totals.flaky <= totals.passed


@PRESENT
def test_both_corpora_are_read_whole() -> None:
    by_corpus = {name: sum(row.corpus == name for row in ROWS)
                 for name in ("junit-corpus", "junit-corpus-2")}
    assert by_corpus == {"junit-corpus": 70, "junit-corpus-2": 57}
    for row in ROWS:
        assert row.path.is_file(), row.path


@PRESENT
def test_expected_counts_are_checked_for_most_files() -> None:
    """Guard against a manifest change silently turning the comparisons off."""
    assert sum("tests" in row.expected.figures for row in ROWS) >= 85
    assert {row.key for row in ROWS if row.expected.refuse} >= set(REFUSED_WORDS) - NOT_JUNIT


@pytest.mark.parametrize("row", _params())
def test_corpus_file(row: Row) -> None:
    if row.expected.refuse or row.key in NOT_JUNIT:
        _refused(row)
        return
    read = read_junit_file(row.path, options=REPEATED if row.repeated_cases else JUnitOptions())
    _check_invariants(read)
    expected = dict(row.expected.figures)
    if row.key in NOTED:
        expected = NOTED[row.key][0]
    ours = _ours(read, row)
    assert {name: ours[name] for name in expected} == expected, row.notes
    failing_names = {test.identity.rsplit("::", 1)[-1] for test in read.failing}
    assert failing_names >= set(row.expected.failing), row.notes
    if row.expected.suites_more_than is not None:
        assert read.suites > row.expected.suites_more_than
    if row.expected.hides_failures:  # the note: claim-gate flags it count_mismatch
        assert any(m.hides_failures for m in read.mismatches), row.notes


def _path(key: str) -> Path:
    return SHARED / "junit-corpus" / "files" / key


@PRESENT
def test_mikepenz_retries_merge_into_flaky_passes_only_with_the_switch() -> None:
    path = _path("mikepenz__action-junit-report/flaky_with_classname_file.xml")
    read = read_junit_file(path, options=REPEATED)
    assert (read.totals.tests, read.totals.passed, read.totals.flaky) == (3, 3, 1)
    assert read.flaky == ("test_foo.TestFoo::test_foo",)
    separate = read_junit_file(path)  # nothing in the file marks the repeats as reruns
    assert (separate.totals.tests, separate.totals.failures, separate.totals.errors) == (5, 1, 1)
    # the hand-written suite says failures="1" errors="2" over its 2 failing elements
    (mismatch,) = separate.mismatches
    assert (mismatch.stated_failing, mismatch.counted_failing) == (3, 2)


@PRESENT
def test_surefire_reruns_inside_a_case_need_no_switch() -> None:
    flaky = read_junit_file(_path("jenkinsci__junit-plugin/TEST-io.olamy.FlakyTest.xml"))
    assert (flaky.totals.tests, flaky.totals.passed, flaky.totals.flaky) == (1, 1, 1)
    retried = read_junit_file(_path("allure-framework__allure2/TEST-test.RetryTest.xml"))
    assert (retried.totals.tests, retried.totals.errors) == (1, 1)


@PRESENT
def test_failure_place_comes_from_attributes_or_text() -> None:
    (failing,) = read_junit_file(_path("mikepenz__action-junit-report/report.xml")).failing
    assert failing.file is not None
    assert failing.line == 19
    (panic,) = read_junit_file(_path("mikepenz__action-junit-report/basic.xml")).failing
    assert (panic.file, panic.line) == ("tests/parry3d.rs", 154)
