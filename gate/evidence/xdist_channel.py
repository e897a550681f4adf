"""Under pytest-xdist the workers import the test modules and run the items, not the
controller that writes the record: what a worker's watch saw reaches the controller here.

A test module that restores its own bytes as it is imported looks like the commit's by the
time the controller hears of it (`pytest_xdist_node_collection_finished` comes after the
worker imported it). So each worker hashes every test module as its collector starts, before
the import, as the plugin does in a single process, runs the item check on its own items and
the watch's compare after each of its tests (`worker_view`); at its session end it puts all
three in xdist's `workeroutput`, which the controller reads when the worker goes down
(`pytest_testnodedown`). A worker is the change's process like any other: this makes the
known routes visible under xdist, it cannot make the worker honest.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from gate.evidence.item_state import ItemWatch
from gate.evidence.test_sources import SourceWatch

#: The key of the worker's `workeroutput` this plugin fills.
OUTPUT_KEY = "claim_gate_watch"

#: At most this many modules are taken from one worker (a suite has far fewer files), and
#: this many blobs of each (a worker hashes a module once).
MAX_MODULES = 100_000
MAX_BLOBS = 8


class WatchRelay(Protocol):
    """The session's watch, as the channel drives it (`pytest_watch._Relay`)."""

    def after_test(self) -> None: ...

    def seen_here(self) -> dict[str, list[dict[str, Any]]]: ...

    def merge(self, view: object, worker: str) -> str | None: ...


class _AfterEachTest:
    """A worker's compare after each of its tests (the controller's recorder does it in a
    single process; a worker has no recorder)."""

    def __init__(self, watch: WatchRelay) -> None:
        self._watch = watch

    def pytest_runtest_logfinish(self) -> None:
        self._watch.after_test()


class XdistChannel:
    """Registered in every process of an active session; a worker fills, the controller
    reads. Without xdist, `workerinput` is never set and it does nothing. Without a `watch`
    (tests of the channel alone) only the hashes and the item check travel."""

    def __init__(self, sources: SourceWatch, items: ItemWatch,
                 watch: WatchRelay | None = None) -> None:
        self._sources = sources
        self._items = items
        self._watch = watch

    def pytest_configure(self, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") and self._watch is not None:
            config.pluginmanager.register(_AfterEachTest(self._watch), "claim-gate-worker-watch")

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        # The controller's recorder hashes in a single process; a worker has no recorder.
        if hasattr(collector.config, "workerinput") and isinstance(collector, pytest.Module):
            self._sources.collected([Path(str(collector.path))])  # before pytest imports it

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if isinstance(output, dict):
            watch = {} if self._watch is None else {"watch": self._watch.seen_here()}
            output[OUTPUT_KEY] = {"modules": self._sources.taken(), **self._items.entries(),
                                  **watch}

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        output = getattr(node, "workeroutput", None)
        seen = output.get(OUTPUT_KEY) if isinstance(output, Mapping) else None
        if not isinstance(seen, Mapping):
            # Crashed or not: a worker that ran all its tests with a patch in place and then
            # ended itself (`os._exit` at its session end) leaves a complete tally behind.
            how = "went down" if error is None else f"went down ({error!s:.100})"
            self._sources.unread(f"xdist worker {_name(node)} {how} without the hashes it"
                                 " took of its test modules before importing them and what"
                                 " its watch saw")
            return
        modules = seen.get("modules")
        lists = [seen.get(key) for key in ("item_changes", "item_reports")]
        if not isinstance(modules, Mapping) or not all(isinstance(v, list) for v in lists):
            self._sources.unread(f"xdist worker {_name(node)} sent its watch in another shape"
                                 " than the plugin writes")
            return
        self._sources.seen({
            str(path): [b if isinstance(b, str) else None for b in blobs][:MAX_BLOBS]
            if isinstance(blobs, list) else [None]  # unreadable: never the commit's
            for path, blobs in list(modules.items())[:MAX_MODULES]})
        self._items.merge(seen)
        problem = None if self._watch is None else self._watch.merge(seen.get("watch"),
                                                                      _name(node))
        if problem:
            self._sources.unread(problem)


def _name(node: Any) -> str:
    """The worker's id (`gw0`), else what its gateway says of itself."""
    gateway = getattr(node, "gateway", node)
    return f"{getattr(gateway, 'id', None) or gateway!s:.80}"
