"""The xdist channel in process: what a worker sends reaches the controller's source check
and its watch's view, and a worker that went down cleanly without sending its hashes or its
watch is a problem, never "nothing differed", and so is one that crashed (its tests may all
have reported before it went down)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gate.evidence.item_state import ItemWatch
from gate.evidence.producer_inventory import derive_findings
from gate.evidence.test_sources import SourceWatch, file_blob
from gate.evidence.worker_view import MAX_ENTRIES, WorkerViews
from gate.evidence.xdist_channel import OUTPUT_KEY, XdistChannel


def _channel(root: Path) -> tuple[XdistChannel, SourceWatch]:
    sources = SourceWatch(root)
    return XdistChannel(sources, ItemWatch(str, str)), sources


def _source_findings(sources: SourceWatch) -> list[dict[str, str]]:
    inventory = {"test_sources": sources.facts(None)}
    return [f for f in derive_findings(inventory) if f["code"] == "test_source"]


def test_a_workers_hashes_reach_the_controller(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n")
    worker, worker_sources = _channel(tmp_path)
    worker_sources.collected([tmp_path / "test_a.py"])
    output: dict[str, object] = {}
    worker.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace(workeroutput=output)))  # type: ignore[arg-type]
    controller, sources = _channel(tmp_path)
    controller.pytest_testnodedown(SimpleNamespace(workeroutput=output), None)
    assert sources.taken() == {"test_a.py": [file_blob(tmp_path / "test_a.py")]}
    assert _source_findings(sources) == []


@pytest.mark.parametrize(("output", "said"), [
    ({}, "gw0 went down without the hashes"),
    ({OUTPUT_KEY: "not a mapping"}, "gw0 went down without the hashes"),
    ({OUTPUT_KEY: {"modules": [], "item_changes": [], "item_reports": []}}, "another shape"),
    ({OUTPUT_KEY: {"modules": {}, "item_reports": []}}, "another shape"),
])
def test_a_worker_down_without_its_hashes_is_a_problem(
    tmp_path: Path, output: object, said: str,
) -> None:
    controller, sources = _channel(tmp_path)
    controller.pytest_testnodedown(SimpleNamespace(workeroutput=output, gateway="gw0"), None)
    [finding] = _source_findings(sources)
    assert said in finding["route"]


def test_a_module_hash_in_another_shape_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n")
    controller, sources = _channel(tmp_path)
    output = {OUTPUT_KEY: {"modules": {"test_a.py": "not a list"}, "item_changes": [],
                           "item_reports": []}}
    controller.pytest_testnodedown(SimpleNamespace(workeroutput=output), None)
    assert sources.taken() == {"test_a.py": [None]}


def test_a_crashed_worker_is_a_problem_even_with_its_tests_finished(tmp_path: Path) -> None:
    # Its tests may all have reported (a worker that ends itself at its session end), so
    # the unfinished tests cannot stand for what it never sent.
    controller, sources = _channel(tmp_path)
    controller.pytest_testnodedown(SimpleNamespace(workeroutput={}, gateway="gw0"),
                                   "Not properly terminated")
    [finding] = _source_findings(sources)
    assert "gw0 went down (Not properly terminated) without the hashes" in finding["route"]


class _Relay:
    """The watch as the channel drives it, with a fixed view for a worker to send."""

    def __init__(self, view: dict[str, list[dict[str, Any]]]) -> None:
        self.view = view
        self.workers = WorkerViews()
        self.tests = 0

    def after_test(self) -> None:
        self.tests += 1

    def seen_here(self) -> dict[str, list[dict[str, Any]]]:
        return self.view

    def merge(self, view: object, worker: str) -> str | None:
        return self.workers.merge(view, worker)


CHANGE: dict[str, Any] = {
    "namespace": "_pytest.runner", "name": "TestReport", "change": "replaced",
    "now": "class TestReport", "seen": "call", "data": False, "file": "calc.py",
    "origin": "repository", "was_file": "_pytest/reports.py", "was_origin": "installed"}
HOOK: dict[str, Any] = {
    "hook": "pytest_runtest_makereport", "plugin": "140553478494608", "function": "f",
    "file": "test_a.py", "origin": "repository", "kind": "wrapper",
    "plugin_module": "test_a", "seen": "call"}
IMPORT: dict[str, Any] = {
    "list": "sys.meta_path", "what": "Rewriter", "file": "calc.py",
    "origin": "repository", "seen": "call"}
TRACE: dict[str, Any] = {
    "what": "sys.settrace", "file": "calc.py", "line": "12", "origin": "repository",
    "seen": "the call itself (audit)"}
VIEW: dict[str, list[dict[str, Any]]] = {
    "internal_changes": [CHANGE], "hooks": [HOOK], "import_hooks": [IMPORT],
    "trace_functions": [TRACE], "written_files": [{"path": "/repo/validate.py",
                                                   "event": "open"}],
    "listening": [{"listening": True}]}


def _worker_output(relay: _Relay, root: Path) -> dict[str, object]:
    worker = XdistChannel(SourceWatch(root), ItemWatch(str, str), relay)
    output: dict[str, object] = {}
    worker.pytest_sessionfinish(SimpleNamespace(config=SimpleNamespace(workeroutput=output)))  # type: ignore[arg-type]
    return output


def test_a_workers_watch_reaches_the_controller_once_per_entry(tmp_path: Path) -> None:
    controller_relay = _Relay(VIEW)
    controller = XdistChannel(SourceWatch(tmp_path), ItemWatch(str, str), controller_relay)
    for worker in ("gw0", "gw1"):  # both workers saw the same patch: listed once
        node = SimpleNamespace(workeroutput=_worker_output(_Relay(VIEW), tmp_path),
                               gateway=SimpleNamespace(id=worker))
        controller.pytest_testnodedown(node, None)
    views = controller_relay.workers
    [change] = views.changes["_pytest.runner"]
    assert (change["name"], change["seen"], change["data"]) == (
        "TestReport", "call in xdist worker gw0", False)
    # What the controller saw itself is not listed twice; another process's id-named plugin
    # is the same implementation.
    assert views.changes_beside("_pytest.runner", [change]) == []
    assert views.hooks_beside([{**HOOK, "plugin": "99"}]) == []
    [hook] = views.hooks_beside([])
    assert hook["seen"] == "call in xdist worker gw0"
    assert views.imports_beside([IMPORT]) == []
    [trace] = views.traces_beside([])
    assert (trace["file"], trace["line"]) == ("calc.py", "12")
    assert views.traces_beside([TRACE]) == []
    assert views.written == {"/repo/validate.py": "open"}
    assert views.all_listening


def test_a_worker_whose_listener_was_taken_out_is_said() -> None:
    views = WorkerViews()
    assert views.merge({**VIEW, "listening": [{"listening": False}]}, "gw0") is None
    assert not views.all_listening
    views = WorkerViews()  # saying nothing is not saying it listened
    assert views.merge({**VIEW, "listening": []}, "gw1") is None
    assert not views.all_listening


@pytest.mark.parametrize("view", [
    None, "not a mapping", {"internal_changes": [], "hooks": []},
    {"internal_changes": {}, "hooks": [], "import_hooks": []},
])
def test_a_worker_whose_watch_cannot_be_read_is_a_problem(tmp_path: Path, view: object) -> None:
    relay, sources = _Relay(VIEW), SourceWatch(tmp_path)
    controller = XdistChannel(sources, ItemWatch(str, str), relay)
    output = _worker_output(_Relay(VIEW), tmp_path)
    seen = output[OUTPUT_KEY]
    assert isinstance(seen, dict)
    output = {OUTPUT_KEY: {**seen, "watch": view} if view is not None else
              {key: value for key, value in seen.items() if key != "watch"}}
    controller.pytest_testnodedown(SimpleNamespace(workeroutput=output, gateway="gw0"), None)
    [finding] = _source_findings(sources)
    assert "gw0 sent its watch in another shape" in finding["route"]
    assert relay.workers.changes == {}


def test_entries_in_a_view_are_plain_and_capped() -> None:
    # A worker sends what it likes: a value that is no plain one is never shown by its repr
    # (a list of a million entries), a field the watch does not write is dropped.
    views = WorkerViews()
    many = [{**CHANGE, "name": f"n{i}", "now": ["x"] * 1_000_000, "extra": "dropped"}
            for i in range(MAX_ENTRIES + 5)]
    assert views.merge({"internal_changes": ["not a mapping", *many], "hooks": [],
                        "import_hooks": [], "trace_functions": [], "written_files": [],
                        "listening": [{"listening": True}]}, "gw0") is None
    kept = views.changes["_pytest.runner"]
    assert len(kept) == MAX_ENTRIES - 1  # the first MAX_ENTRIES entries, one not a mapping
    assert {entry["now"] for entry in kept} == {"<not a plain value>"}
    assert all(entry["data"] is False and "extra" not in entry for entry in kept)


def test_a_worker_compares_after_each_of_its_tests(tmp_path: Path) -> None:
    relay = _Relay(VIEW)
    registered: list[tuple[object, str]] = []
    manager = SimpleNamespace(register=lambda plugin, name: registered.append((plugin, name)))
    channel = XdistChannel(SourceWatch(tmp_path), ItemWatch(str, str), relay)
    channel.pytest_configure(SimpleNamespace(pluginmanager=manager))  # type: ignore[arg-type]
    assert registered == []  # not a worker: the recorder compares in a single process
    channel.pytest_configure(SimpleNamespace(pluginmanager=manager, workerinput={}))  # type: ignore[arg-type]
    [(plugin, name)] = registered
    assert name == "claim-gate-worker-watch"
    plugin.pytest_runtest_logfinish()  # type: ignore[attr-defined]
    assert relay.tests == 1
