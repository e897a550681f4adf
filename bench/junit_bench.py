"""Benchmark: the gate's JUnit reader against a bare `lxml.etree.iterparse` pass.

    python -m bench.junit_bench [--sizes 10000,100000,1000000] [--repeat 2] [--keep DIR]

Generates JUnit files (about 200 bytes per case, 1% failures with a traceback, suites of
1,000 cases) into a temporary folder, then reads each in a fresh child process per
measurement and reports wall time of the read and the child's peak resident memory
(`VmHWM` from /proc, which unlike `ru_maxrss` does not include the forked copy of this
process before exec). The bare pass is the usual streaming idiom: every `end` event,
`clear()` and unlink earlier siblings. Targets (issue 3): within 2x of the bare pass, peak
memory under 150 MB at 1M cases, linear growth. Not run by the test suite.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from lxml import etree

from gate.evidence.junit_reader import read_junit_file

SUITE_SIZE = 1000
FAILURE_EVERY = 100  # 1%

_TRACEBACK = (
    "def test_case():\n&gt;       assert compute(3) == 7\nE       assert 6 == 7\n"
    "E        +  where 6 = compute(3)\n\n{file}:{line}: AssertionError"
)


def _lines(cases: int) -> Iterator[str]:
    yield '<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="bench">\n'
    for start in range(0, cases, SUITE_SIZE):
        module = f"tests/unit/module_{start // SUITE_SIZE:05d}"
        classname = module.replace("/", ".") + ".TestBehaviour"
        yield (
            f'<testsuite name="{module}" tests="{min(SUITE_SIZE, cases - start)}"'
            f' timestamp="2026-08-27T18:05:00.000+00:00" hostname="runner-1">\n'
            '<properties><property name="claim-gate.commit"'
            ' value="0123456789abcdef0123456789abcdef01234567"/></properties>\n'
        )
        for index in range(start, min(start + SUITE_SIZE, cases)):
            head = (
                f'<testcase classname="{classname}"'
                f' name="test_case_{index:07d}_behaves_as_the_spec_says"'
                f' file="{module}.py" line="{index % 900 + 10}" time="0.{index % 1000:03d}5"'
                ' assertions="3"'
            )
            if index % FAILURE_EVERY == FAILURE_EVERY - 1:
                text = _TRACEBACK.format(file=f"{module}.py", line=index % 900 + 12)
                yield (
                    f'{head}>\n<failure message="assert 6 == 7" type="AssertionError">'
                    f"{text}</failure>\n</testcase>\n"
                )
            else:
                yield f"{head}/>\n"
        yield "</testsuite>\n"
    yield "</testsuites>\n"


def generate(path: Path, cases: int) -> Path:
    """Write a JUnit file with `cases` test cases, 1% of them failing."""
    with path.open("w", encoding="utf-8") as handle:
        buffer: list[str] = []
        for line in _lines(cases):
            buffer.append(line)
            if len(buffer) >= 4096:
                handle.write("".join(buffer))
                buffer.clear()
        handle.write("".join(buffer))
    return path


def _peak_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _measure(mode: str, path: Path) -> dict[str, float | int]:
    """Run in the child: read once, report seconds and peak memory."""
    baseline = _peak_kib()
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    if mode == "reader":
        read = read_junit_file(path)
        tests = read.totals.tests
        failures = read.totals.failures
    else:
        tests = failures = 0
        for _event, element in etree.iterparse(str(path), events=("end",)):
            if element.tag == "testcase":
                tests += 1
            elif element.tag == "failure":
                failures += 1
            element.clear()
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
    seconds = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return {"seconds": seconds, "cpu_seconds": cpu, "peak_kib": _peak_kib(),
            "baseline_kib": baseline, "tests": tests, "failures": failures}


def _child(mode: str, path: Path) -> dict[str, float | int]:
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-m", "bench.junit_bench", "--measure", mode, str(path)],
        cwd=root, capture_output=True, text=True, check=True,
    )
    measured: dict[str, float | int] = json.loads(result.stdout)
    return measured


def run(sizes: Sequence[int], repeat: int, folder: Path) -> list[dict[str, float | int]]:
    rows: list[dict[str, float | int]] = []
    for cases in sizes:
        path = generate(folder / f"junit-{cases}.xml", cases)
        row: dict[str, float | int] = {"cases": cases, "mb": path.stat().st_size / 1e6}
        # Alternate the two so that a burst of load from other jobs hits both alike.
        runs: dict[str, list[dict[str, float | int]]] = {"bare": [], "reader": []}
        for _ in range(repeat):
            for mode in ("bare", "reader"):
                runs[mode].append(_child(mode, path))
        for mode, measured in runs.items():
            row[f"{mode}_s"] = min(float(r["seconds"]) for r in measured)
            row[f"{mode}_cpu_s"] = min(float(r["cpu_seconds"]) for r in measured)
            row[f"{mode}_peak_mib"] = max(int(r["peak_kib"]) for r in measured) / 1024
            row["baseline_mib"] = int(measured[0]["baseline_kib"]) / 1024
            row[f"{mode}_tests"] = int(measured[0]["tests"])
        row["ratio"] = float(row["reader_s"]) / float(row["bare_s"])
        row["cpu_ratio"] = float(row["reader_cpu_s"]) / float(row["bare_cpu_s"])
        rows.append(row)
        print(_format(row), flush=True)
    return rows


def _format(row: dict[str, float | int]) -> str:
    return (
        f"| {int(row['cases']):>9,} | {float(row['mb']):5.0f} MB"
        f" | {float(row['bare_s']):5.2f} s ({float(row['bare_cpu_s']):5.2f} s CPU)"
        f" | {float(row['reader_s']):5.2f} s ({float(row['reader_cpu_s']):5.2f} s CPU)"
        f" | {float(row['ratio']):4.2f}x ({float(row['cpu_ratio']):4.2f}x CPU)"
        f" | {float(row['bare_peak_mib']):5.1f} MiB | {float(row['reader_peak_mib']):5.1f} MiB"
        f" | {float(row['baseline_mib']):4.1f} MiB |"
    )


HEADER = (
    "| cases | file | bare iterparse | reader | reader/bare | bare peak | reader peak"
    " | interpreter alone |\n|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--measure", nargs=2, metavar=("MODE", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        mode, file = args.measure
        print(json.dumps(_measure(mode, Path(file))))
        return 0
    sizes = [int(size) for size in args.sizes.split(",")]
    print(HEADER, flush=True)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        rows = run(sizes, args.repeat, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="junit-bench-") as folder:
            rows = run(sizes, args.repeat, Path(folder))
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        scale = float(last["cases"]) / float(first["cases"])
        print(f"growth x{scale:.0f} cases: reader CPU time x"
              f"{float(last['reader_cpu_s']) / float(first['reader_cpu_s']):.1f} (wall x"
              f"{float(last['reader_s']) / float(first['reader_s']):.1f}), reader peak memory x"
              f"{float(last['reader_peak_mib']) / float(first['reader_peak_mib']):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
