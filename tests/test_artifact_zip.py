"""Artifacts are written by the PR's workflow: unpack them as hostile input."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.evidence.artifact_zip import extract_members


def make_zip(entries: dict[str, bytes], symlink: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
        if symlink:
            info = zipfile.ZipInfo(symlink)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def test_matching_members_are_extracted_under_flat_names(tmp_path: Path) -> None:
    data = make_zip({"reports/a/TEST-x.xml": b"<testsuite/>", "notes.txt": b"hi",
                     "b.xml": b"<testsuites/>"})
    members = extract_members(data, "artifact junit", tmp_path)
    assert [m.name for m in members] == ["reports/a/TEST-x.xml", "b.xml"]
    assert members[0].path.read_bytes() == b"<testsuite/>"
    assert all(m.path.parent == tmp_path for m in members)


@pytest.mark.parametrize(
    ("name", "expected"),
    [("/etc/evil.xml", "absolute path"), ("../../evil.xml", "'..' path"),
     ("a/../../evil.xml", "'..' path"), ("C:/evil.xml", "absolute path")],
)
def test_path_traversal_is_refused(tmp_path: Path, name: str, expected: str) -> None:
    with pytest.raises(InvalidInput, match=expected) as caught:
        extract_members(make_zip({name: b"<x/>"}), "artifact junit", tmp_path / "out")
    assert caught.value.place == name
    assert not (tmp_path / "evil.xml").exists()


def test_symbolic_links_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="symbolic link"):
        extract_members(make_zip({"a.xml": b"<x/>"}, symlink="link.xml"), "a", tmp_path)


def test_too_many_members_are_refused(tmp_path: Path) -> None:
    data = make_zip({f"{i}.xml": b"<x/>" for i in range(20)})
    with pytest.raises(InvalidInput, match="over the cap of 10"):
        extract_members(data, "a", tmp_path, max_members=10)


def test_a_zip_bomb_is_stopped_while_inflating(tmp_path: Path) -> None:
    data = make_zip({"bomb.xml": b"\0" * (50 << 20)})
    assert len(data) < 200_000
    with pytest.raises(InvalidInput, match="zip bomb"):
        extract_members(data, "a", tmp_path, max_total_bytes=1 << 20)
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= (1 << 20) + (1 << 16)


@pytest.mark.parametrize(
    "data", [b"", b"not a zip", make_zip({"a.xml": b"x"})[:-30]],
    ids=["empty", "text", "truncated"],  # zip bytes hold the time: ids must not
)
def test_corrupt_archives_are_invalid_input(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(InvalidInput, match="not a valid zip"):
        extract_members(data, "artifact junit", tmp_path)
