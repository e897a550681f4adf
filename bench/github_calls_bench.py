"""GitHub API calls and wall time of one action run, against the stand-in (validation on).

Run: python3 -m bench.github_calls_bench
Calls must grow with workflow runs and artifacts, never with tests or mutations; one run with
one artifact and one deployment must stay within 15 calls (was 12 before issue 10: the PR is
re-read for its current base and the default branch, and each workflow's base-branch
baseline, now required for a complete picture, costs its artifact list and download).
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from tests.action_support import (
    REPO,
    T0,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin import DeploymentStatusSpec
from tests.github_standin.events import pull_request_event
from tests.github_standin.hub import Hub
from tests.github_standin.openapi import ApiDescription
from tests.github_standin.plugin import GITHUB_TOKEN


def measure(api: ApiDescription, runs: int, tests: int, mutations: int) -> tuple[int, float, str]:
    hub = Hub(api).start()
    try:
        hub.add_token(GITHUB_TOKEN)
        edits = [edit(f"m{i}", at=T0 - timedelta(minutes=3), path=f"f{i}.py")
                 for i in range(mutations)]
        edits.append(edit("parser", at=T0 - timedelta(minutes=3)))  # every changed file claimed
        paths = tuple(f".github/workflows/ci{index}.yml" for index in range(runs))
        s = scenario(hub, claim_json(edits), baseline=paths,
                     files={f"f{i}.py": "x = 1\n" for i in range(mutations)})
        for index in range(runs):
            s.add_run(junit_xml(passed=tests), started=timedelta(minutes=5, seconds=index),
                      name=f"CI {index}", path=paths[index])
        hub.add_deployment(s.repo, sha=s.head.sha, statuses=[DeploymentStatusSpec("success")])
        with tempfile.TemporaryDirectory() as folder:
            files = runner_files(Path(folder), pull_request_event(hub, s.pull))
            env = runner_env(hub, files, "pull_request", REPO, artifact_name="junit-*")
            hub.calls.clear()
            started = time.perf_counter()
            result = run_action(env)
            seconds = time.perf_counter() - started
        assert not hub.violations, hub.violations
        state = s.check().conclusion or "?"
        assert result.code == 0, result.stdout
        return sum(hub.calls.values()), seconds, state
    finally:
        hub.stop()


def main() -> int:
    api = ApiDescription.load()
    print("runs  tests/run  mutations  API calls  wall s  check")
    for runs, tests, mutations in [(1, 10, 1), (1, 1000, 1), (1, 10, 100), (10, 10, 1),
                                   (100, 10, 1)]:
        calls, seconds, state = measure(api, runs, tests, mutations)
        print(f"{runs:>4}  {tests:>9}  {mutations:>9}  {calls:>9}  {seconds:>6.2f}  {state}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
