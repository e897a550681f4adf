"""A namespace another thread changes while the watch reads it is "not the same" (the watch
then looks at what changed), never an error out of a test hook."""

from __future__ import annotations

import types
from collections.abc import ValuesView
from dataclasses import replace

from gate.evidence.watch_namespaces import Snapshot


class _Resizing(dict[str, object]):
    def values(self) -> ValuesView[object]:  # type: ignore[override]
        raise RuntimeError("dictionary changed size during iteration")


def test_a_namespace_changed_during_the_read_is_not_the_same() -> None:
    module = types.ModuleType("watched")
    module.run = lambda: None  # type: ignore[attr-defined]
    taken = Snapshot.take("watched", module)
    assert taken.same()
    moving = replace(taken, namespace=_Resizing(taken.namespace))
    assert not moving.same()
