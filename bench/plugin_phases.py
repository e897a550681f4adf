"""The active pytest plugin's fixed costs, one phase at a time, in a fresh process.

The whole-session ratio of `bench.plugin_bench` mixes the per-test watch with what the plugin
does once per session (importing its modules, the watch's snapshot at load, the scan for code
that ran before it, the tree probed at start, the collected test modules hashed, the compare,
the inventory and the tree probed again at the end, the record written), and on a shared
machine its noise is as large as the target. Here each of those is timed apart, as CPU time of
this process plus the git processes it waited for, over the tree of a real session: the
child parses pytest's configuration as the session would (plugins, conftests; the plugin
inactive, so it does nothing itself), then runs each phase the active plugin runs, in order.

    python -m bench.plugin_phases --suite DIR [--paths tests] [--repeat 5]

`--suite DIR` is copied to a temporary git repository and committed, as `bench.plugin_bench`
does; without it the phases run over the current directory's tree as it is. Each figure is
the minimum over the repetitions (fresh processes, bytecode cached after a first run, as an
installed plugin has it). `bench.plugin_bench` prints the same phases beside its sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

PHASES = (
    ("imports", "importing the active plugin's modules"),
    ("watch_load", "the watch's snapshot at load (namespaces, hooks, their origins)"),
    ("preload_scan", "code that ran before the plugin (entry points, shadowing packages)"),
    ("tree_start", "the tree probed at session start (git)"),
    ("sources_collect", "the collected test modules hashed"),
    ("end", "compare at the end, inventory, the tree probed again, the commit's blobs (git)"),
    ("record", "the JUnit file read back, the record built and written"),
)


def _cpu() -> float:
    """CPU seconds of this process and of every child it waited for (git)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def test_modules(root: Path, paths: list[str]) -> list[Path]:
    """The test modules a session over `paths` collects (pytest's default file patterns)."""
    found: list[Path] = []
    for text in paths or ["."]:
        path = root / text.split("::", 1)[0]
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found.extend(p for p in sorted(path.rglob("*.py"))
                         if p.name.startswith("test_") or p.name.endswith("_test.py"))
    return found


def child(paths: list[str]) -> dict[str, float]:
    """Each phase's CPU seconds over the tree in the current directory."""
    from _pytest.config import _prepareconfig

    root = Path.cwd()
    config = _prepareconfig(["-p", "no:cacheprovider", *paths])
    times: dict[str, float] = {}
    state: dict[str, Any] = {}

    def phase(name: str) -> Callable[[Callable[[], object]], None]:
        def run(body: Callable[[], object]) -> None:
            started = _cpu()
            body()
            times[name] = _cpu() - started
        return run

    for name, body in _phases(config, root, paths, state):
        phase(name)(body)
    config._ensure_unconfigure()
    return times


