"""The interpreter's audit events (PEP 578) as the watch hears them: one hook per process.

CPython calls every audit hook before the audited action, and a hook, once added, can never
be removed. So a write that is put back a moment later, or a trace function that removes
itself, has been heard all the same. Because hooks cannot be removed, the process keeps one
(added by the first session that asks) and hands each event to the sessions subscribed at
that moment: a pytester run inside a test subscribes and leaves again, and adds no hook.
This module holds that one process-wide list, the only state of its kind in the gate: the
interpreter's own list of hooks is process-wide and append-only.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from typing import Any

Listener = Callable[[str, tuple[Any, ...]], None]

_listeners: list[Listener] = []
#: The events some listener asked for: every other event returns at the first test.
_wanted: set[str] = set()
_installed: list[bool] = []  # the hook was added (once per process)


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event not in _wanted or not _listeners:
        return
    for listener in tuple(_listeners):
        with contextlib.suppress(Exception):  # a hook that raises aborts the audited action
            listener(event, args)


def listening(listener: Listener) -> bool:
    """Whether `listener` is still handed the events (code in the process could have taken
    it out: the watch asks at its end)."""
    return _installed == [True] and any(kept == listener for kept in _listeners)


def held(listener: Listener) -> bool:
    """The cheap form of `listening`, for every compare: this very object is in the list."""
    return listener in _listeners


def subscribe(listener: Listener, events: frozenset[str]) -> Callable[[], None]:
    """Hand `listener` each audit event of `events` from now on (it filters what it is
    handed: another listener may want more); returns what ends that."""
    if not _installed:
        sys.addaudithook(_hook)
        _installed.append(True)
    _wanted.update(events)
    _listeners.append(listener)

    def end() -> None:
        if listener in _listeners:
            _listeners.remove(listener)

    return end

