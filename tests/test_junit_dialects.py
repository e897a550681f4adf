"""Issue 14: each dialect counted as its framework counts, with `tests`/`unique`/`flaky`.

The files are written here by hand in each tool's shape (element and attribute layout as the
tool writes it; names made up); tests/test_junit_tools.py runs the tools that the registries
have and reads what they write. Each `<testcase>` is one run; repeated identities are reruns only
when the report marks them (Surefire's rerun elements) or the policy says so
(`junit.reruns: repeated-cases`, for gotestsum `--rerun-fails`).
"""

from __future__ import annotations

from pathlib import Path

from gate.claim.junit_facts import Totals
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence.junit_reader import read_junit_file
from tests.junit_files import write_text

REPEATED = JUnitOptions(Reruns.REPEATED_CASES)
_API4 = "github.com/example/example/server/v8/channels/api4"


def test_jest_duplicate_titles_are_separate_tests(tmp_path: Path) -> None:
    """jest-junit names a case by its describe/it titles; two `it`s may share one."""
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="jest tests" tests="5" failures="1" errors="0" time="1.2">\n'
        '  <testsuite name="cart" errors="0" failures="1" skipped="0" tests="5" time="0.9"'
        ' timestamp="2026-08-27T18:05:00">\n'
        '    <testcase classname="cart adds an item" name="cart adds an item" time="0.1"/>\n'
        '    <testcase classname="cart adds an item" name="cart adds an item" time="0.1">\n'
        '      <failure>Error: expect(received).toBe(expected)</failure>\n'
        "    </testcase>\n"
        '    <testcase classname="cart removes an item" name="cart removes an item" time="0"/>\n'
        '    <testcase classname="cart totals" name="cart totals" time="0.2"/>\n'
        '    <testcase classname="cart totals" name="cart totals" time="0.2"/>\n'
        "  </testsuite>\n</testsuites>\n"
    )
    read = read_junit_file(write_text(tmp_path / "junit.xml", text))
    assert read.totals == Totals(tests=5, passed=4, failures=1, unique=3)
    assert [t.identity for t in read.failing] == ["cart adds an item::cart adds an item"]
    assert read.mismatches == ()  # the file's own tests="5" failures="1" agree


def test_mocha_duplicates_keep_every_failure(tmp_path: Path) -> None:
    """mocha-junit-reporter: one suite per describe; a repeated title failing twice is two
    failures (the old merge lost one of a real report's 9)."""
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="Mocha Tests" time="0.5" tests="4" failures="2">\n'
        '  <testsuite name="Root Suite" timestamp="2026-08-27T18:05:00" tests="0"'
        ' time="0" failures="0"/>\n'
        '  <testsuite name="api" timestamp="2026-08-27T18:05:00" tests="4" file="test/api.js"'
        ' time="0.5" failures="2">\n'
        '    <testcase name="api retries" time="0.1" classname="retries">\n'
        '      <failure message="expected 500 to equal 200" type="AssertionError">'
        "AssertionError: expected 500 to equal 200</failure>\n"
        "    </testcase>\n"
        '    <testcase name="api retries" time="0.1" classname="retries">\n'
        '      <failure message="timeout" type="Error">Error: Timeout of 2000ms</failure>\n'
        "    </testcase>\n"
        '    <testcase name="api lists" time="0.1" classname="lists"/>\n'
        '    <testcase name="api gets" time="0.1" classname="gets"/>\n'
        "  </testsuite>\n</testsuites>\n"
    )
    read = read_junit_file(write_text(tmp_path / "mocha.xml", text))
    assert read.totals == Totals(tests=4, passed=2, failures=2, unique=3)
    assert [t.message for t in read.failing] == ["expected 500 to equal 200", "timeout"]
    assert read.mismatches == ()


def test_xctest_repeated_measurements_count_each_run(tmp_path: Path) -> None:
    """xcodebuild/xcpretty: a measured test (`testLaunch`) appears once per measurement."""
    cases = ['<testcase classname="AppUITests" name="testLaunch" time="3.1"/>'] * 4
    cases += [f'<testcase classname="AppUITests" name="test{n}" time="0.4"/>'
              for n in ("Login", "Logout", "Search", "Settings", "Share")]
    text = ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="AppUITests.xctest"'
            ' tests="9" failures="0">\n<testsuite name="AppUITests" tests="9" failures="0">\n'
            + "\n".join(cases) + "\n</testsuite>\n</testsuites>\n")
    read = read_junit_file(write_text(tmp_path / "xctest.xml", text))
    assert read.totals == Totals(tests=9, passed=9, unique=6)
    assert read.mismatches == ()


