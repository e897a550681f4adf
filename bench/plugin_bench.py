"""Does the pytest plugin add time to a session? A 2,000-test session with and without it.

Both runs are real subprocesses in a committed git repository (so the plugin asks git for
the commit and the tree state, as in CI). "Without" unloads the plugin (`-p no:claim_gate`);
"with" writes the evidence record and a JUnit report carrying the binding (the baseline
writes the JUnit report too, so the only difference is the plugin); "inactive" is the
plugin installed but not asked for, the cost every pytest user of the environment pays.
Each repetition runs the three modes back to back, in an order that rotates, so slow drift
of the machine hits them alike. Two clocks: wall time, and CPU time (user + system of pytest
and every process it waited for, git included), which other jobs on a shared machine disturb
less. The headline is the median over repetitions of the paired CPU ratio (with / without in
the same repetition); the ratio of minimum times is printed beside it. Target: <= 1.05.
Because a shared machine's noise can exceed the effect, the plugin's own work is also timed
in process (asking git, tallying every report of the session, building and writing the
record) and printed as a share of the fastest session without it.

    python bench/plugin_bench.py [--tests 2000] [--repeat 7]
    python bench/plugin_bench.py --suite DIR [--paths tests/test_x.py] [--repeat 7]

`--suite DIR` runs a real project's test suite instead (DIR is copied to a temporary git
repository and committed; e.g. an sdist's source tree, with its test dependencies installed
in this environment). The in-process figure then also times the watch itself: a `Watch`
built over pytest's own plugin manager and compared after each of the session's tests.
The plugin's once-per-session work is timed apart too, phase by phase, in fresh processes
over the same tree (`bench.plugin_phases`), each as a share of the session's CPU. The hot
loop understates what a session pays per test (the test evicts what the compare reads from
the CPU's caches), so the per-test hooks are also timed inside the suite's own sessions
(`bench.plugin_session_cost`): that figure, with the fixed phases, is the plugin's cost.

The sessions keep their bytecode in a temporary cache (`PYTHONPYCACHEPREFIX`, whatever
`PYTHONDONTWRITEBYTECODE` says), as an installed claim-gate has its `.pyc` files: without
it every active session would compile the plugin's modules again, a cost CI does not pay.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

TARGET_RATIO = 1.05
COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "CIRCLE_SHA1", "BUILDKITE_COMMIT")


def _env(bytecode: Path | None = None) -> dict[str, str]:
    """A git without the machine's config; with `bytecode`, Python caches bytecode there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    if bytecode is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@claim-gate.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@claim-gate.invalid")
    return env


def copy_suite(source: Path, root: Path) -> None:
    """A real project's tree, committed in a fresh repository (no history: only the bytes)."""
    shutil.copytree(source, root, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc", "out"))
    with (root / ".gitignore").open("a") as ignore:
        ignore.write("\n__pycache__/\nout/\n")
    _commit(root)


def _commit(root: Path) -> None:
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *args], cwd=root, env=_env(), check=True, capture_output=True)


def make_project(root: Path, tests: int) -> None:
    """`tests` tests over 20 modules, committed, with the usual ignores."""
    per_module = max(1, tests // 20)
    made = 0
    module = 0
    while made < tests:
        count = min(per_module, tests - made)
        body = "\n".join(
            f"def test_{module}_{index}():\n    assert {index} + 1 > {index}\n"
            for index in range(count)
        )
        (root / f"test_module_{module}.py").write_text(body + "\n")
        made += count
        module += 1
    (root / ".gitignore").write_text("__pycache__/\nout/\n")
    _commit(root)


MODES = {
    "without": ["-p", "no:claim_gate"],
    "inactive": [],
    "with": ["--claim-evidence", "out/evidence.json"],
}


def run_once(root: Path, mode: str, paths: list[str], bytecode: Path | None = None,
             extra: Sequence[str] = (), environ: Mapping[str, str] | None = None,
             ) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one pytest session; `extra` arguments before the paths
    and `environ` variables over the bench's environment (a bench's own `-p` plugin)."""
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--junitxml", "out/junit.xml", *MODES[mode], *extra, *paths]
    with tempfile.TemporaryFile() as output:
        started = time.perf_counter()
        process = subprocess.Popen(args, cwd=root, env={**_env(bytecode), **(environ or {})},
                                   stdout=output, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            output.seek(0)
            text = output.read().decode("utf-8", "replace")
            raise SystemExit(f"pytest failed ({process.returncode}):\n{text[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


@contextmanager
def warm_suite(suite: Path, paths: list[str], prefix: str) -> Iterator[tuple[Path, Path]]:
    """(tree, bytecode cache): `suite` copied and committed in a temporary repository, run
    once with the plugin so the bytecode cache is filled; both removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp, \
            tempfile.TemporaryDirectory(prefix="claim-gate-plugin-bytecode-") as bytecode:
        root = Path(tmp)
        copy_suite(suite, root)
        run_once(root, "with", paths, Path(bytecode))
        yield root, Path(bytecode)


