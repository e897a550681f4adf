"""The claim file `claim-gate claim …` edits: read as the gate reads one, replaced whole.

Kept apart from the command (gate/faces/claim_command.py) so that the command only parses its
arguments and calls the pure edits: reading refuses links and folders, writing never leaves a
half-written claim behind."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.jsondoc import read_capped
from gate.claim.loader import DEFAULT_MAX_CLAIM_BYTES, LoadedClaim, parse_claim_bytes


def refuse_odd_path(path: Path) -> None:
    if path.is_symlink():
        raise InvalidInput(
            str(path), None, "the claim path is a symbolic link",
            "write the claim to a regular file; the gate does not follow links in a PR",
        )
    if path.is_dir():
        raise InvalidInput(str(path), None, "the claim path is a directory, not a file")


def load_claim_file(path: Path) -> LoadedClaim:
    """The claim file to edit, read as the gate reads one (a link or a folder refused)."""
    refuse_odd_path(path)
    if not path.exists():
        raise InvalidInput(
            str(path), None, "there is no claim file here yet",
            "start one with `claim-gate claim new --task ID --outcome TEXT`",
        )
    return parse_claim_bytes(read_capped(path, DEFAULT_MAX_CLAIM_BYTES, "claim"), str(path))


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path` with `data` all at once: a temporary file in the same directory,
    flushed to disk, then renamed over it. A reader sees the old file or the new one."""
    directory = path.parent
    temporary = directory / f".{path.name}.{secrets.token_hex(6)}.tmp"
    try:
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileNotFoundError:
        raise InvalidInput(str(path), None, f"the directory {directory} does not exist") from None
    except OSError as exc:
        raise CouldNotDecide(f"{path}: cannot write the claim: {exc.strerror}") from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            temporary.chmod(mode)
        temporary.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise CouldNotDecide(f"{path}: cannot write the claim: {exc.strerror}") from None
    with contextlib.suppress(OSError):  # the rename is durable once the directory is synced
        directory_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(directory_fd)
        finally:
            os.close(directory_fd)
