"""GitHub reads side by side (issue 23 item 5): the same answers, in the same order, as one
after the other; a posted check identical byte for byte; a rate limit met by one read still
holds back every other read of the run."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest

from gate.evidence.github.api import RatePause
from gate.evidence.github.reads import read_pool
from tests.action_support import (
    REPO,
    T0,
    RunnerFiles,
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
from tests.github_standin.plugin import HubFactory

WORKFLOWS = tuple(f".github/workflows/ci{index}.yml" for index in range(3))


def test_reads_overlap_on_a_pool_and_come_back_in_the_order_asked() -> None:
    # Every read waits for the other three: only reads in flight together get past it.
    together = threading.Barrier(4, timeout=10)

    def read(number: int) -> int:
        together.wait()
        time.sleep(0.01 * number)  # finishing in another order than asked
        return number * number

    with read_pool(4) as reads:
        assert reads.each(read, [3, 1, 2, 0]) == [9, 1, 4, 0]


def test_with_one_worker_every_read_is_made_by_the_caller_one_after_the_other() -> None:
    me = threading.get_ident()
    with read_pool(1) as reads:
        assert reads.executor is None
        assert reads.each(lambda _: threading.get_ident(), range(3)) == [me, me, me]
        assert reads.both(lambda: 1, lambda: "two") == (1, "two")


def test_the_first_failure_in_order_is_raised_once_every_started_read_has_finished() -> None:
    finished: list[int] = []

    def read(number: int) -> int:
        if number == 1:
            time.sleep(0.2)  # fails last, but is asked first of the two failures
            raise ValueError("read 1")
        if number == 3:
            raise ValueError("read 3")
        time.sleep(0.3 if number == 2 else 0)
        finished.append(number)
        return number

    with read_pool(4) as reads, pytest.raises(ValueError, match="read 1"):
        reads.each(read, range(4))
    assert sorted(finished) == [0, 2]  # read 2 was started: waited for, not left running


def test_reads_that_wait_on_reads_of_their_own_never_block_the_pool() -> None:
    with read_pool(2) as reads:
        def outer(number: int) -> list[int]:
            return reads.each(lambda inner: number * 10 + inner, range(3))

        assert reads.each(outer, range(5)) == [[n * 10 + i for i in range(3)] for n in range(5)]


def test_a_rate_pause_makes_the_next_read_wait_out_what_github_asked() -> None:
    now: list[float] = [100.0]
    slept: list[float] = []
    pause = RatePause(clock=lambda: now[0], sleep=slept.append)
    pause.wait()
    assert slept == []
    pause.hold(7)
    pause.hold(3)  # a shorter wait asked later does not shorten the first
    now[0] += 2
    pause.wait()
    assert slept == [5]


def _rich(hub: Hub, failed: int) -> Scenario:
    """Three workflows with their baselines, two deployments with two statuses each, three
    changed code files: every kind of read that goes out together."""
    edits = [edit(f"m{i}", at=T0 - timedelta(minutes=3), path=f"f{i}.py") for i in range(3)]
    edits.append(edit("parser", at=T0 - timedelta(minutes=3)))
    s = scenario(hub, claim_json(edits), baseline=WORKFLOWS,
                 files={f"f{i}.py": f"x = {i}\n" for i in range(3)})
    for index, path in enumerate(WORKFLOWS):
        xml = junit_xml(passed=5, failed=failed if index == 1 else 0).replace(
            "<testsuite ", '<testsuite timestamp="2026-03-02T09:06:00+00:00" ')  # not an mtime
        s.add_run(xml,
                  started=timedelta(minutes=5, seconds=index), name=f"CI {index}", path=path)
    for environment in ("staging", "production"):
        hub.add_deployment(s.repo, sha=s.head.sha, environment=environment, statuses=[
            DeploymentStatusSpec("in_progress"), DeploymentStatusSpec("success")])
    return s


def _decide(hub: Hub, s: Scenario, folder: Path, workers: int) -> tuple[str, ...]:
    files: RunnerFiles = runner_files(folder, pull_request_event(hub, s.pull))
    env = runner_env(hub, files, "pull_request", REPO, artifact_name="junit-*")
    result = run_action(env, workers=workers)
    check = s.check()
    shown = (str(result.code), result.stdout, check.conclusion or "", check.title or "",
             check.summary or "", check.text or "", repr(sorted(files.outputs().items())),
             repr(sorted(hub.calls.items())))
    # Each hub has its own port; everything else must match to the byte.
    origin = hub.api_url.split("://", 1)[1].split("/", 1)[0]
    return tuple(part.replace(origin, "127.0.0.1:PORT") for part in shown)


@pytest.mark.parametrize(("failed", "conclusion"), [(0, "success"), (1, "failure")])
def test_the_posted_check_is_the_same_byte_for_byte_with_one_worker_and_with_four(
    make_github_hub: HubFactory, tmp_path: Path, failed: int, conclusion: str,
) -> None:
    posted = []
    for workers in (1, 4):
        hub = make_github_hub()
        s = _rich(hub, failed)
        hub.calls.clear()
        folder = tmp_path / f"workers-{workers}"
        folder.mkdir()
        posted.append(_decide(hub, s, folder, workers))
    assert posted[0][2] == conclusion, posted[0][3]
    assert posted[1] == posted[0]


def test_a_rate_limit_met_by_one_read_holds_back_the_reads_beside_it(
    github_hub: Hub, tmp_path: Path,
) -> None:
    s = _rich(github_hub, failed=0)
    arrived: list[tuple[float, str, int]] = []
    dispatch = github_hub.dispatch

    def recorded(method: str, target: str, headers: dict[str, str],
                 body: bytes) -> tuple[int, dict[str, str], bytes]:
        at = time.monotonic()
        answer = dispatch(method, target, headers, body)
        # A limit is dated when it is answered: a read sent before the client saw it is not
        # held back (a busy machine may take a while to deliver it).
        arrived.append((time.monotonic() if answer[0] == 403 else at, f"{method} {target}",
                        answer[0]))
        return answer

    github_hub.dispatch = recorded  # type: ignore[method-assign, assignment]
    github_hub.latency = 0.3  # so that the other reads would still be asking during the wait
    github_hub.rate_limit("GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
                          times=1, retry_after=2)
    assert _decide(github_hub, s, tmp_path, workers=4)[2] == "success"
    [limited] = [at for at, _, status in arrived if status == 403]
    during = [what for at, what, _ in arrived if limited + 0.5 < at < limited + 1.8]
    assert during == [], during  # nobody asked while GitHub said to wait
    assert any(at >= limited + 1.8 for at, _, _ in arrived)  # and the run went on after it
