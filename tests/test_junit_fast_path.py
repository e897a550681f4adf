"""The reader's shortcuts give the counts a full reading gives.

The parser target (junit_events) counts a passing case from its attribute dict and rebuilds
only what is judged in full; it drops text after each chunk, and counts `unique` per suite
element from string hashes (junit_unique). Each test here puts the thing a shortcut could
miss where it is hardest to see: past the first chunk, cut by a chunk boundary, in an
encoding whose bytes are not ASCII, in a suite element too large for one set, in a name
written with an entity.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.claim.junit_facts import Totals
from gate.claim.junit_options import JUnitOptions, Reruns
from gate.evidence import junit_unique
from gate.evidence.junit_reader import _CHUNK, read_junit_file

_HEAD = '<?xml version="1.0" encoding="{encoding}"?>\n<testsuite name="s">\n'
_PASSING = '<testcase classname="c" name="p{index}"><system-out>ok</system-out></testcase>\n'


def _late_status(attribute: str, encoding: str = "utf-8", cut: int | None = None) -> str:
    """Passing cases past the first two chunks, then a case carrying `attribute`; with `cut`,
    padding puts the chunk boundary `cut` characters into the attribute."""
    head = _HEAD.format(encoding=encoding)
    cases = "".join(_PASSING.format(index=index) for index in range(2000))
    late = f'<testcase classname="c" name="late" {attribute}/>\n'
    text = head + cases
    if cut is not None:
        opening = '<testcase classname="c" name="late" '
        width = len(text.encode(encoding)) + len("<!---->") + len(opening) + cut
        boundary = (width // _CHUNK + 1) * _CHUNK
        text += "<!--" + "x" * (boundary - width) + "-->"
        assert len((text + opening).encode(encoding)) + cut == boundary
    return text + late + "</testsuite>\n"


@pytest.mark.parametrize("attribute", [
    'status="notrun"', 'status="run" result="skipped"', 'result="suppressed"',
    'status = "disabled"', 'result\n\t=\n"skipped"',
])
def test_a_skip_status_past_the_first_chunk_is_seen(tmp_path: Path, attribute: str) -> None:
    path = tmp_path / "r.xml"
    path.write_text(_late_status(attribute), encoding="utf-8")
    assert path.stat().st_size > 2 * _CHUNK
    assert read_junit_file(path).totals == Totals(tests=2001, passed=2000, skipped=1, unique=2001)


@pytest.mark.parametrize("cut", [1, 3, 5, 6, 7, 9])
def test_a_status_cut_by_the_chunk_boundary_is_seen(tmp_path: Path, cut: int) -> None:
    """`status     =` with the boundary inside the name, after it, or before the `=`."""
    path = tmp_path / "r.xml"
    path.write_text(_late_status('status     ="notrun"', cut=cut), encoding="utf-8")
    assert read_junit_file(path).totals.skipped == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-16-le", "iso-8859-1"])
def test_other_encodings_are_read_in_full(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "r.xml"
    path.write_bytes(_late_status('status="notrun"', encoding=encoding).encode(encoding))
    assert read_junit_file(path).totals == Totals(tests=2001, passed=2000, skipped=1, unique=2001)


def test_a_case_named_result_costs_speed_not_counts(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text(_late_status('file="test_result_status.py"'), encoding="utf-8")
    assert read_junit_file(path).totals == Totals(tests=2001, passed=2001, unique=2001)


def _suites(*names: tuple[str, ...]) -> str:
    body = "".join(
        '<testsuite name="s">'
        + "".join(f'<testcase classname="c" name="{name}"/>' for name in suite)
        + "</testsuite>"
        for suite in names
    )
    return f'<?xml version="1.0"?>\n<testsuites>{body}</testsuites>\n'


@pytest.mark.parametrize("spill_at", [4, junit_unique.SPILL_AT])
def test_unique_counts_each_suite_element_alike_when_spilled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spill_at: int
) -> None:
    """A suite element too large for one set is counted from arrays: the same figures."""
    monkeypatch.setattr(junit_unique, "SPILL_AT", spill_at)
    first = tuple(f"t{index % 150}" for index in range(4000))  # 150 names, repeated
    second = tuple(f"t{index}" for index in range(100))  # the same names again: 100 more
    path = tmp_path / "r.xml"
    path.write_text(_suites(first, second), encoding="utf-8")
    assert path.stat().st_size > 2 * _CHUNK  # spilled between chunks, mid-suite
    assert read_junit_file(path).totals == Totals(tests=4100, passed=4100, unique=250)
    merged = read_junit_file(path, options=JUnitOptions(Reruns.REPEATED_CASES))
    assert merged.totals == Totals(tests=250, passed=250, unique=250)


def test_a_name_written_with_entities_is_one_identity(tmp_path: Path) -> None:
    """`&amp;`, `&#38;` and a CDATA-free `&` in a failing case: the counted identity and the
    failing test's name are the same text, whichever path read the case."""
    path = tmp_path / "r.xml"
    path.write_text(
        '<testsuite name="s">'
        '<testcase classname="c" name="a &amp; b"/>'
        '<testcase classname="c" name="a &#38; b"><failure message="m"/></testcase>'
        '<testcase classname="c" name="a &lt; b"/>'
        "</testsuite>", encoding="utf-8")
    read = read_junit_file(path)
    assert read.totals == Totals(tests=3, passed=2, failures=1, unique=2)
    assert [test.identity for test in read.failing] == ["c::a & b"]