def _phases(config: Any, root: Path, paths: list[str],
            state: dict[str, Any]) -> Iterator[tuple[str, Callable[[], object]]]:
    def imports() -> None:
        import gate.evidence.git_hidden
        import gate.evidence.git_probe
        import gate.evidence.plugin_preload
        import gate.evidence.plugin_session
        import gate.evidence.producer_inventory
        import gate.evidence.pytest_record
        import gate.evidence.pytest_watch  # noqa: F401

    yield "imports", imports

    def watch_load() -> None:
        import gate
        from gate.evidence.pytest_watch import Origins, Watch, install_dirs, site_dirs

        origins = Origins(root, Path(gate.__file__).parent, install_dirs(), site_dirs())
        state["watch"] = Watch(origins, os.environ)
        state["watch"].observe(config.pluginmanager, "load")

    yield "watch_load", watch_load

    def preload_scan() -> None:
        from gate.faces import pytest_plugin

        state["preloaded"] = pytest_plugin._preloaded(config)

    yield "preload_scan", preload_scan

    ignored = [root / "out" / "evidence.json", root / "out" / "junit.xml"]

    def tree_start() -> None:
        from gate.evidence.git_hidden import import_roots
        from gate.evidence.git_probe import probe_tree
        from gate.evidence.plugin_session import base_code_properties

        state["roots"] = import_roots(root, paths)
        state["tree"] = probe_tree(root, ignored, os.environ, import_roots=state["roots"])
        base_code_properties(root, state["tree"])

    yield "tree_start", tree_start

    def sources_collect() -> None:
        state["watch"].sources.collected(test_modules(root, paths))

    yield "sources_collect", sources_collect

    def end() -> None:
        state["watch"].observe(config.pluginmanager, "end")
        state["inventory"] = state["watch"].inventory(
            config, [], os.environ, (state["tree"], ignored, state["roots"]), state["preloaded"])

    yield "end", end

    def record() -> None:
        from datetime import UTC, datetime

        from gate.evidence.pytest_record import SessionFacts, Tally, build_record
        from gate.evidence.pytest_watch import junit_report_facts

        junit = root / "out" / "junit.xml"
        report = junit_report_facts(junit, root) if junit.is_file() else None
        now = datetime.now(UTC)
        facts = SessionFacts(now, now, Tally().totals(), state["tree"], 0, "9", "0", "3",
                             inventory=state["inventory"], junit_report=report)
        out = root / "out" / "phases-record.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(build_record(facts), indent=2))
        state["record"] = out

    yield "record", record


def measure(root: Path, paths: list[str], repeat: int,
            bytecode: Path | None = None) -> dict[str, float]:
    """Each phase's minimum CPU seconds over `repeat` fresh processes in `root` (bytecode
    cached in `bytecode`, as the sessions of `bench.plugin_bench` have it)."""
    from bench.plugin_bench import _env

    best: dict[str, float] = {}
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-P", "-m", "bench.plugin_phases", "--child", *paths], cwd=root,
            env={**_env(bytecode), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
            capture_output=True, check=True, text=True,
        ).stdout
        for name, seconds in json.loads(out.splitlines()[-1]).items():
            best[name] = min(best.get(name, seconds), seconds)
    return best


def report(phases: dict[str, float], session_cpu: float | None) -> list[str]:
    """One line per phase, with its share of a session's CPU when one is given."""
    lines = []
    for name, what in PHASES:
        seconds = phases.get(name, 0.0)
        share = f" = {seconds / session_cpu:.2%}" if session_cpu else ""
        lines.append(f"  {name:>15}: {seconds * 1000:8.1f} ms{share}  ({what})")
    total = sum(phases.values())
    share = f" = {total / session_cpu:.2%} of the session's CPU" if session_cpu else ""
    lines.append(f"  {'fixed, total':>15}: {total * 1000:8.1f} ms{share}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--suite", type=Path, default=None)
    parser.add_argument("--paths", nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", nargs="*", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child)))
        return 0
    from bench.plugin_bench import copy_suite

    with tempfile.TemporaryDirectory(prefix="claim-gate-plugin-phases-") as tmp, \
            tempfile.TemporaryDirectory(prefix="claim-gate-plugin-bytecode-") as bytecode:
        root = Path(tmp)
        if args.suite:
            copy_suite(args.suite, root)
        else:
            root = Path.cwd()
        started = time.perf_counter()
        measure(root, args.paths, 1, Path(bytecode))  # warm: the bytecode cache filled
        phases = measure(root, args.paths, args.repeat, Path(bytecode))
        modules = len(test_modules(root, args.paths))
        junit = (root / "out" / "junit.xml").is_file()
    print(f"tree: {args.suite or Path.cwd()}, test modules: {modules},"
          f" repetitions: {args.repeat} ({time.perf_counter() - started:.0f}s)")
    print("\n".join(report(phases, None)))
    if not junit:
        print("  (no JUnit report in the tree: the record phase read none back)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
