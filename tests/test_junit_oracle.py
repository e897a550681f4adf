"""The streaming reader against a naive reading of the documented counting rule.

The oracle below loads the whole tree and applies the rule as docs/junit.md states it, in
the most obvious way (every case kept by name), for both settings of `junit.reruns`. The
streaming reader keeps digests instead of names and takes shortcuts for plain passing
cases; it must agree on every corpus file and on generated files full of repeats, retries
and skips.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from gate.claim.junit_facts import Outcome, Totals
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence.junit_reader import read_junit_file
from tests.junit_tools import ToolReport
from tests.test_junit_corpus import NOT_JUNIT, PRESENT, ROWS

_SEVERITY = {"error": 3, "failure": 2, "skipped": 1}
_SKIP = {"notrun", "skipped", "skip", "disabled", "ignored", "suppressed"}
_RETRY = {"flakyFailure", "flakyError", "rerunFailure", "rerunError"}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def oracle(path: Path, repeated: bool = False) -> tuple[Totals, set[str]]:
    """Totals and failing identities, by the rule, from the whole tree. By default each case
    is one test; `repeated`: same-identity cases in one suite element are its attempts."""
    root = etree.parse(str(path), etree.XMLParser(resolve_entities=False)).getroot()
    attempts: dict[tuple[int, str], list[tuple[int, bool]]] = {}
    unnamed = 0
    suite_errors = 0
    suite_level: set[tuple[int, str]] = set()  # a suite's own failure/error: not a test
    cases: list[tuple[tuple[int, str], int, bool]] = []  # every case, in order
    scope = 0  # attempts merge only within one <testsuite> element: count the closed ones
    for _, element in etree.iterwalk(root, events=("end",)):
        if not isinstance(element.tag, str):
            continue
        tag = _local(element.tag)
        parent = element.getparent()
        if tag == "testsuite":
            scope += 1
            continue
        if tag == "testcase":
            severity = max(
                (_SEVERITY.get(_local(c.tag), 0) for c in element if isinstance(c.tag, str)),
                default=0,
            )
            retried = any(
                isinstance(c.tag, str) and _local(c.tag) in _RETRY for c in element
            )
            status = {(element.get(a) or "").strip().lower() for a in ("status", "result")}
            if severity == 0 and status & _SKIP:
                severity = 1
            name, classname = element.get("name") or "", element.get("classname") or ""
            suite = (parent.get("name") or "") if parent is not None else ""
        elif tag in ("failure", "error") and parent is not None and \
                _local(str(parent.tag)) == "testsuite":
            severity, retried = _SEVERITY[tag], False
            name, classname = f"({tag} outside any testcase)", ""
            suite = parent.get("name") or ""
            suite_errors += 1
        else:
            continue
        if not name and not classname:
            unnamed += 1
            key = f"(unnamed testcase #{unnamed})"
        elif classname:
            key = f"{classname}::{name}"
        else:
            key = f"{suite}::{name}" if suite else name
        if tag != "testcase":
            suite_level.add((scope, key))
        attempts.setdefault((scope, key), []).append((severity, retried and severity == 0))
        cases.append(((scope, key), severity, retried and severity == 0))
    tests = passed = failures = errors = skipped = flaky = 0
    failing: set[str] = set()
    if not repeated:
        for (scope, key), severity, was_flaky in cases:
            tests += (scope, key) not in suite_level
            passed += severity == 0
            flaky += was_flaky
            skipped += severity == 1
            failures += severity == 2
            errors += severity == 3
            if severity >= 2:
                failing.add(key)
        unique = len({scoped for scoped, _, _ in cases if scoped not in suite_level})
        return Totals(tests, passed, failures, errors, skipped, flaky, unique,
                      suite_errors), failing
    for (scope, key), tries in attempts.items():
        final = tries[-1][0]
        tests += (scope, key) not in suite_level
        if final == 0:
            passed += 1
            flaky += any(sev >= 2 or was_flaky for sev, was_flaky in tries)
        elif final == 1:
            skipped += 1
        else:
            failing.add(key)
            if final == 3:
                errors += 1
            else:
                failures += 1
    return Totals(tests, passed, failures, errors, skipped, flaky, tests, suite_errors), failing


_MODES = pytest.mark.parametrize("repeated", [False, True], ids=["separate", "repeated"])


def _options(repeated: bool) -> JUnitOptions:
    return JUnitOptions(Reruns.REPEATED_CASES if repeated else Reruns.SEPARATE)


#: The corpora's files that read (the others are refused: tests/test_junit_corpus.py).
READABLE = [row.path for row in ROWS if not row.expected.refuse and row.key not in NOT_JUNIT]


@PRESENT
@_MODES
def test_the_reader_agrees_with_the_oracle_on_the_corpus(repeated: bool) -> None:
    checked = 0
    for path in READABLE:
        read = read_junit_file(path, options=_options(repeated))
        totals, failing = oracle(path, repeated)
        assert read.totals == totals, path
        assert {test.identity for test in read.failing} == failing, path
        checked += 1
    assert checked == 61 + 54  # junit-corpus, junit-corpus-2


@_MODES
def test_the_reader_agrees_with_the_oracle_on_what_the_tools_write(
    repeated: bool, xunit1_report: ToolReport, xunit2_report: ToolReport,
    reruns_report: ToolReport, xmlrunner: ToolReport,
) -> None:
    """Without the corpora too: pytest (both families, with reruns) and xmlrunner's files."""
    for report in (xunit1_report, xunit2_report, reruns_report, xmlrunner):
        read = read_junit_file(report.path, options=_options(repeated))
        totals, failing = oracle(report.path, repeated)
        assert read.totals == totals, report.tool
        assert {test.identity for test in read.failing} == failing, report.tool


