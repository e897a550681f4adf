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
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 1.05
COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "CIRCLE_SHA1", "BUILDKITE_COMMIT")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    for name in COMMIT_VARIABLES:
        env.pop(name, None)
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@claim-gate.invalid",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@claim-gate.invalid")
    return env


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
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "bench"]):
        subprocess.run(["git", *args], cwd=root, env=_env(), check=True, capture_output=True)


MODES = {
    "without": ["-p", "no:claim_gate"],
    "inactive": [],
    "with": ["--claim-evidence", "out/evidence.json"],
}


def run_once(root: Path, mode: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one pytest session."""
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--junitxml", "out/junit.xml", *MODES[mode]]
    with tempfile.TemporaryFile() as output:
        started = time.perf_counter()
        process = subprocess.Popen(args, cwd=root, env=_env(), stdout=output,
                                   stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            output.seek(0)
            text = output.read().decode("utf-8", "replace")
            raise SystemExit(f"pytest failed ({process.returncode}):\n{text[-2000:]}")
    return elapsed, usage.ru_utime + usage.ru_stime


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="claim-gate-plugin-bench-") as tmp:
        root = Path(tmp)
        make_project(root, args.tests)
        wall: dict[str, list[float]] = {mode: [] for mode in MODES}
        cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
        for mode in MODES:
            run_once(root, mode)  # warm the bytecode and file caches for each
        for repetition in range(args.repeat):
            order = list(MODES)[repetition % len(MODES):] + list(MODES)[:repetition % len(MODES)]
            for mode in order:
                seconds, cpu_seconds = run_once(root, mode)
                wall[mode].append(seconds)
                cpu[mode].append(cpu_seconds)
        record = json.loads((root / "out" / "evidence.json").read_text())
        work = min(own_work(root, args.tests) for _ in range(5))
    assert record["observed_value"]["tests"] == args.tests, record["observed_value"]
    assert record["x-tree-clean"] is True, record.get("x-dirty-paths")
    print(f"tests per session: {args.tests}, repetitions: {args.repeat}")
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