def own_work(root: Path, tests: int) -> float:
    """Seconds the active plugin spends on its own work for a session of `tests` tests."""
    from datetime import UTC, datetime

    from gate.evidence.git_probe import probe_tree
    from gate.evidence.pytest_record import SessionFacts, Tally, build_record

    started = time.perf_counter()
    tree = probe_tree(root, [root / "out" / "evidence.json", root / "out" / "junit.xml"], {})
    tally = Tally()
    for index in range(tests):
        for when in ("setup", "call", "teardown"):
            tally.add(f"test_module_{index % 20}.py::test_{index}", when, "passed")
    now = datetime.now(UTC)
    facts = SessionFacts(now, now, tally.totals(), tree, 0, "9", "0", "3")
    (root / "out" / "own-work.json").write_text(json.dumps(build_record(facts), indent=2))
    return time.perf_counter() - started


def watch_work(root: Path, tests: int) -> float:
    """Seconds the watch spends on a session of `tests` tests: built at load over pytest's
    own plugin manager (its default plugins registered), compared after every test and at
    the end, as the active plugin does."""
    from _pytest.config import get_config

    import gate
    from gate.evidence.pytest_watch import Origins, Watch, install_dirs, site_dirs

    manager = get_config().pluginmanager
    started = time.perf_counter()
    origins = Origins(root, Path(gate.__file__).parent, install_dirs(), site_dirs())
    watch = Watch(origins, os.environ)
    watch.observe(manager, "load")
    for _ in range(tests):
        watch.observe(manager, "run")
    watch.observe(manager, "end")
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--suite", type=Path, default=None,
                        help="a real project's source tree whose tests to run instead")
    parser.add_argument("--paths", nargs="*", default=[],
                        help="with --suite: the test paths to give pytest")
    parser.add_argument("--phase-repeat", type=int, default=3,
                        help="fresh processes per phase timing (the minimum is shown)")
    args = parser.parse_args(argv)
    from bench import plugin_session_cost
    from bench.plugin_phases import measure, report

    with tempfile.TemporaryDirectory(prefix="claim-gate-plugin-bench-") as tmp, \
            tempfile.TemporaryDirectory(prefix="claim-gate-plugin-bytecode-") as bytecode:
        root = Path(tmp)
        if args.suite:
            copy_suite(args.suite, root)
        else:
            make_project(root, args.tests)
        wall: dict[str, list[float]] = {mode: [] for mode in MODES}
        cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
        for mode in MODES:  # warm the bytecode and file caches for each
            run_once(root, mode, args.paths, Path(bytecode))
        for repetition in range(args.repeat):
            order = list(MODES)[repetition % len(MODES):] + list(MODES)[:repetition % len(MODES)]
            for mode in order:
                seconds, cpu_seconds = run_once(root, mode, args.paths, Path(bytecode))
                wall[mode].append(seconds)
                cpu[mode].append(cpu_seconds)
        record = json.loads((root / "out" / "evidence.json").read_text())
        tests = int(record["observed_value"]["tests"])
        work = min(own_work(root, tests) for _ in range(5))
        watching = min(watch_work(root, tests) for _ in range(3))
        phases = measure(root, args.paths, args.phase_repeat, Path(bytecode))
        in_session = plugin_session_cost.measure(root, args.paths, args.phase_repeat,
                                                 Path(bytecode)) if args.suite else None
    assert args.suite or tests == args.tests, record["observed_value"]
    assert record["x-tree-clean"] is True, record.get("x-dirty-paths")
    findings = record["x-producer-inventory"]["findings"]
    assert not findings, findings
    print(f"suite: {args.suite or 'generated'}, tests per session: {tests},"
          f" repetitions: {args.repeat}")
    for mode in MODES:
        print(f"{mode:>8}: CPU min {min(cpu[mode]):.3f}s  wall min {min(wall[mode]):.3f}s"
              f"  wall median {statistics.median(wall[mode]):.3f}s")
    for mode in ("inactive", "with"):
        paired = statistics.median(a / b for a, b in zip(cpu[mode], cpu["without"], strict=True))
        paired_wall = statistics.median(
            a / b for a, b in zip(wall[mode], wall["without"], strict=True)
        )
        cpu_min = min(cpu[mode]) / min(cpu["without"])
        wall_min = min(wall[mode]) / min(wall["without"])
        verdict = "met" if paired <= TARGET_RATIO else "NOT met"
        print(f"{mode:>8} / without: CPU paired median {paired:.3f}  CPU min {cpu_min:.3f}"
              f"  wall paired median {paired_wall:.3f}  wall min {wall_min:.3f}"
              f"  target <= {TARGET_RATIO}: {verdict}")
    share = work / min(wall["without"])
    print(f"plugin's own work in process: {work * 1000:.1f} ms = {share:.1%} of the fastest"
          " session without it")
    print(f"the watch in a hot loop ({tests} compares): {watching * 1000:.1f} ms ="
          f" {watching / min(cpu['without']):.1%} of the fastest session's CPU without it")
    if in_session is not None:
        best, calls, session_cpu = in_session
        print("the per-test hooks inside the suite's own sessions (CPU, min of"
              f" {args.phase_repeat}; share of the fastest session without the plugin beside"
              " them):")
        print("\n".join(plugin_session_cost.report(best, calls, session_cpu)))
        parts = sum(best.values()) / session_cpu + sum(phases.values()) / min(cpu["without"])
        print(f"the plugin's parts, per-test hooks in session + fixed phases: {parts:.2%}"
              f" (target <= {TARGET_RATIO - 1:.0%})")
    print("the plugin's once-per-session work, per phase (CPU, git included, min of"
          f" {args.phase_repeat} fresh processes; share of the fastest session's CPU without it):")
    print("\n".join(report(phases, min(cpu["without"]))))
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
