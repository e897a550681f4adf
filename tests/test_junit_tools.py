"""The reader on what the real tools write (issue 26): each figure is compared with what the
tool itself printed about the same run, never with the reader's own output.

Where a tool's file and its own summary differ, the test says how (docs/junit.md, "Each
dialect"): pytest writes an xfail as `<skipped>`, jest-junit writes `it.todo` as a case with
no result (a pass), mocha-junit-reporter leaves pending tests out, pytest-rerunfailures
writes each earlier attempt as an empty case.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gate.claim.junit_facts import Totals
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence.junit_reader import read_junit_file
from tests.junit_tools import ToolReport, install_node_tools

REPEATED = JUnitOptions(Reruns.REPEATED_CASES)


def _pytest_totals(said: dict[str, int] | ToolReport) -> Totals:
    """pytest's closing line as the reader's figures: an xfail is written as skipped."""
    s = dict(said.said if isinstance(said, ToolReport) else said)
    skipped = s.get("skipped", 0) + s.get("xfailed", 0)
    passed = s.get("passed", 0) + s.get("xpassed", 0)
    failures, errors = s.get("failed", 0), s.get("error", 0) + s.get("errors", 0)
    tests = passed + skipped + failures + errors
    return Totals(tests=tests, passed=passed, failures=failures, errors=errors,
                  skipped=skipped, unique=tests)


def test_pytest_xunit1_counts_as_pytest_does_and_places_failures(
    xunit1_report: ToolReport,
) -> None:
    read = read_junit_file(xunit1_report.path)
    assert read.totals == _pytest_totals(xunit1_report)
    assert read.mismatches == ()
    assert read.time.source == "timestamp"  # pytest writes a zoned timestamp
    by_name = {test.identity: test for test in read.failing}
    assert set(by_name) == {"test_sample::test_fails", "test_sample::test_errors_in_fixture",
                            "test_sample::test_flaky"}
    failed = by_name["test_sample::test_fails"]
    assert failed.file == "test_sample.py"
    # xunit1's line attribute is pytest's location of the def, which is 0-based: the def
    # is on line 11 of the file, where the annotation must point
    assert failed.line == 11
    assert failed.message.startswith("AssertionError: one is not two")


def test_pytest_xunit2_counts_the_same(xunit1_report: ToolReport,
                                       xunit2_report: ToolReport) -> None:
    """xunit2 drops the file/line attributes; the figures and identities do not change."""
    one, two = read_junit_file(xunit1_report.path), read_junit_file(xunit2_report.path)
    assert two.totals == _pytest_totals(xunit2_report) == one.totals
    assert [t.identity for t in two.failing] == [t.identity for t in one.failing]
    assert "file=" not in xunit2_report.path.read_text(encoding="utf-8")
    # from the traceback in the text: the line of the assertion
    assert next((t.file, t.line) for t in two.failing) == ("test_sample.py", 12)


def test_pytest_rerunfailures_needs_the_switch(reruns_report: ToolReport) -> None:
    """pytest-rerunfailures writes every earlier attempt as an empty <testcase> of the same
    name: separately they are passes (the final failure still stands); with
    `junit.reruns: repeated-cases` the last attempt counts, which is pytest's own line."""
    reruns = reruns_report.said["rerun"]
    assert reruns == 5  # test_fails and test_errors_in_fixture twice, test_flaky once
    merged = read_junit_file(reruns_report.path, options=REPEATED)
    assert merged.totals == _pytest_totals(reruns_report)
    assert [t.identity for t in merged.failing] == [
        "test_sample::test_fails", "test_sample::test_errors_in_fixture"]
    assert merged.flaky == ()  # an empty earlier attempt says nothing of how it went
    separate = read_junit_file(reruns_report.path)
    expected = _pytest_totals(reruns_report)
    assert separate.totals == Totals(
        tests=expected.tests + reruns, passed=expected.passed + reruns,
        failures=expected.failures, errors=expected.errors, skipped=expected.skipped,
        unique=expected.unique)
    # the suite's own tests="8" counts names; never a hidden failure
    assert [(m.stated_tests, m.counted_tests, m.hides_failures)
            for m in separate.mismatches] == [(expected.tests, expected.tests + reruns, False)]


def test_unittest_xml_reporting_counts_as_unittest_does(xmlrunner: ToolReport) -> None:
    """unittest's "Ran 6 tests" and FAILED (failures=2, errors=1, skipped=1, expected
    failures=1): an expected failure is written as skipped; a failing subTest is the case."""
    said = xmlrunner.said
    read = read_junit_file(xmlrunner.path)
    skipped = said["skipped"] + said["expected_failures"]
    assert read.totals == Totals(
        tests=said["ran"], passed=said["ran"] - said["failures"] - said["errors"] - skipped,
        failures=said["failures"], errors=said["errors"], skipped=skipped, unique=said["ran"])
    assert read.mismatches == ()
    assert "sample_unit.Cart::test_sub (n=2)" in {t.identity for t in read.failing}
    # its timestamps have no zone: never read as UTC
    assert read.time.source == "mtime"
    assert "no time zone" in read.time.note


def test_jest_junit_duplicate_titles_are_separate_tests(jest_junit: ToolReport) -> None:
    """Two `it`s may share a title: each is a test, and the failing one stands. jest-junit
    writes `it.todo` as a case with no result element, so it reads as a pass."""
    said = jest_junit.said
    read = read_junit_file(jest_junit.path)
    assert read.totals == Totals(
        tests=said["numTotalTests"], passed=said["numPassedTests"] + said["numTodoTests"],
        failures=said["numFailedTests"], skipped=said["numPendingTests"], unique=5)
    assert [t.identity for t in read.failing] == ["cart adds an item::cart adds an item"]
    assert not any(m.hides_failures for m in read.mismatches)  # it states tests="6" of 7


def test_mocha_junit_reporter_keeps_every_failure(mocha_junit: ToolReport) -> None:
    """A title failing twice is two failures; mocha-junit-reporter leaves pending tests out
    of the file (its suite still says tests="5")."""
    said = mocha_junit.said
    read = read_junit_file(mocha_junit.path)
    assert read.totals == Totals(
        tests=said["tests"] - said["pending"], passed=said["passes"],
        failures=said["failures"], unique=3)
    first, second = (t.message for t in read.failing)
    assert first.startswith("expected 500 to equal 200")
    assert second == "Timeout of 2000ms exceeded"
    assert not any(m.hides_failures for m in read.mismatches)


def test_node_test_reporter_junit(node_junit: ToolReport) -> None:
    """node --test --test-reporter=junit: a todo is `<skipped type="todo">`, a suite nests in
    a suite, and a top-level test is a `<testcase>` straight under `<testsuites>`."""
    said = node_junit.said
    read = read_junit_file(node_junit.path)
    assert read.totals == Totals(
        tests=said["tests"], passed=said["pass"], failures=said["fail"],
        skipped=said["skipped"] + said["todo"], unique=said["tests"])
    assert [t.identity for t in read.failing] == ["test::reads dates"]
    assert not any(m.hides_failures for m in read.mismatches)


def test_without_a_registry_the_node_tools_say_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline (no registry answers, nothing cached): a reason to skip, not a failure."""
    if shutil.which("npm") is None:
        assert "npm is not on PATH" in str(install_node_tools())
        return
    monkeypatch.setenv("CLAIM_GATE_NODE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens
    found = install_node_tools()
    assert isinstance(found, str)
    assert found.startswith("npm ci failed (exit ")
    assert not list((tmp_path / "cache").glob("*/installed"))  # tried again next time
