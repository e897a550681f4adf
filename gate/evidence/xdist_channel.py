"""Under pytest-xdist the workers import the test modules and run the items, not the
controller that writes the record: what a worker's watch saw reaches the controller here.

A test module that restores its own bytes as it is imported looks like the commit's by the
time the controller hears of it (`pytest_xdist_node_collection_finished` comes after the
worker imported it). So each worker hashes every test module as its collector starts, before
the import, as the plugin does in a single process, and runs the item check on its own
items; at its session end it puts both in xdist's `workeroutput`, which the controller reads
when the worker goes down (`pytest_testnodedown`). A worker is the change's process like any
other: this makes the known routes visible under xdist, it cannot make the worker honest.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gate.evidence.item_state import ItemWatch
from gate.evidence.test_sources import SourceWatch, file_blob

#: The key of the worker's `workeroutput` this plugin fills.
OUTPUT_KEY = "claim_gate_watch"

#: At most this many modules are taken from one worker (a suite has far fewer files).
MAX_MODULES = 100_000


class XdistChannel:
    """Registered in every process of an active session; a worker fills, the controller
    reads. Without xdist, `workerinput` is never set and it does nothing."""

    def __init__(self, rootdir: Path, sources: SourceWatch, items: ItemWatch) -> None:
        self._rootdir = rootdir.resolve()
        self._sources = sources
        self._items = items
        self._blobs: dict[str, str | None] = {}

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if hasattr(collector.config, "workerinput") and isinstance(collector, pytest.Module):
            path = Path(str(collector.path))
            try:
                shown = path.resolve().relative_to(self._rootdir).as_posix()
            except (ValueError, OSError):
                return
            self._blobs.setdefault(shown, file_blob(path))  # before pytest imports it

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if isinstance(output, dict):
            output[OUTPUT_KEY] = {"modules": dict(self._blobs), **self._items.entries()}

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        del error
        output = getattr(node, "workeroutput", None)
        seen = output.get(OUTPUT_KEY) if isinstance(output, Mapping) else None
        if not isinstance(seen, Mapping):
            return  # a worker that crashed sends nothing: its tests did not finish either
        modules = seen.get("modules")
        if isinstance(modules, Mapping):
            self._sources.seen({str(path): blob if isinstance(blob, str) else None
                                for path, blob in list(modules.items())[:MAX_MODULES]})
        self._items.merge(seen)
