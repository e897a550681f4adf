"""The counting rule, identities, times and properties, on files written for each case."""

from __future__ import annotations

import io
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import Outcome, Totals
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence.junit_names import aliases, identity, pytest_node_id
from gate.evidence.junit_reader import read_junit_file
from gate.evidence.junit_time import parse_suite_timestamp
from tests.junit_files import Case, Suite, write_junit, write_text


def _suite(body: str, attrs: str = "") -> str:
    return f'<?xml version="1.0"?>\n<testsuite name="s" {attrs}>\n{body}\n</testsuite>\n'


def test_each_case_counts_by_its_most_severe_result(tmp_path: Path) -> None:
    path = write_text(tmp_path / "r.xml", _suite(
        '<testcase classname="c" name="a"><skipped/><failure message="f"/><error message="e"/>'
        '</testcase>'
        '<testcase classname="c" name="b"><skipped/><failure message="f"/></testcase>'
        '<testcase classname="c" name="c"><skipped message="why"/></testcase>'
        '<testcase classname="c" name="d"><system-out>hi</system-out></testcase>'
        '<testcase classname="c" name="e" status="notrun"/>'
        '<testcase classname="c" name="f" status="run" result="skipped"/>'
        '<testcase classname="c" name="g" result="suppressed"/>'
        '<testcase classname="c" name="h" status="run" result="completed"/>'
    ))
    read = read_junit_file(path)
    assert read.totals == Totals(tests=8, passed=2, failures=1, errors=1, skipped=4, unique=8)
    assert [(t.identity, t.outcome) for t in read.failing] == [
        ("c::a", Outcome.ERROR), ("c::b", Outcome.FAILURE)
    ]
    assert read.failing[0].message == "e"


def test_tests_attributes_are_ignored(tmp_path: Path) -> None:
    """They never change the counts; a disagreement is recorded as a fact on the file."""
    path = write_text(tmp_path / "r.xml", _suite(
        '<testcase classname="c" name="a"/>', 'tests="900" failures="4" errors="3" skipped="2"'
    ))
    read = read_junit_file(path)
    assert read.totals == Totals(tests=1, passed=1, unique=1)
    (mismatch,) = read.mismatches
    assert (mismatch.suite, mismatch.stated_tests, mismatch.counted_tests) == ("s", 900, 1)
    assert (mismatch.stated_failing, mismatch.counted_failing) == (7, 0)
    assert mismatch.hides_failures


def test_flaky_failure_on_a_passing_case_is_a_flaky_pass(tmp_path: Path) -> None:
    path = write_text(tmp_path / "r.xml", _suite(
        '<testcase classname="c" name="a"><flakyFailure message="once"/>'
        '<flakyError message="twice"/></testcase>'
        '<testcase classname="c" name="b"><rerunFailure/><failure message="always"/></testcase>'
    ))
    read = read_junit_file(path)
    assert read.totals == Totals(tests=2, passed=1, failures=1, flaky=1, unique=2)
    assert read.flaky == ("c::a",)


REPEATED = JUnitOptions(Reruns.REPEATED_CASES)


def _attempts(attempts: list[str]) -> str:
    body = "".join(
        f'<testcase classname="c" name="t">{"" if a == "passed" else f"<{a}/>"}</testcase>'
        for a in attempts
    )
    return body + '<testcase classname="c" name="other"/>'


