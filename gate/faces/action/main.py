"""The GitHub Action's entry point: INPUT_* and the runner's variables in, an exit code out.

Thin on purpose: read the inputs and the event, build the API client, call `run_gate`.
A gate that crashes must still leave a definite, blocking check run with the reason, so
every failure after the head commit is known posts one before the step exits non-zero.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import TextIO

from gate.claim.errors import CouldNotDecide, GateError
from gate.claim.jsondoc import decode_utf8, parse_json, read_capped
from gate.evidence.github.api import GitHubApi, RetryPolicy, connect
from gate.evidence.github.event import Trigger, parse_event
from gate.evidence.github.reads import READ_WORKERS, read_pool
from gate.evidence.probe.observe import ProbeIO
from gate.faces.action.app_auth import installation_token
from gate.faces.action.inputs import ActionInputs, RunnerContext, read_inputs, read_runner
from gate.faces.action.key_reach import changed_refusal, default_branch, ref_refusal, refuse
from gate.faces.action.merge_group import run_merge_group
from gate.faces.action.run import post_check_run, run_gate
from gate.faces.action.runner_files import workflow_command
from gate.pipeline import ExitCode, exit_code_for
from gate.report.check_run import Mode, failure_report

MAX_EVENT_BYTES = 25 << 20


def main(
    env: Mapping[str, str] | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    out: TextIO | None = None,
    retry: RetryPolicy | None = None,
    probe_io: ProbeIO | None = None,
    workers: int = READ_WORKERS,
) -> int:
    """`workers`: GitHub reads in flight at once (1: one after the other)."""
    env = os.environ if env is None else env
    out = out or sys.stdout

    def emit(line: str) -> None:
        out.write(line + "\n")

    try:
        runner = read_runner(env)
        inputs = read_inputs(env)
        text = decode_utf8(read_capped(runner.event_path, MAX_EVENT_BYTES, "event payload"),
                           str(runner.event_path), "event payload")
        payload = parse_json(text, str(runner.event_path), "event payload")
        trigger = parse_event(runner.event_name, payload, str(runner.event_path), inputs.pr)
    except GateError as exc:
        emit(workflow_command("error", f"claim-gate: {exc}", title="claim-gate"))
        return int(ExitCode.INVALID_INPUT)
    if trigger.ignore_reason:
        emit(workflow_command("notice", f"claim-gate: {trigger.ignore_reason}"))
        return 0
    retry = retry or RetryPolicy()
    token = inputs.token
    if inputs.app_id:
        refusal = ref_refusal(runner, default_branch(payload))
        if refusal is not None:
            refuse(inputs, runner, trigger, refusal, clock, emit, retry)
            return int(ExitCode.INVALID_INPUT)
        try:
            token = installation_token(inputs.api_url, inputs.app_id, inputs.app_private_key,
                                       trigger.repository, retry)
        except GateError as exc:
            emit(workflow_command("error", f"claim-gate: {exc}", title="claim-gate"))
            return int(exit_code_for(exc))
    with read_pool(workers) as reads:  # the run's own pool, shut down with it
        api = GitHubApi(github=connect(inputs.api_url, token, retry),
                        repository=trigger.repository, reads=reads)
        try:
            return _decide(api, inputs, runner, trigger, clock, emit, retry, probe_io)
        finally:
            api.close_readers()


def _decide(
    api: GitHubApi, inputs: ActionInputs, runner: RunnerContext, trigger: Trigger,
    clock: Callable[[], datetime], emit: Callable[[str], None], retry: RetryPolicy,
    probe_io: ProbeIO | None,
) -> int:
    """The event known and the client built: refuse, decide the merge group, or decide."""
    if inputs.app_id and runner.workflow_path is not None:
        try:
            refusal = changed_refusal(api, trigger, runner.workflow_path)
        except GateError as exc:
            refusal = f"the PR's changed files could not be read ({exc})"
        if refusal is not None:
            refuse(inputs, runner, trigger, refusal, clock, emit, retry)
            return int(ExitCode.INVALID_INPUT)
    if trigger.merge_group_sha is not None:
        return _merge_group(api, trigger, inputs, clock, emit)
    head_sha = trigger.head_sha
    try:
        outcome = run_gate(api=api, inputs=inputs, runner=runner, trigger=trigger,
                           clock=clock, emit=emit, probe_io=probe_io or ProbeIO.system(clock))
    except GateError as exc:
        code = exit_code_for(exc)
        if head_sha is None:
            emit(workflow_command("error", f"claim-gate could not decide: {exc}"))
            return int(code)
        return _post_failure(api, inputs.check_name, head_sha, str(exc), inputs.mode, clock,
                             emit, code)
    except Exception as exc:  # a crash still leaves a blocking check run
        reason = f"internal error {type(exc).__name__}: {exc} (a bug in claim-gate; please report)"
        if head_sha is None:
            emit(workflow_command("error", f"claim-gate could not decide: {reason}"))
            return int(ExitCode.COULD_NOT_DECIDE)
        return _post_failure(api, inputs.check_name, head_sha, reason, inputs.mode, clock, emit,
                             ExitCode.COULD_NOT_DECIDE)
    emit(f"claim-gate: {outcome.verdict} ({outcome.unmet_count} unmet)")
    return outcome.exit_code


def _merge_group(
    api: GitHubApi, trigger: Trigger, inputs: ActionInputs, clock: Callable[[], datetime],
    emit: Callable[[str], None],
) -> int:
    try:
        decision = run_merge_group(api, trigger, inputs.check_name, inputs.mode, clock)
    except GateError as exc:
        emit(workflow_command("error", f"claim-gate could not decide the merge group: {exc}"))
        return 0 if inputs.mode is Mode.OBSERVE else int(ExitCode.COULD_NOT_DECIDE)
    emit(f"claim-gate: {decision.title}")
    if decision.passed or inputs.mode is Mode.OBSERVE:
        return 0
    emit(workflow_command("error", decision.summary.strip(), title="claim-gate"))
    return int(ExitCode.UNVERIFIED)


def _post_failure(
    api: GitHubApi,
    name: str,
    head_sha: str,
    reason: str,
    mode: Mode,
    clock: Callable[[], datetime],
    emit: Callable[[str], None],
    code: ExitCode,
) -> int:
    emit(workflow_command("error", f"claim-gate could not decide: {reason}"))
    try:
        post_check_run(api, failure_report(name=name, head_sha=head_sha, reason=reason, mode=mode),
              clock())
    except (GateError, CouldNotDecide) as exc:
        emit(workflow_command("error", f"claim-gate could not post its check run either: {exc}"))
    return 0 if mode is Mode.OBSERVE else int(code)


if __name__ == "__main__":
    sys.exit(main())
