"""A smoke test of the benchmark's generator (the benchmark itself is not run here)."""

from __future__ import annotations

from pathlib import Path

from bench.junit_bench import generate
from gate.evidence.junit_reader import read_junit_file


def test_generated_files_read_to_their_design(tmp_path: Path) -> None:
    path = generate(tmp_path / "junit.xml", 2500)
    read = read_junit_file(path)
    assert read.totals.tests == 2500
    assert read.totals.failures == 25
    assert read.suites == 3
    assert read.time.source == "timestamp"
    assert read.failing[0].file == "tests/unit/module_00000.py"
    assert 150 < path.stat().st_size / 2500 < 250


def test_the_output_shape_gives_every_passing_case_a_system_out(tmp_path: Path) -> None:
    path = generate(tmp_path / "junit.xml", 2500, output=True)
    read = read_junit_file(path)
    assert read.totals.tests == 2500
    assert read.totals.unique == 2500
    assert read.totals.failures == 25
    assert read.mismatches == ()  # the generator's suite attributes agree with the cases
    assert path.read_text(encoding="utf-8").count("<system-out>") == 2475


def test_the_floor_reads_as_the_reader_does(tmp_path: Path) -> None:
    """The floor feeds lxml the reader's chunk size and sees every case and every element
    a reader needs as an event (25 failures, 3 suites and their properties, the root)."""
    from bench.junit_floor import CHUNK, floor
    from gate.evidence.junit_reader import _CHUNK

    assert CHUNK == _CHUNK
    path = generate(tmp_path / "junit.xml", 2500, output=True)
    assert floor(str(path)) == (2500, 25 + 3 + 3 + 1)