@pytest.mark.parametrize(
    ("attempts", "expected", "flaky"),
    [
        (["failure", "error", "passed"], Totals(tests=1, passed=1, flaky=1), ("c::t",)),
        (["passed", "failure"], Totals(tests=1, failures=1), ()),
        (["passed", "passed"], Totals(tests=1, passed=1), ()),
        (["skipped", "failure"], Totals(tests=1, failures=1), ()),
        (["failure", "skipped"], Totals(tests=1, skipped=1), ()),
        (["passed", "failure", "passed"], Totals(tests=1, passed=1, flaky=1), ("c::t",)),
        (["error", "failure"], Totals(tests=1, failures=1), ()),
        (["flakyFailure", "failure"], Totals(tests=1, failures=1), ()),
        (["flakyFailure", "passed"], Totals(tests=1, passed=1, flaky=1), ("c::t",)),
    ],
)
def test_repeated_identity_with_the_switch_is_attempts_last_wins(
    tmp_path: Path, attempts: list[str], expected: Totals, flaky: tuple[str, ...]
) -> None:
    """`junit.reruns: repeated-cases`: the policy says the tool writes reruns as cases."""
    path = write_text(tmp_path / "r.xml", _suite(_attempts(attempts)))
    read = read_junit_file(path, options=REPEATED)
    assert read.totals == expected + Totals(tests=1, passed=1, unique=2)
    assert read.flaky == flaky
    assert read.reruns == "repeated-cases"
    if expected.failures:
        assert read.failing[0].attempts == len(attempts)


@pytest.mark.parametrize(
    ("attempts", "expected"),
    [
        (["failure", "error", "passed"], Totals(tests=3, passed=1, failures=1, errors=1)),
        (["passed", "failure"], Totals(tests=2, passed=1, failures=1)),
        (["passed", "passed"], Totals(tests=2, passed=2)),
        (["failure", "skipped"], Totals(tests=2, failures=1, skipped=1)),
        (["flakyFailure", "passed"], Totals(tests=2, passed=2, flaky=1)),
    ],
)
def test_repeated_identity_by_default_is_separate_runs_and_a_failure_stands(
    tmp_path: Path, attempts: list[str], expected: Totals
) -> None:
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(_attempts(attempts))))
    assert read.totals == expected + Totals(tests=1, passed=1, unique=2)
    assert read.reruns == "separate"
    assert [t.identity for t in read.failing] == [
        "c::t" for a in attempts if a in ("failure", "error")
    ]
    assert all(t.attempts == 1 for t in read.failing)


def test_same_test_in_two_files_counts_twice(tmp_path: Path) -> None:
    from gate.evidence.junit import read_run

    first = write_junit(tmp_path / "a.xml", [Suite("s", (Case("test_a"),))])
    second = write_junit(tmp_path / "b.xml", [Suite("s", (Case("test_a", result="failure"),))])
    run = read_run([str(first), str(second)])
    assert run.totals == Totals(tests=2, passed=1, failures=1, unique=2)


@pytest.mark.parametrize("options", [JUnitOptions(), REPEATED], ids=["separate", "repeated"])
@pytest.mark.parametrize("plain_pass", [True, False], ids=["plain-pass", "pass-with-output"])
def test_a_pass_in_another_suite_element_never_hides_a_failure(
    tmp_path: Path, plain_pass: bool, options: JUnitOptions
) -> None:
    """A file merged from two runs (py310 failed, py311 passed): two runs, one failure."""
    passing = ('<testcase classname="c" name="t"/>' if plain_pass else
               '<testcase classname="c" name="t"><system-out>ok</system-out></testcase>')
    text = ('<?xml version="1.0"?>\n<testsuites>'
            '<testsuite name="py310"><testcase classname="c" name="t"><failure/></testcase>'
            '</testsuite>'
            f'<testsuite name="py311">{passing}</testsuite></testsuites>\n')
    read = read_junit_file(write_text(tmp_path / "merged.xml", text), options=options)
    assert read.totals == Totals(tests=2, passed=1, failures=1, unique=2)
    assert [t.identity for t in read.failing] == ["c::t"]
    assert read.flaky == ()


def test_a_failure_then_a_pass_in_one_suite_element_is_a_flaky_pass_only_with_the_switch(
    tmp_path: Path,
) -> None:
    body = ('<testcase classname="c" name="t"><failure/></testcase>'
            '<testcase classname="c" name="t"/>')
    path = write_text(tmp_path / "r.xml", _suite(body))
    read = read_junit_file(path, options=REPEATED)
    assert read.totals == Totals(tests=1, passed=1, flaky=1, unique=1)
    separate = read_junit_file(path)
    assert separate.totals == Totals(tests=2, passed=1, failures=1, unique=1)


