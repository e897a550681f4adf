"""The Action's wall time when every GitHub answer takes a round trip, one read at a time
(the old path, 1 worker) against reads side by side (4 workers), on the GitHub stand-in.

Run: python3 -m bench.github_latency_bench [--latency 0.1] [--runs 1,10,100]
The stand-in waits `--latency` seconds before every API answer and every storage download
(`Hub(latency=...)`). For each PR (one workflow run per workflow, its base-branch baseline,
one deployment, one changed code file) the table gives the calls (API and storage), the
sequential floor (calls x latency: what one read after the other cannot go below), the wall
time from the Action's start to its check run arriving at the stand-in without latency (the
gate's own work and the stand-in's validation of every request and answer, which holds its
lock) and with it for 1 and 4 workers, and the ratios: old / new, and new / floor (below 1:
the reads overlapped). Both paths must
post the same check (title and summary), and the call count is the same by construction.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.github_calls_bench import pull_scenario
from tests.action_support import REPO, run_action, runner_env, runner_files
from tests.github_standin.events import pull_request_event
from tests.github_standin.hub import Hub
from tests.github_standin.openapi import ApiDescription

POSTED = "POST /repos/{owner}/{repo}/check-runs"


@dataclass(frozen=True)
class Measured:
    calls: int  # API calls
    downloads: int  # storage downloads (each also waits the latency)
    seconds: float  # from the Action's start to its check run reaching the stand-in
    posted: str  # conclusion, title and summary of the check: the same on both paths


def measure(api: ApiDescription, runs: int, latency: float, workers: int) -> Measured:
    hub = Hub(api).start()
    try:
        s = pull_scenario(hub, runs, tests=10, mutations=1)
        with tempfile.TemporaryDirectory() as folder:
            files = runner_files(Path(folder), pull_request_event(hub, s.pull))
            env = runner_env(hub, files, "pull_request", REPO, artifact_name="junit-*")
            hub.calls.clear()
            hub.storage_requests.clear()
            hub.latency = latency
            posted_at: list[float] = []
            hub.when_called(POSTED, lambda: posted_at.append(time.perf_counter()))
            started = time.perf_counter()
            result = run_action(env, workers=workers)
        assert not hub.violations, hub.violations
        assert result.code == 0, result.stdout
        assert posted_at, "no check run was posted"
        check = s.check()
        shown = f"{check.conclusion}\n{check.title}\n{check.summary}"
        return Measured(sum(hub.calls.values()), len(hub.storage_requests),
                        posted_at[-1] - started, shown.replace(hub.web_url, "(the stand-in)"))
    finally:
        hub.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="seconds per answer")
    parser.add_argument("--runs", default="1,10,100", help="workflow runs per PR, a list")
    args = parser.parse_args(argv)
    api = ApiDescription.load()
    print(f"latency {args.latency * 1000:.0f} ms per answer (API and storage)")
    print("runs  API calls  downloads  floor s  no latency s  1 worker s  4 workers s"
          "  old/new  new/floor")
    for runs in (int(part) for part in args.runs.split(",")):
        bare = measure(api, runs, 0.0, workers=1)  # the gate's and the stand-in's own work
        old = measure(api, runs, args.latency, workers=1)
        new = measure(api, runs, args.latency, workers=4)
        assert (old.calls, old.downloads, old.posted) == (new.calls, new.downloads, new.posted)
        floor = (new.calls + new.downloads) * args.latency
        print(f"{runs:>4}  {new.calls:>9}  {new.downloads:>9}  {floor:>7.2f}"
              f"  {bare.seconds:>12.2f}  {old.seconds:>10.2f}  {new.seconds:>11.2f}"
              f"  {old.seconds / new.seconds:>6.2f}x  {new.seconds / floor:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
