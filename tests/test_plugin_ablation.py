"""The ablation bench takes off what it says it does (the bench itself is not run here)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gate
from bench.plugin_ablation import KINDS, OLD, _session, measure, paired, split
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


def test_the_old_kind_runs_the_old_trees_plugin_in_turn(tmp_path: Path) -> None:
    """`--old DIR`: that tree's `gate` (its version says so in the record) in each round, with
    this tree's bench module beside it."""
    old = tmp_path / "old"
    shutil.copytree(Path(gate.__file__).resolve().parent, old / "gate",
                    ignore=shutil.ignore_patterns("__pycache__"))
    init = old / "gate" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{gate.__version__}"', '"0.0.0+old"'))
    root = tmp_path / "project"
    root.mkdir()
    make_project(root, 2)
    times = measure(root, [], 1, tmp_path / "bytecode", old)
    assert set(times) == {*KINDS, OLD}
    assert all(len(v) == 1 for v in times.values())
    record = json.loads((root / "out" / "evidence.json").read_text(encoding="utf-8"))
    assert record["x-plugin-version"] == "0.0.0+old"  # the last kind of the first round
    assert _record_tests(root) == 2
    _session(root, "with", [], tmp_path / "bytecode")
    record = json.loads((root / "out" / "evidence.json").read_text(encoding="utf-8"))
    assert record["x-plugin-version"] == gate.__version__  # the control: this tree's


def test_the_paired_median_is_of_the_same_rounds() -> None:
    times = {"with": [5.0, 6.0, 5.5], "without": [4.0, 6.0, 5.0]}
    assert round(paired(times, "with", "without"), 6) == 1.1
