"""Whether a file in site-packages is what an installed distribution put there, by content.

A path prefix says only where a file is: the code under test can write a module into
site-packages and register it as a plugin, or edit pytest's own files, and a prefix would
still call it installed. A distribution's `RECORD` lists each file it installed with its
sha256; a file under site-packages counts as installed only when a `RECORD` in that
directory lists it with the sha256 of the bytes there now. The RECORD files of a directory
are read once, as text, into one index on the first file that needs them (parsing every
distribution's metadata through importlib.metadata costs most of a second; this costs
milliseconds), and only the files asked about are hashed, each once.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

#: What a file under site-packages is: listed with its bytes, listed with other bytes, or not
#: listed by any distribution installed there.
INSTALLED, MODIFIED, UNLISTED = "installed", "modified", "unlisted"


def record_hash(data: bytes) -> str:
    """The sha256 in RECORD's spelling (urlsafe base64, no padding)."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def listed_hashes(records: str, relative: str) -> list[str]:
    """The sha256s RECORD text lists for `relative` ("" where listed without one), from every
    line that starts with the path; `records` starts with a newline (it may join several)."""
    return list(map(_hash_field, _lines_from(records, f"\n{relative},")))


def listed_under(records: str, prefix: str) -> dict[str, list[str]]:
    """What `listed_hashes` finds for every path that starts with `prefix` (a directory and
    its slash), from one walk over the lines that start with it: each path's hashes, keyed by
    the line's first field (`listed_hashes` matches a path the same way for a path without a
    comma)."""
    found: dict[str, list[str]] = {}
    for fields in _lines_from(records, f"\n{prefix}"):
        if len(fields) > 1:
            found.setdefault(fields[0], []).append(_hash_field(fields))
    return found


def _lines_from(records: str, needle: str) -> Iterator[list[str]]:
    """The comma-separated fields of each line that `needle` (a new line, then how the line
    starts) opens, in order; one home for the walk both lookups make."""
    index = records.find(needle)
    while index >= 0:
        end = records.find("\n", index + 1)
        yield records[index + 1:end if end >= 0 else None].rstrip("\r").split(",")
        index = records.find(needle, end) if end >= 0 else -1


def _hash_field(fields: list[str]) -> str:
    """A RECORD line's sha256 ("" where it names none or another algorithm)."""
    return fields[1].removeprefix("sha256=") if fields[1].startswith("sha256=") else ""


def _read_records(site: Path) -> str:
    """Every `*.dist-info/RECORD` under `site` (in name order) as one text that starts with a
    newline, read as `Path.read_text` would (universal newlines, undecodable bytes replaced)."""
    try:
        with os.scandir(site) as entries:
            names = sorted(entry.name for entry in entries
                           if entry.name.endswith(".dist-info") and _is_dir(entry))
    except OSError:
        names = []
    texts = [""]  # the joined text starts with a newline: every line follows one
    for name in names:
        try:
            data = (site / name / "RECORD").read_bytes()
        except OSError:
            continue
        if b"\r" in data:  # pip writes CSV's CRLF; a CR or LF is never inside a UTF-8 sequence
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        texts.append(data.decode("utf-8", "replace"))
    return "\n".join(texts)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


class RecordIndex:
    """The RECORD files of each site-packages directory, read once into one text, and a
    verdict per file asked about (its line found, its bytes hashed once, cached by path).
    The lines of a top-level directory are gathered on the first file asked about in it: a
    session asks about some thirty files in a handful of packages, and each lookup would
    otherwise walk the whole text (the RECORDs of a CI image's environment: most of a MB)."""

    def __init__(self) -> None:
        self._records: dict[Path, str] = {}
        self._under: dict[tuple[Path, str], dict[str, list[str]]] = {}
        self._verdicts: dict[Path, str] = {}

    def _text(self, site: Path) -> str:
        if site not in self._records:
            self._records[site] = _read_records(site)
        return self._records[site]

    def _listed(self, site: Path, relative: str) -> list[str]:
        top, slash, _ = relative.partition("/")
        if not slash or "," in relative:  # a top-level file, or a name CSV quotes: one walk
            return listed_hashes(self._text(site), relative)
        if (site, top) not in self._under:
            self._under[site, top] = listed_under(self._text(site), f"{top}/")
        return self._under[site, top].get(relative, [])

    def verdict(self, path: Path, site: Path) -> str:
        """INSTALLED, MODIFIED or UNLISTED for `path` (resolved) under `site` (resolved)."""
        if path not in self._verdicts:
            hashes = self._listed(site, path.relative_to(site).as_posix())
            if not hashes:
                self._verdicts[path] = UNLISTED
            else:
                try:
                    actual: str | None = record_hash(path.read_bytes())
                except OSError:
                    actual = None
                self._verdicts[path] = INSTALLED if actual in hashes else MODIFIED
        return self._verdicts[path]
