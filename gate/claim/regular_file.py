"""Open an input only if it is a regular file, judged on the opened descriptor.

A claim, policy, evidence or JUnit path that is a FIFO would hang the job until the CI's
timeout, and a device could never end. Checking the path first and opening it after lets a
swap slip in between; so the file is opened with O_NONBLOCK (opening a FIFO cannot block),
the descriptor is `fstat`ed, and anything but a regular file is refused by name.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from gate.claim.errors import InvalidInput

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: Path, source: str, what: str) -> BinaryIO:
    """`path` opened for binary reading; InvalidInput if it is not a regular file.

    OSError from the open itself (missing, no permission) is left to the caller, which
    knows how to word it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(path, flags)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise InvalidInput(
                source, None, f"the {what} path is {kind_of(mode)}, not a regular file",
                "name a regular file",
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