def test_unnamed_cases_are_never_merged(tmp_path: Path) -> None:
    body = "<testcase/><testcase><failure/></testcase><testcase/>"
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert read.totals == Totals(tests=3, passed=2, failures=1, unique=3)
    assert read_junit_file(tmp_path / "r.xml", options=REPEATED).totals == read.totals


def test_many_passing_cases_keep_no_names(tmp_path: Path) -> None:
    body = "".join(f'<testcase classname="c" name="t{i}"/>' for i in range(5000))
    body += '<testcase classname="c" name="t17"><failure message="late"/></testcase>'
    path = write_text(tmp_path / "r.xml", _suite(body))
    read = read_junit_file(path, options=REPEATED)
    assert read.totals == Totals(tests=5000, passed=4999, failures=1, unique=5000)
    assert read.named == {}
    assert read.failing[0].attempts == 2  # found again by its digest, not by a kept name
    separate = read_junit_file(path)
    assert separate.totals == Totals(tests=5001, passed=5000, failures=1, unique=5000)
    assert separate.named == {}


def test_suite_level_error_is_an_error_of_the_run_not_a_test(tmp_path: Path) -> None:
    body = '<error message="setUpClass failed">Traceback</error>'
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert read.totals == Totals(tests=0, errors=1, unique=0, suite_errors=1)
    assert read.failing[0].message == "setUpClass failed"
    assert read.failing[0].name == "(error outside any testcase)"


def test_nested_suites_and_namespaces(tmp_path: Path) -> None:
    text = (
        '<testsuites xmlns="urn:x"><testsuite name="outer"><testsuite name="inner">'
        '<testcase name="a"/><testcase name="b"><failure/></testcase>'
        '</testsuite></testsuite></testsuites>'
    )
    read = read_junit_file(write_text(tmp_path / "r.xml", text))
    assert read.totals == Totals(tests=2, passed=1, failures=1, unique=2)
    assert read.failing[0].identity == "inner::b"
    assert read.suites == 2


def test_failure_place_from_attributes_and_pytest_text(tmp_path: Path) -> None:
    body = (
        '<testcase classname="tests.test_x" name="a" file="tests/test_x.py" line="12">'
        '<failure message="m"/></testcase>'
        '<testcase classname="tests.test_x" name="b"><failure>def test_b():\n'
        '&gt;   assert 1 == 2\ntests/test_x.py:40: AssertionError</failure></testcase>'
    )
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert [(t.file, t.line) for t in read.failing] == [
        ("tests/test_x.py", 12), ("tests/test_x.py", 40)
    ]
    assert read.failing[1].message == "def test_b():"


def test_a_file_uri_place_is_the_path_it_names(tmp_path: Path) -> None:
    """node's stack traces name ES modules by `file:` URI: the place is the path, not
    `///home/...` (the regex used to start after the scheme), in the text and in `file`."""
    module = "/home/runner/work/app/test/cart.test.mjs"
    body = (
        '<testcase classname="cart" name="adds"><failure>AssertionError: 1 == 2\n'
        f"    at TestContext.&lt;anonymous&gt; (file://{module}:12:5)</failure></testcase>"
        f'<testcase classname="cart" name="drops" file="file://{module}" line="30">'
        '<failure message="m"/></testcase>'
        '<testcase classname="cart" name="local" file="file://localhost/srv/my%20app/a.mjs">'
        '<failure message="m"/></testcase>'
        '<testcase classname="cart" name="plain" file="test/cart.test.mjs" line="7">'
        '<failure message="m"/></testcase>'
    )
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert [(t.file, t.line) for t in read.failing] == [
        (module, 12), (module, 30), ("/srv/my app/a.mjs", None), ("test/cart.test.mjs", 7)
    ]


