"""One run of the action: the PRs the event names, decided by the pipeline, then posted.

The face reads its inputs, the runner's context and the event, builds the pipeline's
`PullOptions`, calls `decide_pulls` once (gate/pipeline_pull.py: every rule that changes what is
posted lives there or in the engine) and posts the checks in the order it returns; the chosen
PRs' verdicts set the step's outputs and exit code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from gate.claim.agents import AgentRule
from gate.claim.decimal_text import decimal
from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.github_facts import PullRequestRef
from gate.claim.model import VerdictState
from gate.engine.results import worst
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.event import Trigger
from gate.evidence.probe.observe import ProbeIO
from gate.faces.action.attestation_file import DecidedFile
from gate.faces.action.inputs import ActionInputs, RunnerContext
from gate.faces.action.posting import ApiPoster, Poster, Published
from gate.faces.action.posting import post_check_run as post_check_run  # its old home
from gate.pipeline import EXIT_FOR_STATE, exit_code_for
from gate.pipeline_pull import PullOptions, decide_pulls
from gate.pipeline_pull_report import DecidedClaim, Shown
from gate.report.check_run import CheckRunReport, Mode


@dataclass(frozen=True)
class GateOutcome:
    exit_code: int
    verdict: str
    unmet_count: int
    claim_json: Path | None
    posted: tuple[int, ...] = ()
    verdict_exit: int = 0  # the verdict's exit code whatever the mode (`claim-gate scan`)


def pull_options(inputs: ActionInputs, runner: RunnerContext) -> PullOptions:
    """The pipeline's options from the action's inputs and the runner's context."""
    own_run = decimal(runner.run_id)
    return PullOptions(
        Shown(inputs.check_name, inputs.mode, runner.details_url), inputs.claim_path,
        inputs.policy,
        AgentRule.parse(inputs.agent_authors, inputs.agent_presets, inputs.agent_branches),
        inputs.require_claim == "always", inputs.protected_bases, inputs.trusted_verifiers,
        inputs.artifact_names, inputs.junit, runner.workspace, runner.workflow_path, own_run,
        int(inputs.app_id) if inputs.app_id else None, inputs.base_code_artifact_names)


def resolve_pulls(api: GitHubApi, trigger: Trigger, inputs: ActionInputs) -> list[PullRequestRef]:
    """Every PR the event names (a workflow_run can name several with one head), read
    through the API: its base and head as they are now, never as an old payload said."""
    numbers = list(trigger.pull_numbers) or (
        [trigger.pull.number] if trigger.pull is not None else []) or (
        [trigger.pull_number] if trigger.pull_number is not None else []) or (
        [inputs.pr] if inputs.pr is not None else [])
    if not numbers and trigger.head_sha is not None:
        numbers = api.pulls_for_commit(trigger.head_sha)
        if not numbers:
            raise InvalidInput(
                "event", None, f"no open pull request has head commit {trigger.head_sha[:12]}",
            )
    if not numbers:
        raise InvalidInput("event", None, "the event names no pull request")
    if trigger.pull_read_now and trigger.pull is not None:
        pulls = [trigger.pull]
    else:
        pulls = [api.pull(number) for number in numbers]
    if trigger.head_sha is None:
        return pulls
    current = [pull for pull in pulls if pull.head_sha == trigger.head_sha]
    if not current:
        raise CouldNotDecide(
            f"PR #{pulls[0].number} has moved on to {pulls[0].head_sha[:12]}; this run was for"
            f" {trigger.head_sha[:12]}. The newer head gets its own check."
        )
    return current


