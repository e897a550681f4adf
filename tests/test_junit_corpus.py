"""Every file of the third-party JUnit corpus, read as the gate reads it.

Files with expected counts are compared under their source project's own convention (its
notes in MANIFEST.tsv): dorny, test-summary and launchable fold errors into failures;
mikepenz merges retries (the files of tools that write reruns as repeated cases are read
with the policy switch `junit.reruns: repeated-cases`, REPEATED_CASES); EnricoMi counts
each `<testcase>` by its most severe result. Where
our counting rule differs on purpose, DIFFERENT_ON_PURPOSE says why and the test checks our
figure instead. Files without expectations must read without error or be refused on purpose
(REFUSED) with a clear message.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import Totals
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence.junit_reader import NotJUnit, read_junit_file

CORPUS = Path(__file__).parent / "data" / "junit-corpus"


@dataclass(frozen=True)
class Row:
    path: str
    source_repo: str
    well_formed: str
    tests: str
    failures: str
    errors: str
    skipped: str
    notes: str


def _rows() -> list[Row]:
    with (CORPUS / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        return [
            Row(r["path"], r["source_repo"], r["well_formed"], r["expected_tests"],
                r["expected_failures"], r["expected_errors"], r["expected_skipped"],
                r["expected_notes"])
            for r in csv.DictReader(handle, delimiter="\t")
        ]


ROWS = _rows()

#: Files whose source counts differently from our rule on purpose: (our totals, why).
DIFFERENT_ON_PURPOSE: dict[str, tuple[Totals, str]] = {
    "EnricoMi__publish-unit-test-result-action/no-attributes.xml": (
        Totals(tests=4, passed=1, failures=1, errors=1, skipped=1, unique=4),
        "EnricoMi drops cases with neither name nor classname (0 in its per-case list) but its"
        " summary says 4 tests, 1 each; we never drop a case: an unnamed failure still fails",
    ),
    "mikepenz__action-junit-report/expectedRetries.xml": (
        Totals(),
        "mikepenz parses this fixture leniently; it has a raw '<' in an attribute, which is"
        " not XML, so the gate refuses it (see REFUSED)",
    ),
    # Jenkins synthesizes a test case from an <error> directly under a suite; the gate counts
    # it as a suite error that fails the run, not as one more test (issue 24 item 13).
    "jenkinsci__junit-plugin/junit-report-nested-testsuites.xml": (
        Totals(tests=2, passed=2, errors=1, unique=2, suite_errors=1),
        "Jenkins counts the suite-level <error> as a 3rd test; the gate: 2 tests, 1 suite error",
    ),
    "jenkinsci__junit-plugin/junit-report-6700.xml": (
        Totals(errors=1, suite_errors=1),
        "Jenkins counts the class-initialization <error> as a test; the gate: no test, 1 suite"
        " error (the run fails, refuted)",
    ),
}

#: Files of tools that write a rerun as another <testcase> with the same identity (gotestsum
#: --rerun-fails, pytest-rerunfailures without a rerun plugin): the source project (mikepenz)
#: merges them, and so does the gate when the policy says `junit.reruns: repeated-cases`.
REPEATED_CASES: dict[str, str] = {
    "mikepenz__action-junit-report/junit-server-test__report.xml": "gotestsum --rerun-fails",
    "mikepenz__action-junit-report/flaky_with_classname_file.xml": "pytest reruns as cases",
}
REPEATED = JUnitOptions(Reruns.REPEATED_CASES)

#: Files the gate refuses on purpose, and the words its message must contain.
REFUSED: dict[str, str] = {
    "EnricoMi__publish-unit-test-result-action/corrupt-xml.xml": "not well-formed XML",
    "EnricoMi__publish-unit-test-result-action/empty.xml": "the file is empty",
    "EnricoMi__publish-unit-test-result-action/non-xml.xml": "not well-formed XML",
    "EnricoMi__publish-unit-test-result-action/non-junit.xml": "root element is <suites>",
    "mikepenz__action-junit-report/expectedRetries.xml": "Unescaped '<'",
    "lukejpreston__xunit-viewer/utf-16.xml": "not well-formed XML",
    "lukejpreston__xunit-viewer/complete_single_case_only.xml": "Unescaped '<'",
    "lukejpreston__xunit-viewer/invalid.xml": "not well-formed XML",
    "inorton__junit2html/junit-testrun.xml": "root element is <testrun>",
}


def _key(row: Row) -> str:
    return row.path.removeprefix("files/")


def _number(text: str) -> int | None:
    """'5' or '1 (annotation)' -> the figure; '-', 'none', 'n/a (...)' -> None."""
    found = re.match(r"^(\d+)\b", text)
    return int(found[1]) if found else None


def test_the_corpus_is_complete() -> None:
    assert len(ROWS) == 70
    for row in ROWS:
        assert (CORPUS / row.path).is_file(), row.path
    assert (CORPUS / "NOTICE.md").is_file()


def test_every_malformed_file_is_refused_on_purpose() -> None:
    malformed = {_key(row) for row in ROWS if not row.well_formed.startswith("yes")}
    assert malformed <= set(REFUSED)


@pytest.mark.parametrize("row", ROWS, ids=_key)
def test_corpus_file(row: Row) -> None:
    path = CORPUS / row.path
    key = _key(row)
    if key in REFUSED:
        with pytest.raises(InvalidInput) as caught:
            read_junit_file(path)
        message = str(caught.value)
        assert message.startswith(str(path)), message
        assert REFUSED[key] in message
        # a well-formed file with another root is "not JUnit" (skipped by artifact readers);
        # malformed XML stays plain invalid input, never skipped
        assert isinstance(caught.value, NotJUnit) == ("root element is" in REFUSED[key])
        if "well-formed" in message or "Unescaped" in message:
            assert re.match(rf"^{re.escape(str(path))}:\d+:\d+: ", message), message
        return
    read = read_junit_file(path, options=REPEATED if key in REPEATED_CASES else JUnitOptions())
    totals = read.totals
    assert totals.unique <= totals.tests
    assert totals.tests + totals.suite_errors \
        == totals.passed + totals.failures + totals.errors + totals.skipped
    assert len(read.failing) == totals.failures + totals.errors
    assert totals.flaky <= totals.passed
    if key in DIFFERENT_ON_PURPOSE:
        ours, _why = DIFFERENT_ON_PURPOSE[key]
        assert totals == ours
        return
    expected_tests = _number(row.tests)
    if expected_tests is not None:
        assert totals.tests == expected_tests, row.notes
    expected_skipped = _number(row.skipped)
    if expected_skipped is not None:
        assert totals.skipped == expected_skipped, row.notes
    expected_failures = _number(row.failures)
    folded = row.errors.startswith("n/a")
    if expected_failures is not None:
        if folded or "(annotation)" in row.failures:
            assert totals.failures + totals.errors == expected_failures, row.notes
        else:
            assert totals.failures == expected_failures, row.notes
    expected_errors = _number(row.errors)
    if expected_errors is not None:
        assert totals.errors == expected_errors, row.notes


def test_expected_counts_are_checked_for_most_files() -> None:
    """Guard against a manifest change silently turning the comparisons off."""
    with_counts = [row for row in ROWS if _number(row.tests) is not None]
    assert len(with_counts) >= 40


def test_mikepenz_retries_merge_into_flaky_passes_only_with_the_switch() -> None:
    path = CORPUS / "files/mikepenz__action-junit-report/flaky_with_classname_file.xml"
    read = read_junit_file(path, options=REPEATED)
    assert read.totals == Totals(tests=3, passed=3, flaky=1, unique=3)
    assert read.flaky == ("test_foo.TestFoo::test_foo",)
    separate = read_junit_file(path)  # nothing in the file marks the repeats as reruns
    assert separate.totals == Totals(tests=5, passed=3, failures=1, errors=1, unique=3)
    # the hand-written suite says failures="1" errors="2" over its 2 failing elements
    (mismatch,) = separate.mismatches
    assert (mismatch.stated_failing, mismatch.counted_failing) == (3, 2)


def test_surefire_flaky_failure_is_a_flaky_pass() -> None:
    read = read_junit_file(CORPUS / "files/jenkinsci__junit-plugin/TEST-io.olamy.FlakyTest.xml")
    assert read.totals == Totals(tests=1, passed=1, flaky=1, unique=1)


def test_surefire_error_with_reruns_stays_an_error() -> None:
    read = read_junit_file(
        CORPUS / "files/allure-framework__allure2/TEST-test.RetryTest.xml"
    )
    assert read.totals == Totals(tests=1, errors=1, unique=1)


def test_failure_place_comes_from_attributes_or_text() -> None:
    read = read_junit_file(CORPUS / "files/mikepenz__action-junit-report/report.xml")
    (failing,) = read.failing
    assert failing.file is not None
    assert failing.line == 19
    basic = read_junit_file(CORPUS / "files/mikepenz__action-junit-report/basic.xml")
    (panic,) = basic.failing
    assert (panic.file, panic.line) == ("tests/parry3d.rs", 154)


def test_zoned_timestamps_are_used_and_naive_ones_are_not() -> None:
    zoned = read_junit_file(CORPUS / "files/dorny__test-reporter/python-xunit-pytest.xml")
    assert zoned.time.source == "timestamp"
    assert zoned.time.at.utcoffset() is not None
    naive = read_junit_file(
        CORPUS / "files/EnricoMi__publish-unit-test-result-action/junit.fail.xml"
    )
    assert naive.time.source == "mtime"
    assert "no time zone" in naive.time.note
