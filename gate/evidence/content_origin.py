"""Whether a file in site-packages is what an installed distribution put there, by content.

A path prefix says only where a file is: the code under test can write a module into
site-packages and register it as a plugin, or edit pytest's own files, and a prefix would
still call it installed. A distribution's `RECORD` lists each file it installed with its
sha256; a file under site-packages counts as installed only when a `RECORD` in that
directory lists it with the sha256 of the bytes there now. The RECORD files of a directory
are read once, as text, on the first file that needs them (parsing every distribution's
metadata through importlib.metadata costs most of a second; this costs milliseconds).
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

#: What a file under site-packages is: listed with its bytes, listed with other bytes, or not
#: listed by any distribution installed there.
INSTALLED, MODIFIED, UNLISTED = "installed", "modified", "unlisted"


def record_hash(data: bytes) -> str:
    """The sha256 in RECORD's spelling (urlsafe base64, no padding)."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def listed_hash(record: str, relative: str) -> str | None:
    """The sha256 a RECORD's text lists for `relative` ("" when listed without one), or None
    when it does not list it."""
    for start in (0, *_line_starts(record, relative)):
        if record.startswith(f"{relative},", start):
            end = record.find("\n", start)
            fields = record[start:end if end >= 0 else None].rstrip("\r").split(",")
            hashed = fields[1] if len(fields) > 1 else ""
            return hashed.removeprefix("sha256=") if hashed.startswith("sha256=") else ""
    return None


def _line_starts(record: str, relative: str) -> list[int]:
    found, needle, index = [], f"\n{relative},", record.find(f"\n{relative},")
    while index >= 0:
        found.append(index + 1)
        index = record.find(needle, index + 1)
    return found


class RecordIndex:
    """The RECORD files of each site-packages directory, and a verdict per file (cached)."""

    def __init__(self) -> None:
        self._records: dict[Path, tuple[str, ...]] = {}
        self._verdicts: dict[Path, str] = {}

    def _texts(self, site: Path) -> tuple[str, ...]:
        if site not in self._records:
            texts = []
            for record in sorted(site.glob("*.dist-info/RECORD")):
                try:
                    texts.append(record.read_text("utf-8", "replace"))
                except OSError:
                    continue
            self._records[site] = tuple(texts)
        return self._records[site]

    def verdict(self, path: Path, site: Path) -> str:
        """INSTALLED, MODIFIED or UNLISTED for `path` (resolved) under `site` (resolved)."""
        if path not in self._verdicts:
            relative = path.relative_to(site).as_posix()
            hashes = [h for h in (listed_hash(t, relative) for t in self._texts(site))
                      if h is not None]
            if not hashes:
                self._verdicts[path] = UNLISTED
            else:
                try:
                    actual: str | None = record_hash(path.read_bytes())
                except OSError:
                    actual = None
                self._verdicts[path] = INSTALLED if actual in hashes else MODIFIED
        return self._verdicts[path]
