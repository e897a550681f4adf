"""Every data file of the tests has a stated source, and none is a third-party report.

Issue 26: files copied from other projects' repositories are not committed. tests/data/README.md
names each file's source (written by hand, made by a tool, or a registry package with its
version); this test holds the folders to that list, so a file added without a source, or a
JUnit report dropped into tests/, fails here.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path

TESTS = Path(__file__).resolve().parent
README = TESTS / "data" / "README.md"
LISTED_FOLDERS = ("data", "node-junit")
KINDS = {"written by hand", "made by a tool", "registry package"}
#: Left by running things, never committed (.gitignore covers them).
NOT_DATA = {"__pycache__", ".hypothesis", "node_modules", ".pytest_cache"}


def _rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        found = re.match(r"^\| `([^`]+)` \| ([^|]+) \| (.+) \|$", line)
        if found:
            rows.append((found[1], found[2].strip(), found[3].strip()))
    return rows


def _files() -> list[str]:
    found = []
    for folder in LISTED_FOLDERS:
        for path in (TESTS / folder).rglob("*"):
            if path.is_file() and not NOT_DATA & set(path.relative_to(TESTS).parts):
                found.append(path.relative_to(TESTS).as_posix())
    return sorted(found)


def _matches(pattern: str, path: str) -> bool:
    """fnmatch, but `*` stays within one folder (`data/*/README.md` is not data/README.md)."""
    return fnmatchcase(path, pattern) and path.count("/") == pattern.count("/")


def test_every_data_file_has_exactly_one_stated_source() -> None:
    rows = _rows()
    assert len(rows) >= 10
    for path in _files():
        matching = [pattern for pattern, _, _ in rows if _matches(pattern, path)]
        assert len(matching) == 1, f"{path}: rows {matching} in {README}"


def test_every_row_names_files_and_a_kind_of_source() -> None:
    files = _files()
    for pattern, kind, source in _rows():
        assert any(_matches(pattern, path) for path in files), f"no file matches {pattern}"
        assert kind in KINDS, (pattern, kind)
        if kind == "registry package":  # which registry, which package, which version
            assert re.match(r"^(npm|PyPI) `[^`]+` \d", source), (pattern, source)
        assert source


def test_no_junit_report_is_committed_under_tests() -> None:
    """Reports come from ../shared (third-party) or from the tools run in the tests."""
    reports = [path for path in TESTS.rglob("*.xml")
               if not NOT_DATA & set(path.relative_to(TESTS).parts)]
    assert reports == []
    assert not (TESTS / "data" / "junit-corpus").exists()
