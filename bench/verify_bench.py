"""Time to verdict on the command line (issue 23): start, schema validation, whole commands.

Run: python3 -m bench.verify_bench [--old DIR] [--repeat N] [--sizes 1000,10000,100000]

- start: the CPU time of `claim-gate --help` and of `verify examples/claim.json` over
  `python -c pass` (the floor), the median of N runs taken in turn;
- validation: in one process, jsonschema's full walk (what every claim went through before)
  against the compiled check that answers a valid claim now, on claims of each size;
- whole command: `verify --format text` and `--format json` of a claim of each size (one
  independent readback per mutation), the CPU time of the process, and its growth per 10x.

`--old DIR` runs the same commands with an older gate first on the path (e.g.
`git archive REV gate | tar -x -C DIR`) and prints new/old ratios. CPU time, not wall time:
these machines are shared; the load average is printed with the figures. Both gates are
byte-compiled first, as an installed gate is: with PYTHONDONTWRITEBYTECODE set and no
`__pycache__`, every run would compile each module again (most of a small command's time).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "claim.json"
NOW = "2026-08-27T18:05:00Z"
TRUST = "gitreal-gate/*"


def cpu_of(argv: Sequence[str], old: Path | None = None) -> float:
    """User + system seconds of one run of `argv` (a child process)."""
    env = dict(os.environ)
    if old is not None:
        env["PYTHONPATH"] = str(old)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def gate(*argv: str) -> list[str]:
    # -P: the working directory is not put on the path, so --old's DIR is the gate imported.
    return [sys.executable, "-P", "-m", "gate", *argv]


def median_cpu(argv: Sequence[str], repeat: int, old: Path | None = None) -> float:
    return statistics.median(cpu_of(argv, old) for _ in range(repeat))


def claim_of(size: int, folder: Path) -> Path:
    document = json.loads(EXAMPLE.read_text())
    template = document["evidence"][0]
    document["mutations"] = [
        {"id": f"m{i}", "kind": "state_write", "target": f"accounts/{i}",
         "at": "2026-08-27T18:04:02Z"} for i in range(size)
    ]
    document["evidence"] = [dict(template, covers=[f"m{i}"], target=f"accounts/{i}")
                            for i in range(size)]
    del document["verdict"]
    path = folder / f"claim-{size}.json"
    path.write_text(json.dumps(document, indent=1))
    return path


def start(repeat: int, old: Path | None) -> None:
    floor = median_cpu([sys.executable, "-P", "-c", "pass"], repeat)
    print(f"start (CPU over `python -c pass`, {floor:.3f} s; median of {repeat}):")
    for label, argv in (("--help", gate("--help")),
                        ("verify examples/claim.json", gate("verify", str(EXAMPLE)))):
        new = median_cpu(argv, repeat) - floor
        line = f"  {label:<28} {new:.3f} s"
        if old is not None:
            before = median_cpu(argv, repeat, old) - floor
            line += f"   old {before:.3f} s   new/old {new / before:.2f}x"
        print(line)


def validation(paths: dict[int, Path]) -> None:
    from gate.claim.schema import conforms, validator

    print("validation of a valid claim, in one process (old: jsonschema; new: compiled):")
    for size, path in paths.items():
        document = json.loads(path.read_text())
        started = time.process_time()
        assert not list(validator().iter_errors(document))
        before = time.process_time() - started
        started = time.process_time()
        assert conforms()(document)
        new = time.process_time() - started
        print(f"  {size:>7} mutations   old {before:.3f} s   new {new:.3f} s"
              f"   new/old {new / before:.3f}x")


def whole(paths: dict[int, Path], repeat: int, old: Path | None) -> None:
    print("whole command, CPU of the process (growth: per 10x mutations):")
    for output in ("text", "json"):
        previous: float | None = None
        for size, path in paths.items():
            argv = gate("verify", str(path), "--now", NOW, "--trusted-verifier", TRUST,
                        "--max-claim-bytes", str(1 << 30), "--format", output)
            runs = 1 if size >= 100_000 else repeat
            new = median_cpu(argv, runs)
            line = f"  --format {output:<4} {size:>7} mutations   {new:.3f} s"
            if previous is not None:
                line += f"   growth {new / previous:.1f}x"
            if old is not None:
                before = median_cpu(argv, runs, old)
                line += f"   old {before:.3f} s   new/old {new / before:.2f}x"
            print(line)
            previous = new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="an older gate's source folder (holds gate/)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    for folder in (ROOT, args.old):
        if folder is not None:
            compileall.compile_dir(folder / "gate", quiet=1)
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    start(args.repeat, args.old)
    with tempfile.TemporaryDirectory() as folder:
        paths = {size: claim_of(size, Path(folder)) for size in map(int, args.sizes.split(","))}
        validation(paths)
        whole(paths, args.repeat, args.old)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
