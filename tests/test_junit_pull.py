"""The JUnit body is pulled by libxml2 through the capped reader, a whole chunk per read.

What the switch from feeding the parser to letting it pull (`etree.parse` of a file object)
must not change: every byte of the file is read, hashed once and counted against the cap,
also the bytes after the root element, and the gate's refusals keep their words.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.evidence.junit_reader import _CHUNK, read_junit_file


def _report(path: Path, cases: int, tail: str = "") -> Path:
    body = "".join(f'<testcase classname="pkg.C" name="test_{n:06d}"/>\n' for n in range(cases))
    path.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="s">\n{body}'
                    f"</testsuite>\n{tail}", encoding="utf-8")
    return path


def test_the_hash_covers_every_byte_of_a_file_of_many_chunks(tmp_path: Path) -> None:
    """The hash runs must bind to is the file's, also past the root element's end (a
    comment and blank lines after it, which libxml2 still has to read)."""
    path = _report(tmp_path / "r.xml", 5000, "<!-- written by the runner -->\n\n\n")
    assert path.stat().st_size > 3 * _CHUNK
    read = read_junit_file(path)
    assert read.totals.tests == read.totals.passed == 5000
    assert read.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_cap_counts_the_bytes_pulled(tmp_path: Path) -> None:
    path = _report(tmp_path / "r.xml", 4000)
    size = path.stat().st_size
    assert read_junit_file(path, max_bytes=size).totals.tests == 4000
    with pytest.raises(InvalidInput, match=rf"over the size cap \({size} > {size - 1} bytes\)"):
        read_junit_file(path, max_bytes=size - 1)


def test_content_after_the_root_is_still_malformed(tmp_path: Path) -> None:
    path = _report(tmp_path / "r.xml", 3000, "<testsuite/>\n")
    with pytest.raises(InvalidInput, match="not well-formed XML: Extra content"):
        read_junit_file(path)
