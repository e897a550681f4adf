"""Unpacking a CI artifact (a zip the PR's workflow uploaded) without trusting it.

Refused: absolute paths, `..`, symbolic links, more members than the cap, and more bytes
than the cap once inflated (counted while inflating: declared sizes can lie). Members are
written under fresh, flat names inside the destination, so no archive name ever becomes a
path on disk.
"""

from __future__ import annotations

import io
import stat
import zipfile
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

from gate.claim.errors import InvalidInput

DEFAULT_MAX_MEMBERS = 1000
DEFAULT_MAX_TOTAL_BYTES = 1 << 30
_CHUNK = 1 << 16


@dataclass(frozen=True)
class ExtractedMember:
    name: str  # the name inside the archive, for messages
    path: Path  # where its bytes are on disk


def _check_name(name: str, source: str) -> None:
    posix = PurePosixPath(name.replace("\\", "/"))
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        raise InvalidInput(source, name, "an absolute path inside the artifact is refused")
    if ".." in posix.parts:
        raise InvalidInput(source, name, "a '..' path inside the artifact is refused")


def extract_members(
    data: bytes,
    source: str,
    destination: Path,
    pattern: str = "*.xml",
    max_members: int = DEFAULT_MAX_MEMBERS,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
) -> list[ExtractedMember]:
    """Extract the members whose base name matches `pattern`; InvalidInput on anything hostile."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as exc:
        raise InvalidInput(source, None, f"the artifact is not a valid zip file: {exc}") from None
    with archive:
        members = archive.infolist()
        if len(members) > max_members:
            raise InvalidInput(
                source, None, f"the artifact holds {len(members)} entries, over the cap of"
                f" {max_members}",
            )
        for member in members:
            _check_name(member.filename, source)
            mode = member.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise InvalidInput(
                    source, member.filename, "a symbolic link in the artifact is refused"
                )
        destination.mkdir(parents=True, exist_ok=True)
        extracted: list[ExtractedMember] = []
        total = 0
        for member in members:
            base = PurePosixPath(member.filename.replace("\\", "/")).name
            if member.is_dir() or not fnmatchcase(base, pattern):
                continue
            target = destination / f"member-{len(extracted):05d}.xml"
            try:
                with archive.open(member) as stream, target.open("wb") as sink:
                    while chunk := stream.read(_CHUNK):
                        total += len(chunk)
                        if total > max_total_bytes:
                            raise InvalidInput(
                                source, member.filename,
                                f"the artifact inflates past the {max_total_bytes}-byte cap"
                                " (a zip bomb, or results too large to read)",
                            )
                        sink.write(chunk)
            except (
                zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError
            ) as exc:
                raise InvalidInput(
                    source, member.filename, f"the entry cannot be read: {exc}"
                ) from None
            extracted.append(ExtractedMember(member.filename, target))
        return extracted
