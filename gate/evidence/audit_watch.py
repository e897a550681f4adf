"""What the interpreter's audit events show the watch (`audit_events`), heard as they happen.

The compares read the watched namespaces at moments (each call report, after each test, the
end): a change made and put back between two of them left nothing to compare, and the tree
checks (at the start and the end) a file rewritten and restored in between. CPython 3.11
audits three kinds of change that those checks see least: a function's `__code__`,
`__defaults__` or `__kwdefaults__` replaced (`object.__setattr__`, raised before the write; a
code object swapped for one call and put back is heard all the same); a trace or profile
function set (`sys.settrace`/`sys.setprofile`), which sees every line of a test and can jump
over its assertions (`frame.f_lineno`) without writing anything the compares read; and a
file opened for writing, renamed, copied or linked onto (`open`, `os.rename`, ...). A class's
or a module's attributes are not audited (their dicts' version tags stand for them). A write
to a watched function becomes a change of its namespace, a finding as the compares' are; a
trace or profile function set while the repository's code is on the stack is listed with
that code's file and line, whoever made the call (a debugger or tracer of the standard
library can be handed the repository's function); a Python file written is kept by its
resolved path, for the end to ask git which of them the commit holds. This module only
observes; the judgement is `producer_inventory`'s.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from itertools import islice
from pathlib import Path
from types import FrameType
from typing import Any

from gate.evidence.audit_events import held, listening, subscribe
from gate.evidence.watch_namespaces import NamespaceWatch

#: The `seen` of a change heard as the write itself.
HEARD = "the write itself (audit), even if put back"

#: A function's attributes whose writes CPython audits, and what each write is called.
FUNCTION_STATE = {"__code__": "code replaced", "__defaults__": "defaults replaced",
                  "__kwdefaults__": "keyword defaults replaced"}

#: At most this many trace functions are listed, and Python files written kept.
MAX_TRACES = 20
MAX_WRITTEN = 200

PYTHON = (".py", ".pyw")
#: `os.open` flags that write.
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
#: The events that name a file they write: where in their arguments, and where the directory
#: descriptor it is relative to (`dir_fd`; -1 or None: the current directory).
_DESTINATION = {"os.rename": (1, 3), "shutil.copyfile": (1, None), "os.link": (1, 3),
                "os.symlink": (1, 2), "os.truncate": (0, None)}
_TRACE_EVENTS = ("sys.settrace", "sys.setprofile")
#: Every event `heard` handles (a function's attributes are written as `object.__setattr__`).
EVENTS = frozenset({"object.__setattr__", "object.__delattr__", "open", *_TRACE_EVENTS,
                    *_DESTINATION})
#: `open` does not say the directory descriptor its path is relative to.
UNKNOWN_DIRECTORY = "unknown"
#: At most this many open descriptors are looked at for the directories among them.
MAX_DESCRIPTORS = 1024


def written_paths(event: str, args: tuple[Any, ...]) -> list[tuple[object, object]]:
    """The files an event changes, each with the directory descriptor its path is relative to
    (None: the current directory; UNKNOWN_DIRECTORY for `open`, whose event leaves out an
    `os.open(..., dir_fd=...)`): an `open` for writing, the destination of a rename, copy or
    link, a truncation, and the source of a rename (moved away) or of a hard link (a file
    written under the link's name is the source's)."""
    if event == "open":
        if len(args) < 3:
            return []
        mode, flags = args[1], args[2]
        writing = any(c in mode for c in "wax+") if isinstance(mode, str) else (
            isinstance(flags, int) and bool(flags & WRITE_FLAGS))
        return [(args[0], UNKNOWN_DIRECTORY)] if writing else []
    place, directory = _DESTINATION.get(event, (None, None))
    found: list[tuple[object, object]] = []
    if place is not None and len(args) > place:
        found.append((args[place], _descriptor(args, directory)))
    if event in ("os.rename", "os.link") and args:
        found.append((args[0], _descriptor(args, 2)))
    return found


def _descriptor(args: tuple[Any, ...], place: int | None) -> int | None:
    value = args[place] if place is not None and len(args) > place else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


def open_directories() -> list[Path]:
    """The directories this process holds open (Linux's `/proc/self/fd`; elsewhere none): a
    path relative to one of them (`dir_fd`) names a file the `open` event does not place."""
    try:
        descriptors = list(islice(Path("/proc/self/fd").iterdir(), MAX_DESCRIPTORS))
    except OSError:
        return []
    found = (_target_of(descriptor) for descriptor in descriptors)
    return [target for target in found if target is not None and target.is_dir()]


def _target_of(descriptor: Path) -> Path | None:
    """What an entry of `/proc/self/fd` names, if it is a path (not a socket or a pipe)."""
    try:
        target = descriptor.readlink()
    except OSError:
        return None
    return target if target.is_absolute() else None


TRUSTED = frozenset({"installed", "gate"})


class AuditWatch:
    """One session's listener. `origin(file)` and `shown(file)` are the watch's `Origins`."""

    def __init__(self, namespaces: NamespaceWatch, origin: Callable[[str | None], str],
                 shown: Callable[[str | None], str],
                 other: Callable[[int, str, object], None] | None = None) -> None:
        self._namespaces = namespaces
        #: Where a write to a function outside the namespaces goes (the item check's test
        #: functions), as (the function's id, the attribute, the new value).
        self._other = other
        self._origin = origin
        self._shown = shown
        snapshots = namespaces.snapshots.items()
        self._functions = {id(function): (name, key) for name, s in snapshots
                           for key, function in zip(s.keys_of_functions, s.functions,
                                                    strict=True)}
        self.traces: list[dict[str, str]] = []
        #: Python files written during the session (absolute paths as named then) and how.
        self.written: dict[str, str] = {}
        self._end: Callable[[], None] | None = None
        #: The very listener handed to `subscribe`, and whether a compare found it gone.
        self._listener: Callable[[str, tuple[Any, ...]], None] = self.heard
        self.lost = False

    def start(self) -> bool:
        """Listen from now on; whether the events are heard. An audit hook of the process may
        refuse new hooks: then nothing is heard, and the inventory says the listener was not
        listening (never "nothing heard")."""
        if self._end is None:
            try:
                self._end = subscribe(self._listener, EVENTS)
            except Exception:  # whatever refused it, the session goes on
                return False
        return True

    def listening(self) -> bool:
        """Still handed the events, and never found taken out at a compare (never started,
        or taken out, is not)."""
        return self._end is not None and not self.lost and listening(self._listener)

    def check_held(self) -> None:
        """At each call report and after each test: still in the list of listeners. One taken
        out and put back before the end, so that `listening` would find it there, is lost
        all the same if it was out at one of these moments."""
        if self._end is not None and not self.lost and not held(self._listener):
            self.lost = True

    def stop(self) -> None:
        if self._end is not None:
            self._end()
            self._end = None

    def heard(self, event: str, args: tuple[Any, ...]) -> None:
        if event in _TRACE_EVENTS:
            self._trace(event)
            return
        if event == "open" or event in _DESTINATION:
            for path, directory in written_paths(event, args):
                for named in self._places(path, directory):
                    self._file(event, named)
            return
        if len(args) < 2 or not isinstance(args[1], str) or args[1] not in FUNCTION_STATE:
            return
        place = self._functions.get(id(args[0]))  # watched functions are kept alive: ids hold
        value = args[2] if len(args) > 2 else None
        if place is not None:
            name, holder = place  # the namespace and the name that holds the function
            self._namespaces.changes.setdefault(name, {}).setdefault(
                holder, (FUNCTION_STATE[args[1]], value, HEARD))
        elif self._other is not None:
            self._other(id(args[0]), args[1], value)

    def _places(self, path: object, directory: object) -> list[str]:
        """Where a path may be, as text (none: not a path, an open descriptor's number): a
        relative one under the directory descriptor the event names, and for `open` (which
        names none) under the current directory and, for a Python file's name, under every
        directory the process holds open (its `dir_fd` may be one)."""
        if path is None or isinstance(path, int):
            return []
        try:
            text = os.fsdecode(os.fspath(path))  # type: ignore[call-overload]
        except (TypeError, ValueError):
            return []  # not a path the audited call could open either
        if Path(text).is_absolute():
            return [text]
        if isinstance(directory, int):
            base = _target_of(Path(f"/proc/self/fd/{directory}"))
            return [str(base / text)] if base is not None else [text]
        if directory == UNKNOWN_DIRECTORY and text.endswith(PYTHON):
            return [text, *(str(base / text) for base in open_directories())]
        return [text]

    def _file(self, event: str, text: str) -> None:
        """A Python source written, renamed or copied onto (the commit's files among them
        are told at the end, by git): a module rewritten and put back around its import
        leaves the tree as it was, and ran all the same. The path is resolved now, at the
        cwd of now: a file written by another name for it (a symbolic link, `/proc/self/fd/N`)
        is the file it names."""
        if len(self.written) >= MAX_WRITTEN:
            return
        try:
            # Another name reaches a Python file only as a link (one stat for the others).
            if not text.endswith(PYTHON) and not Path(text).is_symlink():
                return
        except (ValueError, OSError):
            return  # a NUL in the name: not a path the audited call could open either
        try:
            resolved = str(Path(text).resolve())
        except (OSError, RuntimeError):  # a link that cannot be followed: kept as named
            self.written.setdefault(str(Path(text).absolute()), event)
            return
        if resolved.endswith(PYTHON):
            self.written.setdefault(resolved, event)

    def _trace(self, event: str) -> None:
        """The innermost frame from outside the installed code and the gate (the code that
        asked, or handed its own function to a debugger or tracer of the standard library)."""
        if len(self.traces) >= MAX_TRACES:
            return
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            file = frame.f_code.co_filename
            origin = "installed" if file.startswith("<frozen ") else self._origin(file)
            if origin not in TRUSTED:
                self.traces.append({"what": event, "file": self._shown(file),
                                    "line": str(frame.f_lineno), "origin": origin,
                                    "seen": "the call itself (audit)"})
                return
            frame = frame.f_back


class AuditEnd:
    """A pytest plugin: the session's listening ends with its configuration (a session run
    inside a test, under pytester, leaves the process's one hook to the sessions around it)."""

    def __init__(self, audit: AuditWatch) -> None:
        self._audit = audit

    def pytest_unconfigure(self) -> None:
        self._audit.stop()
