"""Does the pytest plugin add time to a session? A 2,000-test session with and without it.

Both runs are real subprocesses in a committed git repository (so the plugin asks git for
the commit and the tree state, as in CI). "Without" unloads the plugin (`-p no:claim_gate`);
"with" writes the evidence record and a JUnit report carrying the binding (the baseline
writes the JUnit report too, so the only difference is the plugin); "inactive" is the
plugin installed but not asked for, the cost every pytest user of the environment pays.
Runs alternate to spread machine noise; the ratio of the minimum times is the headline (the
least disturbed run of each), the ratio of medians is printed beside it. Target: <= 1.05.

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


def run_once(root: Path, mode: str) -> float:
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "--junitxml", "out/junit.xml", *MODES[mode]]
    started = time.perf_counter()
    completed = subprocess.run(args, cwd=root, env=_env(), capture_output=True, text=True,
                               check=False)
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"pytest failed ({completed.returncode}):\n{completed.stdout[-2000:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="claim-gate-plugin-bench-") as tmp:
        root = Path(tmp)
        make_project(root, args.tests)
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        for mode in MODES:
            run_once(root, mode)  # warm the bytecode and file caches for each
        for _ in range(args.repeat):
            for mode in MODES:
                times[mode].append(run_once(root, mode))
        record = json.loads((root / "out" / "evidence.json").read_text())
    assert record["observed_value"]["tests"] == args.tests, record["observed_value"]
    assert record["x-tree-clean"] is True, record.get("x-dirty-paths")
    print(f"tests per session: {args.tests}, repetitions: {args.repeat}")
    base_min, base_median = min(times["without"]), statistics.median(times["without"])
    for mode, found in times.items():
        line = f"{mode:>8}: min {min(found):.3f}s  median {statistics.median(found):.3f}s"
        if mode != "without":
            ratio = min(found) / base_min
            line += (f"  ratio (min) {ratio:.3f}  ratio (median)"
                     f" {statistics.median(found) / base_median:.3f}"
                     f"  target <= {TARGET_RATIO}: {'met' if ratio <= TARGET_RATIO else 'NOT met'}")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
