"""GitHub API calls and wall time of one action run, against the stand-in (validation on).

Run: python3 -m bench.github_calls_bench
Calls must grow with workflow runs and artifacts, never with tests or mutations; one run with
one artifact and one deployment must stay within 18 calls (was 12 before issue 10: the PR is
re-read for its current base and the default branch, and each workflow's base-branch
baseline, now required for a complete picture, costs its artifact list and download; 15
before issue 20: the PR's timeline, the PRs holding the head and the PR read again at the end
cost one each, while the base commit's runs, read once for every workflow, made ten runs
cheaper: 54 calls, was 60).

The history across pushes (issue 15 item 3) is read only when the gate posts as its own App;
the `app` rows run that single case with the App, on a PR whose branch had three earlier
pushes: first with no check of the gate's anywhere (the worst case: `before`, the branch's
activity, one more head) and then on the next push, which finds `before`'s check at once.
Each App row also spends 2 calls on the installation token (JWT), not on the history; the
history's own share must stay within 3. The fail-to-pass row sets `base-code-artifact-name`
with a policy that requires it: the run over the base's code is a second artifact of the
head's run, found in the listing already read (no deployment in that row).
"""

from __future__ import annotations

import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.action_support import (
    REPO,
    T0,
    Scenario,
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

#: The App's installation-token exchange: `GET .../installation` and `POST .../access_tokens`.
TOKEN_CALLS = 2


def pull_scenario(hub: Hub, runs: int, tests: int, mutations: int) -> Scenario:
    """One PR whose head has `runs` workflow runs (each with its base-branch baseline), one
    deployment, and one changed file per mutation beside app/parser.py, all claimed."""
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
    return s


def measure(api: ApiDescription, runs: int, tests: int, mutations: int) -> tuple[int, float, str]:
    hub = Hub(api).start()
    try:
        s = pull_scenario(hub, runs, tests, mutations)
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


def measure_base_code(api: ApiDescription) -> tuple[int, int, float, str]:
    """The single run with the owner's policy requiring fail-to-pass and the Action's
    `base-code-artifact-name` set: the head's run carries the head's JUnit and, as a second
    artifact, the same tests over the base's code. Returns the calls, the artifact
    listings among them, the wall time and the check's conclusion."""
    from tests.test_fail_to_pass_action import (
        ARTIFACT_LISTING,
        POLICY_PATH,
        add_test_run,
        base_code_xml,
        f2p_scenario,
    )

    hub = Hub(api).start()
    try:
        hub.add_token(GITHUB_TOKEN)
        s = f2p_scenario(hub)
        add_test_run(s, base_code_xml(s.pull.base_sha, s.head.sha))
        with tempfile.TemporaryDirectory() as folder:
            files = runner_files(Path(folder), pull_request_event(hub, s.pull,
                                                                  action="synchronize"))
            env = runner_env(hub, files, "pull_request", REPO, artifact_name="junit-*",
                             policy=POLICY_PATH, base_code_artifact_name="junit-base-*")
            hub.calls.clear()
            started = time.perf_counter()
            result = run_action(env)
            seconds = time.perf_counter() - started
        assert not hub.violations, hub.violations
        assert result.code == 0, result.stdout
        return (sum(hub.calls.values()), hub.calls[ARTIFACT_LISTING], seconds,
                s.check().conclusion or "?")
    finally:
        hub.stop()


def _app_key() -> tuple[str, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return private, key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def measure_with_app(api: ApiDescription) -> tuple[int, int, float]:
    """The single run (1 workflow, 10 tests, 1 mutation, 1 deployment) with the gate's App:
    the calls of the first decision on a branch pushed three times before, then of the next
    push's decision."""
    hub = Hub(api).start()
    try:
        private, public = _app_key()
        s = scenario(hub, claim_json([edit("parser", at=T0 - timedelta(minutes=3))]))
        app = hub.add_app("claim-gate-app", public_key_pem=public)
        hub.add_installation(app, s.repo.owner)
        inputs = {"app_id": str(app.id), "app_private_key": private, "github_token": ""}
        counts, seconds = [], 0.0
        for step, minutes in enumerate((20, 40)):
            for extra in ((5, 10, 15) if step == 0 else ()) + (minutes,):
                claim = claim_json([edit("parser", at=T0 + timedelta(minutes=extra - 1))])
                s.head = hub.add_commit(s.repo, {"app/parser.py": f"x = {extra}\n",
                                                 ".claim.json": claim},
                                        branch="copilot/fix-parser",
                                        pushed_at=T0 + timedelta(minutes=extra))
            hub.update_pull_head(s.pull)
            s.add_run(junit_xml(passed=10), started=timedelta(minutes=minutes + 5))
            hub.add_deployment(s.repo, sha=s.head.sha,
                               statuses=[DeploymentStatusSpec("success")])
            with tempfile.TemporaryDirectory() as folder:
                files = runner_files(Path(folder), pull_request_event(
                    hub, s.pull, action="synchronize"))
                env = runner_env(hub, files, "pull_request", REPO, artifact_name="junit-*",
                                 **inputs)
                hub.calls.clear()
                started = time.perf_counter()
                result = run_action(env, now=T0 + timedelta(hours=1 + step))
                seconds += time.perf_counter() - started
            assert not hub.violations, hub.violations
            assert result.code == 0, result.stdout
            assert "### History on this PR" in (s.check().summary or "")
            counts.append(sum(hub.calls.values()))
        return counts[0], counts[1], seconds / 2
    finally:
        hub.stop()


def main() -> int:
    api = ApiDescription.load()
    print("runs  tests/run  mutations  API calls  wall s  check")
    single = 0
    for runs, tests, mutations in [(1, 10, 1), (1, 1000, 1), (1, 10, 100), (10, 10, 1),
                                   (100, 10, 1)]:
        calls, seconds, state = measure(api, runs, tests, mutations)
        single = single or calls
        print(f"{runs:>4}  {tests:>9}  {mutations:>9}  {calls:>9}  {seconds:>6.2f}  {state}")
    calls, listings, seconds, state = measure_base_code(api)
    print(f"   1         10          1  {calls:>9}  {seconds:>6.2f}  {state}: fail-to-pass"
          f" required, base-code-artifact-name set ({listings} artifact listings: the base"
          " code's artifact is found in the head run's)")
    first, later, seconds = measure_with_app(api)
    for label, calls in (("app, first decision (worst case)", first),
                         ("app, next push", later)):
        history = calls - TOKEN_CALLS - single
        print(f"   1         10          1  {calls:>9}  {seconds:>6.2f}  {label}:"
              f" {TOKEN_CALLS} token + {single} + {history} for the history")
    return 0


if __name__ == "__main__":
    sys.exit(main())
