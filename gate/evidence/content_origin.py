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
    found = []
    needle = f"\n{relative},"
    index = records.find(needle)
    while index >= 0:
        end = records.find("\n", index + 1)
        fields = records[index + 1:end if end >= 0 else None].rstrip("\r").split(",")
        found.append(fields[1].removeprefix("sha256=") if fields[1].startswith("sha256=") else "")
        index = records.find(needle, index + 1)
    return found


class RecordIndex:
    """The RECORD files of each site-packages directory, read once into one text, and a
    verdict per file asked about (its line found, its bytes hashed once, cached by path)."""

    def __init__(self) -> None:
        self._records: dict[Path, str] = {}
        self._verdicts: dict[Path, str] = {}

    def _text(self, site: Path) -> str:
        if site not in self._records:
            texts = [""]  # the joined text starts with a newline: every line follows one
            for record in sorted(site.glob("*.dist-info/RECORD")):
                try:
                    texts.append(record.read_text("utf-8", "replace"))
                except OSError:
                    continue
            self._records[site] = "\n".join(texts)
        return self._records[site]

    def verdict(self, path: Path, site: Path) -> str:
        """INSTALLED, MODIFIED or UNLISTED for `path` (resolved) under `site` (resolved)."""
        if path not in self._verdicts:
            hashes = listed_hashes(self._text(site), path.relative_to(site).as_posix())
            if not hashes:
                self._verdicts[path] = UNLISTED
            else:
                try:
                    actual: str | None = record_hash(path.read_bytes())
                except OSError:
                    actual = None
                self._verdicts[path] = INSTALLED if actual in hashes else MODIFIED
        return self._verdicts[path]