def run_gate(
    *,
    api: GitHubApi,
    inputs: ActionInputs,
    runner: RunnerContext,
    trigger: Trigger,
    clock: Callable[[], datetime],
    emit: Callable[[str], None],
    probe_io: ProbeIO | None = None,
    poster: Poster | None = None,
) -> GateOutcome:
    """`probe_io`: how the policy's live probes reach the world (None: no probes run);
    `poster`: where the check runs and the step's files go (default: the Action's)."""
    poster = poster or ApiPoster(api, runner, emit)
    plan = decide_pulls(api, resolve_pulls(api, trigger, inputs), pull_options(inputs, runner),
                        clock, probe_io, lambda pull: _before(trigger, pull))
    chosen, parts = plan.chosen, plan.in_order
    reports = [r for part in parts for r in part.reports]
    decided = [d for part in chosen for d in part.decided]
    errors = [part.error for part in chosen if part.error is not None]
    loose = [r for part in parts for r in part.reports  # shown beside the decided claims
             if not part.decided or (len(part.decided) > 1 and r.name == inputs.check_name)]
    outcome = _finish(poster, reports, decided, clock, inputs,
                      not_required=all(part.not_required for part in chosen),
                      undecided=any(not p.decided and not p.not_required for p in chosen),
                      loose=loose)
    if errors:
        code = exit_code_for(errors[0])
        return replace(outcome, exit_code=0 if inputs.mode is Mode.OBSERVE else int(code),
                       verdict="could-not-decide", verdict_exit=int(code))
    return outcome


def _before(trigger: Trigger, pull: PullRequestRef) -> str | None:
    """The previous head, when the event says it (a `synchronize` of this PR's head)."""
    if trigger.pull is None or trigger.pull.number != pull.number:
        return None
    return trigger.before if trigger.head_sha == pull.head_sha else None


MAX_SUMMARY_RECORD_CHARS = 200_000


def record_details(record_json: str | None) -> str:
    """The completed claim, folded, for the job summary (which GitHub caps at 1 MiB)."""
    if not record_json:
        return ""
    if len(record_json) > MAX_SUMMARY_RECORD_CHARS:
        return ("\n_The completed claim is too large for the job summary; it is the"
                " `claim-json` output file._\n")
    fence = "````"  # longer than any ``` an agent could put in a string
    while fence in record_json:
        fence += "`"
    return (f"\n<details><summary>The completed claim (JSON)</summary>\n\n{fence}json\n"
            f"{record_json}\n{fence}\n\n</details>\n")


def _finish(
    poster: Poster,
    reports: Sequence[CheckRunReport],
    decided: Sequence[DecidedClaim],
    clock: Callable[[], datetime],
    inputs: ActionInputs,
    not_required: bool = False,
    undecided: bool = False,
    loose: Sequence[CheckRunReport] | None = None,
) -> GateOutcome:
    """Post the checks, then publish the records and the summary; `not_required`: the PR is
    outside the agent globs (a neutral check, exit 0); `undecided`: a PR whose claim was not
    decided (none, an unprotected base, a failure) makes the worst at least unverified."""
    posted = [i for i in (poster.post(report, clock()) for report in reports) if i is not None]
    loose = (reports if not decided else []) if loose is None else loose
    states = [d.verdict.state for d in decided if d.verdict is not None]
    if not decided or undecided or any(d.verdict is None for d in decided):
        states.append(VerdictState.UNVERIFIED)  # no claim, or one that cannot be read
    worst_state = worst(states)
    # A maintainer's acceptance passes the step; the verdict output stays the engine's.
    standing = [VerdictState.UNVERIFIED if d.verdict is None else
                VerdictState.VERIFIED if d.accepted else d.verdict.state for d in decided]
    if not decided or undecided:
        standing.append(VerdictState.UNVERIFIED)
    blocking_state = worst(standing)
    verdict_name = "not-required" if not_required else str(worst_state)
    summaries = [d.summary + record_details(d.record_json) for d in decided]
    summaries += [report.summary for report in loose]
    unmet = sum(len(d.verdict.unmet) for d in decided if d.verdict is not None)
    claim_json = poster.publish(Published(
        verdict_name, unmet, tuple(d.record_json for d in decided if d.record_json),
        tuple(summaries), reports[0].head_sha if reports else "",
        tuple(DecidedFile(d.found.label, d.found.data, d.verdict, d.record_json)
              for d in decided),
        timelines=tuple(d.timeline_svg for d in decided if d.timeline_svg),
        undecided=undecided or not decided))
    blocking = inputs.mode is Mode.ENFORCE and not not_required
    verdict_exit = 0 if not_required else int(EXIT_FOR_STATE[blocking_state])
    return GateOutcome(verdict_exit if blocking else 0, verdict_name, unmet, claim_json,
                       tuple(posted), verdict_exit)