def test_pytest_xunit1_lines_are_read_as_the_lines_an_editor_shows(tmp_path: Path) -> None:
    """pytest writes a case's `line` as its 0-based location of the `def`; unittest-xml-
    reporting (and PHPUnit, and the rest) write the 1-based line, which is kept as written."""
    case = ('<testcase classname="tests.test_x" name="t" file="tests/test_x.py" line="{}">'
            '<failure message="m"/></testcase>')
    by_pytest = {
        "suite": f'<testsuites><testsuite name="pytest">{case.format(10)}</testsuite></testsuites>',
        "root": (f'<testsuites name="pytest tests"><testsuite name="custom">{case.format(0)}'
                 "</testsuite></testsuites>"),
    }
    lines = {label: read_junit_file(write_text(tmp_path / f"{label}.xml", text)).failing[0].line
             for label, text in by_pytest.items()}
    assert lines == {"suite": 11, "root": 1}
    other = _suite(case.format(23), 'file=".py"')  # unittest-xml-reporting's shape
    assert read_junit_file(write_text(tmp_path / "xmlrunner.xml", other)).failing[0].line == 23


def test_a_nested_suites_own_counts_cover_only_its_own_cases(tmp_path: Path) -> None:
    """A suite's stated `tests`/`failures` are compared with the cases inside it: loose cases
    its parent holds before it (or between it and a sibling) are the parent's, not its own."""
    text = (
        '<testsuites><testsuite name="outer" tests="5" failures="3">'
        '<testcase classname="c" name="a"/><testcase classname="c" name="b"><failure/></testcase>'
        '<testsuite name="first" tests="1" failures="1">'
        '<testcase classname="c" name="i"><failure/></testcase></testsuite>'
        '<testcase classname="c" name="x"><failure/></testcase>'
        '<testsuite name="second" tests="1" failures="{}">'
        '<testcase classname="c" name="j"/></testsuite>'
        "</testsuite></testsuites>"
    )
    honest = read_junit_file(write_text(tmp_path / "honest.xml", text.format(0)))
    assert honest.totals == Totals(tests=5, passed=2, failures=3, unique=5)
    assert honest.mismatches == ()
    # a nested suite that does misstate its own cases is still caught
    (found,) = read_junit_file(write_text(tmp_path / "wrong.xml", text.format(1))).mismatches
    assert (found.suite, found.stated_tests, found.counted_tests) == ("second", 1, 1)
    assert (found.stated_failing, found.counted_failing) == (1, 0)


def test_named_tests_are_kept_by_any_alias(tmp_path: Path) -> None:
    path = write_junit(tmp_path / "r.xml", [Suite("s", (
        Case("test_z"), Case("test_q", result="failure"), Case("test_w", result="skipped"),
    ))])
    wanted = ["tests/test_x.py::TestY::test_z", "tests.test_x.TestY.test_q", "test_w", "nope"]
    read = read_junit_file(path, wanted)
    assert read.named == {
        "tests.test_x.TestY::test_z": Outcome.PASSED,
        "tests.test_x.TestY::test_q": Outcome.FAILURE,
        "tests.test_x.TestY::test_w": Outcome.SKIPPED,
    }
    assert read.matches["tests/test_x.py::TestY::test_z"] == ("tests.test_x.TestY::test_z",)
    assert "nope" not in read.matches


def test_identity_and_pytest_node_ids() -> None:
    assert identity("a.B", "t", "s") == "a.B::t"
    assert identity("", "t", "s") == "s::t"
    assert identity("", "t", "") == "t"
    assert pytest_node_id("tests.test_x.TestY", "test_z", None) == "tests/test_x.py::TestY::test_z"
    assert pytest_node_id("tests.test_x", "test_z[1-2]", None) == "tests/test_x.py::test_z[1-2]"
    assert pytest_node_id("pkg.test_m.TestA.TestB", "t", "pkg/test_m.py") == (
        "pkg/test_m.py::TestA::TestB::t"
    )
    assert pytest_node_id("com.acme.FooTest", "testBar", None) == "com/acme.py::FooTest::testBar"
    assert pytest_node_id("weird name", "t", None) is None
    assert aliases("a.B", "t", "s", None) == {"a.B::t", "t", "a.B.t", "a.py::B::t"}


def test_commit_and_tree_properties(tmp_path: Path) -> None:
    path = write_junit(tmp_path / "r.xml", [Suite(
        "s", (Case("t"),),
        properties=(("claim-gate.commit", "ABC1234"), ("claim-gate.tree_clean", "false"),
                    ("java.version", "21")),
    )])
    read = read_junit_file(path)
    assert read.commits == (("claim-gate.commit", "ABC1234"),)
    assert read.tree_clean == "false"


