"""Numbers read from outside: a hostile digit is no number, never an exception.

`str.isdigit()` accepts `"²"` and `int()` refuses it, and `int()` refuses more than 4,300
digits; before `gate.claim.decimal_text`, a JUnit report with `tests="²"` or `line="²"` made
`claim-gate junit` stop with an internal error instead of reading the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.claim.decimal_text import MAX_DIGITS, decimal
from gate.evidence.junit_reader import read_junit_file


@pytest.mark.parametrize(("text", "number"), [
    ("0", 0), ("12", 12), (" 7\n", 7), ("9" * MAX_DIGITS, int("9" * MAX_DIGITS)),
    (None, None), ("", None), ("-1", None), ("+1", None), ("1.0", None), ("1_000", None),
    ("\u00b2", None), ("\u0661\u0662", None), ("9" * (MAX_DIGITS + 1), None),
])
def test_only_ascii_digits_within_ints_reach_are_a_number(text: str | None,
                                                          number: int | None) -> None:
    assert decimal(text) == number


def test_a_report_stating_unicode_digits_is_read_not_raised(tmp_path: Path) -> None:
    report = tmp_path / "hostile.xml"
    report.write_text(
        '<testsuite name="x" tests="\u00b2" failures="\u00b2">'
        '<testcase name="ok"/>'
        '<testcase name="bad" file="a.py" line="\u00b2"><failure message="m"/></testcase>'
        "</testsuite>", "utf-8")
    read = read_junit_file(report)
    assert (read.totals.tests, read.totals.failures) == (2, 1)
    assert read.failing[0].line is None  # the stated line is no number: none is invented
