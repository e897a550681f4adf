"""Where the active plugin's cost in a real session goes: whole sessions with parts taken off.

`bench.plugin_bench` times the plugin's hooks and phases from inside; a session pays more than
that (what the plugin reads and keeps evicts the tests' data from the CPU's caches, and its
objects are walked by the cyclic collector). Here every figure is a whole session's CPU, so
nothing is left out: the suite runs without the plugin, with it, with the item check's hooks
taken off its class before it registers, with every per-test hook taken off, and without the
plugin but with do-nothing hooks of the same shapes (a makereport wrapper, a logreport, a
logfinish, an itemcollected: pluggy's dispatch alone). Sessions of each kind run in turn, the
order rotating; the split is the differences of the minimums and of the medians (a shared
machine moves one session by tens of ms: a part smaller than that is not shown). A session
with parts taken off writes a record that is wrong: it is timed, never read. With `--old DIR`
(another version's tree, e.g. `git archive REV | tar -x -C DIR`) its whole plugin runs in turn
too (first on `PYTHONPATH`), and the two are compared session by session: the paired median
of old / this, which a machine whose speed drifts between sittings moves less than a minimum.

    python -m bench.plugin_ablation --suite DIR [--paths tests/test_x.py] [--repeat 6] [--old DIR]

This module is also the `-p` plugin of those sessions (`-p bench.plugin_ablation`): what it
takes off is named by an environment variable the parent sets.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

#: Which parts the session's plugin loses: a comma-separated list of KINDS' keys.
OFF_VARIABLE = "CLAIM_GATE_BENCH_ABLATE"

ITEM_HOOKS = ("pytest_itemcollected", "pytest_pyfunc_call", "pytest_runtest_makereport",
              "pytest_runtest_logreport")

#: name: (plugin mode, what is taken off)
KINDS: dict[str, tuple[str, str]] = {
    "without": ("without", ""),
    "no-op hooks": ("without", "noop"),
    "no per-test hook": ("with", "items,compare"),
    "no item check": ("with", "items"),
    "with": ("with", ""),
}


class _DoNothing:
    """Hooks of the plugin's per-test shapes that do nothing: the dispatch alone."""

    def pytest_itemcollected(self, item: Any) -> None:
        del item

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Generator[None, Any, Any]:
        del item, call
        return (yield)

    def pytest_runtest_logreport(self, report: Any) -> None:
        del report

    def pytest_runtest_logfinish(self) -> None:
        return None


def _take_off(parts: set[str]) -> None:
    from gate.evidence.item_state import ItemWatch
    from gate.faces import pytest_plugin

    if "items" in parts:
        for name in ITEM_HOOKS:
            delattr(ItemWatch, name)
    if "compare" in parts:
        del pytest_plugin._Recorder.pytest_runtest_logfinish


def pytest_configure(config: pytest.Config) -> None:
    if "noop" in os.environ.get(OFF_VARIABLE, "").split(","):
        config.pluginmanager.register(_DoNothing(), "claim-gate-bench-do-nothing")


if os.environ.get(OFF_VARIABLE):  # loaded by a session of this bench only
    _take_off(set(os.environ[OFF_VARIABLE].split(",")))


#: The kind of `--old`: that tree's whole plugin.
OLD = "old (--old)"


def _session(root: Path, kind: str, paths: list[str], bytecode: Path,
             old: Path | None = None) -> float:
    """CPU seconds (user + system, with every child) of one session of `kind` (OLD: the whole
    plugin of `old`, a folder whose `gate` comes first on the path; this bench stays this
    tree's)."""
    from bench.plugin_bench import run_once

    mode, off = KINDS["with"] if kind == OLD else KINDS[kind]
    here = str(Path(__file__).resolve().parent.parent)
    path = os.pathsep.join([str(old), here]) if kind == OLD and old is not None else here
    environ = {OFF_VARIABLE: off, "PYTHONPATH": path}
    return run_once(root, mode, paths, bytecode, ("-p", "bench.plugin_ablation"), environ)[1]


def measure(root: Path, paths: list[str], repeat: int, bytecode: Path,
            old: Path | None = None) -> dict[str, list[float]]:
    """Each kind's session CPU times, `repeat` of each, in turn with the order rotating."""
    kinds = [*KINDS, *([OLD] if old is not None else [])]
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory(prefix="claim-gate-ablation-old-") as folder:
        only_gate = None
        if old is not None:  # the old tree's `gate` alone: its bench (if any) is not this one
            only_gate = Path(folder)
            (only_gate / "gate").symlink_to(old / "gate", target_is_directory=True)
            _session(root, OLD, paths, bytecode, only_gate)  # its bytecode, before any timing
        for round_ in range(repeat):
            for kind in kinds[round_ % len(kinds):] + kinds[:round_ % len(kinds)]:
                times[kind].append(_session(root, kind, paths, bytecode, only_gate))
    return times


def paired(times: dict[str, list[float]], top: str, bottom: str) -> float:
    """The median over rounds of `top`'s session over `bottom`'s of the same round."""
    return statistics.median(a / b for a, b in zip(times[top], times[bottom], strict=True))


def split(times: dict[str, list[float]],
          statistic: Callable[[list[float]], float] = min) -> list[tuple[str, float]]:
    """(part, seconds) from the differences of the kinds' `statistic` (min, median)."""
    best = {kind: statistic(values) for kind, values in times.items()}
    return [
        ("the whole plugin", best["with"] - best["without"]),
        ("the item check (its four hooks)", best["with"] - best["no item check"]),
        ("the compare after each test", best["no item check"] - best["no per-test hook"]),
        ("the rest: once per session, and what it keeps", best["no per-test hook"]
         - best["without"]),
        ("do-nothing hooks of the same shapes (dispatch)", best["no-op hooks"]
         - best["without"]),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--suite", type=Path, required=True)
    parser.add_argument("--paths", nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=6)
    parser.add_argument("--old", type=Path, default=None,
                        help="another version's tree: its whole plugin runs in turn too")
    args = parser.parse_args(argv)
    from bench.plugin_bench import warm_suite

    with warm_suite(args.suite, args.paths, "claim-gate-ablation-tree-") as (root, bytecode):
        times = measure(root, args.paths, args.repeat, bytecode,
                        args.old.resolve() if args.old else None)
    print(f"suite: {args.suite}, sessions of each kind: {args.repeat} (CPU, min / median)")
    for kind, values in times.items():
        print(f"  {kind:>18}: {min(values):.3f} s / {statistics.median(values):.3f} s")
    without = min(times["without"])
    print(f"  {'part (of the minimums; of the medians)':>48}")
    for (part, low), (_, middle) in zip(split(times), split(times, statistics.median),
                                        strict=True):
        print(f"  {part:>48}: {low * 1000:+7.1f} ms = {low / without:+.2%};"
              f" {middle * 1000:+7.1f} ms")
    for top, bottom in (("with", "without"), *(((OLD, "without"), ("with", OLD))
                                               if OLD in times else ())):
        print(f"  {top} / {bottom}: paired median {paired(times, top, bottom):.3f},"
              f" min / min {min(times[top]) / min(times[bottom]):.3f}")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
