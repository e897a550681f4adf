"""What the active plugin's per-test hooks cost inside a real session, not in a hot loop.

`bench.plugin_bench` times the watch in a loop that compares it thousands of times in a row:
everything it reads stays in the CPU's caches. In a session the test runs between two
compares and evicts them, so each compare pays cache misses, and it runs over the session's
own plugin manager (every installed plugin, the recorder's and the item check's hooks). Here
the suite's session itself runs with the plugin active and this module loaded as a second
plugin (`-p bench.plugin_session_cost`), which wraps each per-test entry point of the plugin
(the recorder's `pytest_runtest_logfinish`/`collectstart`, the item check's
`pytest_itemcollected`/`makereport`/`logreport` (which tallies too)/`pyfunc_call`) with a
CPU-time accumulator, less the accumulator's own cost (calibrated in the same process).
Not counted: pluggy's dispatch of those hooks (a few hundred ns each).

    python -m bench.plugin_session_cost --suite DIR [--paths tests/test_x.py] [--repeat 3]

Each figure is the minimum over the repetitions; the share is of the fastest session's CPU
without the plugin (`-p no:claim_gate`), run as many times beside them.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

#: Where the wrapped session writes its sums (set by the parent).
OUT_VARIABLE = "CLAIM_GATE_BENCH_SESSION_COST"

_SUMS: dict[str, list[float]] = {}


def _timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    clock = time.process_time
    entry = _SUMS.setdefault(label, [0.0, 0])

    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            entry[0] += clock() - started
            entry[1] += 1

    return timed


def _timed_wrapper(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A pytest hook wrapper (a generator) timed on both sides of its `yield`."""
    clock = time.process_time
    entry = _SUMS.setdefault(label, [0.0, 0])

    @functools.wraps(function)  # pluggy reads the hook's argument names through it
    def timed(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
        started = clock()
        inner = function(*args, **kwargs)
        next(inner)
        entry[0] += clock() - started
        result = yield
        started = clock()
        try:
            inner.send(result)
        except StopIteration as stop:
            result = stop.value
        entry[0] += clock() - started
        entry[1] += 1
        return result

    return timed


def _install() -> None:
    from gate.evidence.item_state import ItemWatch
    from gate.faces import pytest_plugin

    recorder = pytest_plugin._Recorder
    for owner, name in ((recorder, "pytest_runtest_logfinish"),
                        (recorder, "pytest_collectstart"),
                        (ItemWatch, "pytest_itemcollected"),
                        (ItemWatch, "pytest_runtest_logreport")):
        setattr(owner, name, _timed(f"{owner.__name__}.{name}", getattr(owner, name)))
    ItemWatch.pytest_runtest_makereport = _timed_wrapper(  # type: ignore[method-assign]
        "ItemWatch.pytest_runtest_makereport", ItemWatch.pytest_runtest_makereport)
    ItemWatch.pytest_pyfunc_call = _timed_wrapper(  # type: ignore[method-assign]
        "ItemWatch.pytest_pyfunc_call", ItemWatch.pytest_pyfunc_call)


def _overhead() -> tuple[float, float]:
    """The accumulators' own CPU seconds per call (plain, wrapper), measured here."""
    def plain() -> None:
        return None

    def wrapper() -> Generator[None, Any, Any]:
        return (yield)

    wrapper.pytest_impl = {}  # type: ignore[attr-defined]
    calls = 20000
    timed, timed_wrapper = _timed("calibration", plain), _timed_wrapper("calibration", wrapper)
    started = time.process_time()
    for _ in range(calls):
        timed()
    middle = time.process_time()
    for _ in range(calls):
        outer = timed_wrapper()
        next(outer)
        with contextlib.suppress(StopIteration):
            outer.send(None)
    done = time.process_time()
    _SUMS.pop("calibration")
    return (middle - started) / calls, (done - middle) / calls


def pytest_unconfigure(config: Any) -> None:
    del config
    target = os.environ.get(OUT_VARIABLE)
    if target:
        plain, wrapper = _overhead()
        sums = {label: max(0.0, seconds - count * (wrapper if "makereport" in label else plain))
                for label, (seconds, count) in _SUMS.items()}
        Path(target).write_text(json.dumps({"seconds": sums,
                                            "calls": {k: v[1] for k, v in _SUMS.items()}}))


if os.environ.get(OUT_VARIABLE):  # loaded by a session of this bench only
    _install()


def measure(root: Path, paths: list[str], repeat: int,
            bytecode: Path | None = None) -> tuple[dict[str, float], dict[str, int], float]:
    """(each entry point's minimum CPU seconds, its calls, the minimum session CPU without
    the plugin) over `repeat` sessions of each kind in `root`, in turn."""
    from bench.plugin_bench import _env, run_once

    best: dict[str, float] = {}
    calls: dict[str, int] = {}
    without: list[float] = []
    base = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--junitxml", "out/junit.xml"]
    with tempfile.TemporaryDirectory(prefix="claim-gate-session-cost-") as tmp:
        out = Path(tmp) / "sums.json"
        env = {**_env(bytecode), OUT_VARIABLE: str(out),
               "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
        for _ in range(repeat):
            subprocess.run([*base, "--claim-evidence", "out/evidence.json", "-p",
                            "bench.plugin_session_cost", *paths], cwd=root, env=env,
                           check=True, capture_output=True)
            found = json.loads(out.read_text())
            for label, seconds in found["seconds"].items():
                best[label] = min(best.get(label, seconds), seconds)
            calls = found["calls"]
            without.append(run_once(root, "without", paths, bytecode)[1])
    return best, calls, min(without)


def report(best: dict[str, float], calls: dict[str, int], session_cpu: float) -> list[str]:
    lines = [f"  {label:>42}: {seconds * 1000:8.1f} ms over {calls.get(label, 0):>6} calls"
             f" = {seconds / session_cpu:.2%}" for label, seconds in sorted(best.items())]
    total = sum(best.values())
    lines.append(f"  {'per-test hooks, total':>42}: {total * 1000:8.1f} ms"
                 f" = {total / session_cpu:.2%} of the session's CPU without the plugin")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--suite", type=Path, required=True)
    parser.add_argument("--paths", nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    from bench.plugin_bench import warm_suite

    with warm_suite(args.suite, args.paths, "claim-gate-session-cost-tree-") as (root, bytecode):
        best, calls, without = measure(root, args.paths, args.repeat, bytecode)
    print(f"suite: {args.suite}, repetitions: {args.repeat}, session CPU without the plugin"
          f" (min): {without:.3f}s")
    print("\n".join(report(best, calls, without)))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