def _named_identities(path: Path) -> set[str]:
    """Every named case's identity and every suite-level failure's, from the whole tree."""
    root = etree.parse(str(path), etree.XMLParser(resolve_entities=False)).getroot()
    found = set()
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        tag, parent = _local(element.tag), element.getparent()
        suite = (parent.get("name") or "") if parent is not None else ""
        if tag == "testcase":
            name, classname = element.get("name") or "", element.get("classname") or ""
            if name or classname:
                found.add(f"{classname}::{name}" if classname else
                          f"{suite}::{name}" if suite else name)
        elif tag in ("failure", "error") and parent is not None and \
                _local(str(parent.tag)) == "testsuite":
            found.add(f"{suite}::({tag} outside any testcase)" if suite else
                      f"({tag} outside any testcase)")
    return found


@PRESENT
@_MODES
def test_keeping_identities_changes_no_count_and_keeps_every_identity(repeated: bool) -> None:
    """Comparing test sets reads with `identities`: passing cases take a shorter path then."""
    for path in READABLE:
        plain = read_junit_file(path, options=_options(repeated))
        kept = read_junit_file(path, identities=1_000_000, options=_options(repeated))
        assert kept.totals == plain.totals, path
        assert kept.failing == plain.failing, path
        assert kept.identities is not None
        assert kept.identities_complete
        assert set(kept.identities) == _named_identities(path), path
        for test in kept.failing:  # an unnamed case has no identity to compare
            if not test.identity.startswith("(unnamed testcase #"):
                assert kept.identities[test.identity] >= Outcome.FAILURE, path


_RESULTS = st.sampled_from([
    "", "", "", "<failure/>", "<error/>", "<skipped/>", "<flakyFailure/>",
    "<rerunFailure/><failure/>", "<rerunError/>", "<skipped/><failure/>",
    "<system-out>x</system-out>",
])
_CASE = st.tuples(
    st.sampled_from(["", "a.B", "a.C"]),           # classname (few, to force repeats)
    st.sampled_from(["", "t1", "t2", "t3"]),        # name
    _RESULTS,
    st.sampled_from(["", ' status="notrun"', ' status="run" result="skipped"', ' status="run"',
                     ' result="suppressed"']),
)
_SUITE = st.tuples(st.sampled_from(["s1", "s2"]), st.lists(_CASE, max_size=12),
                   st.booleans())


def _document(suites: list[tuple[str, list[tuple[str, str, str, str]], bool]]) -> str:
    parts = ["<testsuites>"]
    for name, cases, suite_error in suites:
        parts.append(f'<testsuite name="{name}">')
        for classname, case_name, result, status in cases:
            attributes = "".join(
                f' {key}="{value}"' for key, value in (("classname", classname),
                                                      ("name", case_name)) if value
            )
            parts.append(f"<testcase{attributes}{status}>{result}</testcase>")
        if suite_error:
            parts.append('<error message="setup failed"/>')
        parts.append("</testsuite>")
    parts.append("</testsuites>")
    return "".join(parts)


@_MODES
@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(suites=st.lists(_SUITE, min_size=1, max_size=4))
def test_the_reader_agrees_with_the_oracle_on_generated_files(
    tmp_path: Path, suites: list[tuple[str, list[tuple[str, str, str, str]], bool]],
    repeated: bool,
) -> None:
    path = tmp_path / "generated.xml"
    path.write_text(_document(suites), encoding="utf-8")
    read = read_junit_file(path, options=_options(repeated))
    totals, failing = oracle(path, repeated)
    assert read.totals == totals
    assert {test.identity for test in read.failing} == failing
