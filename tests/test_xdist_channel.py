"""The xdist channel in process: what a worker sends reaches the controller's source check,
and a worker that went down cleanly without sending its hashes is a problem, never "nothing
differed" (a crashed worker's tests are unfinished, which the tally already says)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from gate.evidence.item_state import ItemWatch
from gate.evidence.producer_inventory import derive_findings
from gate.evidence.test_sources import SourceWatch, file_blob
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


def test_a_crashed_worker_is_left_to_the_unfinished_tests(tmp_path: Path) -> None:
    controller, sources = _channel(tmp_path)
    controller.pytest_testnodedown(SimpleNamespace(workeroutput={}), "worker crashed")
    assert _source_findings(sources) == []