def _gotestsum_rerun(tmp_path: Path) -> Path:
    """gotestsum --junitfile with --rerun-fails: the rerun is appended as another case; the
    root and the suite count tests by name (3) and keep the first attempt's failure."""
    race = (f'<testcase classname="{_API4}" name="TestWebSocketReconnectRace"')
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites tests="3" failures="1" errors="0" time="4.211">\n'
        f'  <testsuite tests="3" failures="1" time="4.211" name="{_API4}"'
        ' timestamp="2026-08-27T18:05:00Z">\n'
        '    <properties><property name="go.version" value="go1.22.1 linux/amd64"/>'
        "</properties>\n"
        f'    {race} time="1.020"><failure message="Failed" type="">'
        "=== RUN   TestWebSocketReconnectRace\n    websocket_test.go:88: timed out"
        "\n--- FAIL: TestWebSocketReconnectRace (1.02s)\n</failure></testcase>\n"
        f'    <testcase classname="{_API4}" name="TestCreateChannelBookmark" time="0.000">'
        '<skipped message="=== RUN   TestCreateChannelBookmark"/></testcase>\n'
        f'    <testcase classname="{_API4}" name="TestWebSocketUpgrade" time="0.200"/>\n'
        f'    {race} time="0.910"/>\n'
        "  </testsuite>\n</testsuites>\n"
    )
    return write_text(tmp_path / "junit.xml", text)


def test_gotestsum_reruns_merge_with_the_switch_only(tmp_path: Path) -> None:
    """gotestsum --rerun-fails writes the rerun as another case of the same name; its suite
    says tests="3" failures="1". With the policy switch: 3 tests, one flaky pass."""
    path = _gotestsum_rerun(tmp_path)
    merged = read_junit_file(path, options=REPEATED)
    assert merged.totals == Totals(tests=3, passed=2, skipped=1, flaky=1, unique=3)
    assert merged.flaky == (f"{_API4}::TestWebSocketReconnectRace",)
    assert merged.failing == ()
    separate = read_junit_file(path)
    assert separate.totals == Totals(tests=4, passed=2, failures=1, skipped=1, unique=3)
    # the suite's tests="3" is the tool's merged count; its failures="1" is not hidden
    assert [(m.stated_tests, m.counted_tests, m.hides_failures)
            for m in separate.mismatches] == [(3, 4, False)] * 2  # the suite and the root


def test_surefire_flaky_and_rerun_elements(tmp_path: Path) -> None:
    """Surefire (rerunFailingTestsCount) marks reruns inside one case: no switch needed."""
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuite name="com.acme.FooTest" tests="3" failures="1" errors="0" skipped="0"'
        ' flakes="1">\n'
        '  <testcase name="flaky" classname="com.acme.FooTest" time="0.2">\n'
        '    <flakyFailure message="once" type="java.lang.AssertionError">trace</flakyFailure>\n'
        '    <flakyError message="twice" type="java.io.IOException">trace</flakyError>\n'
        "  </testcase>\n"
        '  <testcase name="broken" classname="com.acme.FooTest" time="0.2">\n'
        '    <failure message="always" type="java.lang.AssertionError">trace</failure>\n'
        '    <rerunFailure message="again" type="java.lang.AssertionError">trace</rerunFailure>\n'
        "  </testcase>\n"
        '  <testcase name="fine" classname="com.acme.FooTest" time="0.1"/>\n'
        "</testsuite>\n"
    )
    path = write_text(tmp_path / "TEST-com.acme.FooTest.xml", text)
    for options in (JUnitOptions(), REPEATED):
        read = read_junit_file(path, options=options)
        assert read.totals == Totals(tests=3, passed=2, failures=1, flaky=1, unique=3)
        assert read.flaky == ("com.acme.FooTest::flaky",)
        assert [t.identity for t in read.failing] == ["com.acme.FooTest::broken"]
        assert read.mismatches == ()


def test_a_prove_suite_error_is_a_suite_error_not_one_more_test(tmp_path: Path) -> None:
    """TAP::Harness::JUnit (prove): "Dubious, test returned 2" is an <error> of the suite,
    outside any testcase: an error of the run, counted in suite_errors, not a 4th test."""
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
        '  <testsuite name="t_basic_t" errors="1" failures="1" tests="3" time="0.05">\n'
        '    <testcase name="1 - loads"/>\n'
        '    <testcase name="2 - parses"><failure type="TestFailed"'
        ' message="not ok 2 - parses">not ok 2 - parses</failure></testcase>\n'
        '    <testcase name="3 - writes"/>\n'
        '    <error message="Dubious, test returned 2 (wstat 512, 0x200)" />\n'
        "    <system-out>1..3\nok 1 - loads\nnot ok 2 - parses\nok 3 - writes\n</system-out>\n"
        "  </testsuite>\n</testsuites>\n"
    )
    read = read_junit_file(write_text(tmp_path / "prove.xml", text))
    assert read.totals == Totals(tests=3, passed=2, failures=1, errors=1, unique=3,
                                 suite_errors=1)
    assert [t.identity for t in read.failing] == [
        "t_basic_t::2 - parses", "t_basic_t::(error outside any testcase)"
    ]
    assert read.failing[1].message == "Dubious, test returned 2 (wstat 512, 0x200)"
    assert read.mismatches == ()  # its failures+errors (2) are what was counted