def test_case_properties_do_not_name_the_commit(tmp_path: Path) -> None:
    body = ('<testcase classname="c" name="t"><properties>'
            '<property name="git.commit" value="deadbeef"/></properties></testcase>')
    assert read_junit_file(write_text(tmp_path / "r.xml", _suite(body))).commits == ()


def test_zoned_timestamp_with_milliseconds_is_the_time(tmp_path: Path) -> None:
    body = '<testcase classname="c" name="t" time="0.0015"/>'  # a time, not a timestamp
    path = write_text(tmp_path / "r.xml", _suite(body, 'timestamp="2026-08-27T18:05:00.123+02:00"'))
    read = read_junit_file(path)
    assert read.time.source == "timestamp"
    assert read.time.at == datetime(2026, 8, 27, 16, 5, 0, 123000, tzinfo=UTC)


def test_naive_timestamp_falls_back_to_mtime_and_says_so(tmp_path: Path) -> None:
    path = write_text(tmp_path / "r.xml", _suite(
        '<testcase classname="c" name="t"/>', 'timestamp="2026-08-27T18:05:00.123"'
    ))
    read = read_junit_file(path)
    assert read.time.source == "mtime"
    assert read.time.at == datetime.fromtimestamp(path.stat().st_mtime, UTC)
    assert "has no time zone" in read.time.note
    assert "never read as UTC" in read.time.note


def test_earliest_zoned_suite_timestamp_wins(tmp_path: Path) -> None:
    path = write_junit(tmp_path / "r.xml", [
        Suite("late", (Case("a"),), "2026-08-27T18:10:00Z"),
        Suite("early", (Case("b"),), "2026-08-27T18:06:00Z"),
    ])
    assert read_junit_file(path).time.at == datetime(2026, 8, 27, 18, 6, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-08-27T18:05:00Z", datetime(2026, 8, 27, 18, 5, tzinfo=UTC)),
        ("2026-08-27T18:05:00.5-05:00",
         datetime(2026, 8, 27, 18, 5, 0, 500000, tzinfo=timezone(timedelta(hours=-5)))),
        ("2021-03-07T10:36:56 UTC", datetime(2021, 3, 7, 10, 36, 56, tzinfo=UTC)),
        ("Sat, 03 Dec 2022 23:10:07 GMT", datetime(2022, 12, 3, 23, 10, 7, tzinfo=UTC)),
        ("2026-08-27T18:05:00+0100",
         datetime(2026, 8, 27, 18, 5, tzinfo=timezone(timedelta(hours=1)))),
        ("2026-08-27T18:05:00", None),
        ("0001-01-01T00:00:00Z", None),
        ("T 12:40:13", None),
        ("2024-01-03", None),
    ],
)
def test_suite_timestamp_forms(text: str, expected: datetime | None) -> None:
    assert parse_suite_timestamp(text).at == expected


def test_times_in_any_notation_do_not_break_reading(tmp_path: Path) -> None:
    body = "".join(
        f'<testcase classname="c" name="t{i}" time="{t}"/>'
        for i, t in enumerate(["1.7e-05", "0.", "-345345", "2,503.1", "1234", "nan", ""])
    )
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert read.totals == Totals(tests=7, passed=7, unique=7)


def test_missing_file_and_directory_are_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file"):
        read_junit_file(tmp_path / "absent.xml")
    with pytest.raises(InvalidInput, match="is a directory"):
        read_junit_file(tmp_path)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.xml"
    os.mkfifo(fifo)
    with pytest.raises(InvalidInput, match="is not a regular file"):
        read_junit_file(fifo)


def test_the_cap_also_holds_while_reading(tmp_path: Path) -> None:
    """A file that grows after its size was checked is still stopped at the cap."""
    from gate.evidence.junit_reader import _CappedReader

    reader = _CappedReader(io.BytesIO(b"x" * 100), 60, "grown.xml")
    assert reader.read(50) == b"x" * 50
    with pytest.raises(InvalidInput, match=r"over the size cap \(100 > 60 bytes\)"):
        reader.read(50)


