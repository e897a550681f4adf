"""The App key's second line: post as the gate's App only from a workflow the PR cannot edit.

A check from the gate's own App is what the branch rule trusts, so the App key must only ever
run in a workflow file taken from the default branch (`workflow_run`, `pull_request_target`,
`schedule`, `workflow_dispatch` there). The first line is the set-up (the key in an environment
secret only the default branch may use: docs/trust-model.md). This catches a set-up that slipped:
a gate holding the key in a run whose workflow file came from the PR (`pull_request_review`,
`merge_group`, `push` to the agent's branch) or is one the PR changes refuses to post as the App.
It cannot stop a PR-controlled copy of the file that never runs the gate; only the set-up can.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from gate.claim.errors import GateError
from gate.evidence.github.api import GitHubApi, RetryPolicy, connect
from gate.evidence.github.event import Trigger
from gate.faces.action.inputs import ActionInputs, RunnerContext
from gate.faces.action.posting import post_check_run
from gate.faces.action.runner_files import workflow_command
from gate.report.check_run import failure_report

#: GitHub lists at most this many files of a PR: a list this long may be cut short.
MAX_LISTED_FILES = 3000
_FIX = ("run the gate with the App key only from a workflow_run, pull_request_target,"
        " schedule or workflow_dispatch workflow on the default branch, with the key in an"
        " environment secret only the default branch may use (docs/trust-model.md)")


def default_branch(payload: Any) -> str | None:
    """The repository's default branch as the runner's event payload (GitHub's) names it."""
    repo = payload.get("repository") if isinstance(payload, Mapping) else None
    value = repo.get("default_branch") if isinstance(repo, Mapping) else None
    return value if isinstance(value, str) and value else None


def ref_refusal(runner: RunnerContext, default: str | None) -> str | None:
    """Why this run's workflow file may be the PR's (None: it is the default branch's)."""
    if not runner.workflow_ref or runner.workflow_path is None:
        return ("the runner names no workflow file of this repository (GITHUB_WORKFLOW_REF"
                f" is {runner.workflow_ref or 'unset'}), so the gate cannot tell whether the PR"
                " wrote it")
    if default is None:
        return "the event payload names no default branch to check the workflow's ref against"
    ref = runner.workflow_ref.split("@", 1)[1] if "@" in runner.workflow_ref else ""
    if ref != f"refs/heads/{default}":
        return (f"this workflow ({runner.workflow_path}) runs from {ref or 'an unnamed ref'},"
                f" not from the default branch {default}: on this event GitHub takes the"
                " workflow file from code the PR controls")
    return None


def changed_refusal(api: GitHubApi, trigger: Trigger, workflow_path: str) -> str | None:
    """Why the PR may have written this workflow file: it changes it (or its list is cut)."""
    numbers = dict.fromkeys(trigger.pull_numbers + (
        (trigger.pull_number,) if trigger.pull_number is not None else ()))
    for number in numbers:
        files = api.changed_files(number)
        if len(files) >= MAX_LISTED_FILES:
            return (f"PR #{number} changes {len(files)} files or more (GitHub lists no more),"
                    f" so the gate cannot tell whether it changes {workflow_path}")
        touched = {name for f in files for name in (f.filename, f.previous_filename) if name}
        if workflow_path in touched:
            return (f"PR #{number} changes {workflow_path}, the workflow this gate runs in:"
                    " the PR would decide how its own check is posted")
    return None


def refuse(
    inputs: ActionInputs, runner: RunnerContext, trigger: Trigger, reason: str,
    clock: Callable[[], datetime], emit: Callable[[str], None], retry: RetryPolicy,
) -> None:
    """Say why on the job, and leave a blocking check with the plain token when there is one
    (it posts as GitHub Actions, never as the App: the App's required check stays missing)."""
    message = f"claim-gate will not post as its GitHub App: {reason}; {_FIX}"
    emit(workflow_command("error", message, title="claim-gate"))
    head = trigger.merge_group_sha or trigger.head_sha
    if not inputs.token or head is None:
        return
    api = GitHubApi(github=connect(inputs.api_url, inputs.token, retry),
                    repository=trigger.repository)
    report = failure_report(name=inputs.check_name, head_sha=head, reason=message,
                            mode=inputs.mode, details_url=runner.details_url)
    try:
        post_check_run(api, report, clock())
    except GateError as exc:
        emit(workflow_command("error", f"claim-gate could not post its check run either: {exc}"))
