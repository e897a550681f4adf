"""The ablation bench takes off what it says it does (the bench itself is not run here)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.plugin_ablation import KINDS, _session, split
from bench.plugin_bench import make_project


def _record_tests(root: Path) -> int:
    record = json.loads((root / "out" / "evidence.json").read_text(encoding="utf-8"))
    return int(record["observed_value"]["tests"])


def test_each_kind_runs_and_the_item_check_taken_off_no_longer_tallies(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    make_project(root, 3)
    cpu = {kind: _session(root, kind, [], tmp_path / "bytecode") for kind in KINDS}
    assert all(seconds > 0 for seconds in cpu.values())
    _session(root, "with", [], tmp_path / "bytecode")
    assert _record_tests(root) == 3  # the control: the whole plugin counted every test
    _session(root, "no item check", [], tmp_path / "bytecode")
    assert _record_tests(root) == 0  # its logreport, which tallies, was taken off


def test_the_split_is_the_differences_of_the_kinds() -> None:
    times = {"without": [4.0, 4.2], "no-op hooks": [4.1], "no per-test hook": [4.3],
             "no item check": [4.5], "with": [4.9, 5.0]}
    parts = dict(split(times))
    assert round(parts["the whole plugin"], 6) == 0.9
    assert round(parts["the item check (its four hooks)"], 6) == 0.4
    assert round(parts["the compare after each test"], 6) == 0.2
    assert round(parts["the rest: once per session, and what it keeps"], 6) == 0.3
    assert round(parts["do-nothing hooks of the same shapes (dispatch)"], 6) == 0.1