def test_size_cap_is_configurable(tmp_path: Path) -> None:
    path = write_junit(tmp_path / "r.xml", [Suite("s", (Case("t"),))])
    with pytest.raises(InvalidInput, match="over the size cap") as caught:
        read_junit_file(path, max_bytes=50)
    assert "--junit-max-bytes" in str(caught.value)
    assert read_junit_file(path, max_bytes=path.stat().st_size).totals.tests == 1


def test_truncated_file_names_line_and_column(tmp_path: Path) -> None:
    text = _suite('<testcase classname="c" name="t"/>\n<testcase classname="c" name="u">')
    path = write_text(tmp_path / "r.xml", text[:-20])
    with pytest.raises(InvalidInput) as caught:
        read_junit_file(path)
    assert caught.value.place is not None
    line, column = caught.value.place.split(":")
    assert int(line) >= 3
    assert int(column) >= 1


def test_failure_details_are_capped_but_every_failure_is_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gate.evidence.junit_reader as reader

    monkeypatch.setattr(reader, "MAX_DETAILED_FAILURES", 3)
    body = "".join(
        f'<testcase classname="c" name="t{i}"><failure message="m{i}"/></testcase>'
        for i in range(5)
    )
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert read.totals.failures == 5
    assert [t.message for t in read.failing] == ["m0", "m1", "m2", "", ""]
    assert [t.identity for t in read.failing][-1] == "c::t4"


def test_identities_are_kept_only_when_asked_and_only_up_to_the_cap(tmp_path: Path) -> None:
    """Comparing test sets needs every test's identity; the default read keeps none."""
    report = tmp_path / "ids.xml"
    report.write_text(
        '<testsuites><testsuite name="s">'
        '<testcase classname="a" name="t1"><failure/></testcase>'
        '<testcase classname="a" name="t2"><skipped/></testcase>'
        '<testcase classname="a" name="t3"/>'
        '<testcase classname="a" name="t1"/>'  # a rerun only if the policy says so
        '<testcase name="bare"/>'
        "</testsuite></testsuites>", encoding="utf-8")
    plain = read_junit_file(report)
    assert plain.identities is None
    kept = read_junit_file(report, identities=10)
    # Separate runs (the default): a failure of an identity stands, whatever follows.
    assert kept.identities == {"a::t1": Outcome.FAILURE, "a::t2": Outcome.SKIPPED,
                               "a::t3": Outcome.PASSED, "s::bare": Outcome.PASSED}
    assert kept.identities_complete
    assert kept.totals == plain.totals
    reruns = read_junit_file(report, identities=10, options=REPEATED)
    assert reruns.identities is not None
    assert reruns.identities["a::t1"] is Outcome.PASSED  # the switch: the last attempt decides
    capped = read_junit_file(report, identities=2)
    assert capped.identities is not None
    assert len(capped.identities) == 2
    assert not capped.identities_complete


def test_the_plugins_started_at_property_is_the_time_of_the_run(tmp_path: Path) -> None:
    """pytest writes a naive suite timestamp; the plugin's zoned started_at is the binding."""
    body = ('<properties><property name="claim-gate.started_at"'
            ' value="2026-08-27T18:04:05+02:00"/></properties>'
            '<testcase classname="c" name="t"/>')
    path = write_text(tmp_path / "r.xml", _suite(body, 'timestamp="2026-08-27T18:04:05"'))
    read = read_junit_file(path)
    assert read.time.at == datetime(2026, 8, 27, 16, 4, 5, tzinfo=UTC)
    assert "claim-gate.started_at" in read.time.note


def test_a_naive_started_at_is_not_read_as_utc(tmp_path: Path) -> None:
    body = ('<properties><property name="claim-gate.started_at" value="2026-08-27T18:04:05"/>'
            '</properties><testcase classname="c" name="t"/>')
    read = read_junit_file(write_text(tmp_path / "r.xml", _suite(body)))
    assert read.time.source == "mtime"
