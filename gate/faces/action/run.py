"""One run of the action on one PR: collect → decide → report, with GitHub injected.

The PR, its claim and the policy are read through the API (the policy from the base
branch, the claim at the head SHA); evidence comes from CI artifacts, workspace JUnit files
and deployment statuses, judged by who could have shaped it (`gathering`); each claim file
gets its own check run; the worst verdict sets the step's outputs and exit code.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path

from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.github_facts import PullRequestRef
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import Policy
from gate.claim.policy_parse import parse_policy_text
from gate.claim.trust_policy import RemovedTests
from gate.engine.removed_tests import removal_lines
from gate.engine.results import Verdict
from gate.evidence.github.api import CheckRunForbidden, GitHubApi
from gate.evidence.github.claims import FoundClaim, find_claims, load_found
from gate.evidence.github.deployments import deployed_urls
from gate.evidence.github.event import Trigger
from gate.evidence.github.gathering import CiSources, PullEvidence, PullFacts, pull_facts
from gate.evidence.interface import Collector
from gate.evidence.probe.collect import Probes
from gate.evidence.probe.observe import ProbeContext, ProbeIO
from gate.faces.action.inputs import ActionInputs, RunnerContext
from gate.faces.action.runner_files import append_summary, workflow_command, write_outputs
from gate.pipeline import EXIT_FOR_STATE, exit_code_for, run
from gate.report.check_run import (
    Annotation,
    CheckRunReport,
    Mode,
    build_check_run,
    failure_report,
    unverified_without_claim_report,
)
from gate.report.record import completed_record
from gate.report.renderers import RenderInput, render
from gate.report.verification import verification_summary

_SEVERITY = {VerdictState.VERIFIED: 0, VerdictState.UNVERIFIED: 1, VerdictState.REFUTED: 2}


def action_default_policy() -> Policy:
    """Without a policy input: a CI test run is required and may count for a day (it is
    bound to its commit); short ages belong to live checks."""
    return Policy(id="claim-gate-action-default", requires=(CheckType.TEST_RUN,),
                  source="built-in (action)")


@dataclass(frozen=True)
class GateOutcome:
    exit_code: int
    verdict: str
    unmet_count: int
    claim_json: Path | None
    posted: tuple[int, ...] = ()


def _is_inline(policy: str) -> bool:
    return "\n" in policy or policy.lstrip().startswith("{") or policy.startswith("id:")


def load_action_policy(api: GitHubApi, value: str, base_ref: str) -> Policy:
    """The owner's policy: inline in the workflow, or a file on the PR's base branch."""
    if not value:
        return action_default_policy()
    if _is_inline(value):
        return parse_policy_text(value, "the action's `policy` input")
    data = api.file_at(value, base_ref)
    if data is None:
        raise InvalidInput(
            f"{value}@{base_ref}", None, "the policy file does not exist on the base branch",
            "commit it to the base branch; a policy is never read from the PR",
        )
    return parse_policy_text(data.decode("utf-8", errors="replace"), f"{value}@{base_ref}")


def claim_required(inputs: ActionInputs, pull: PullRequestRef) -> bool:
    if inputs.require_claim == "always":
        return True
    return any(fnmatchcase(pull.author, g) for g in inputs.agent_authors) or any(
        fnmatchcase(pull.head_ref, g) for g in inputs.agent_branches
    )


def resolve_pull(api: GitHubApi, trigger: Trigger, inputs: ActionInputs) -> PullRequestRef:
    if trigger.pull is not None:
        return trigger.pull
    number = trigger.pull_number or inputs.pr
    if number is None and trigger.head_sha is not None:
        numbers = api.pulls_for_commit(trigger.head_sha)
        if not numbers:
            raise InvalidInput(
                "event", None, f"no open pull request has head commit {trigger.head_sha[:12]}",
            )
        number = numbers[0]
    if number is None:
        raise InvalidInput("event", None, "the event names no pull request")
    pull = api.pull(number)
    if trigger.head_sha is not None and pull.head_sha != trigger.head_sha:
        raise CouldNotDecide(
            f"PR #{number} has moved on to {pull.head_sha[:12]}; this run was for"
            f" {trigger.head_sha[:12]}. The newer head gets its own check."
        )
    return pull


@dataclass(frozen=True)
class _Decided:
    found: FoundClaim
    report: CheckRunReport
    verdict: Verdict | None
    record_json: str | None
    summary: str


def post_check_run(api: GitHubApi, report: CheckRunReport, now: datetime) -> int:
    batches = report.annotation_batches()
    payload = {
        "name": report.name,
        "head_sha": report.head_sha,
        "status": "completed",
        "conclusion": report.conclusion,
        "completed_at": now.isoformat().replace("+00:00", "Z"),
        "output": report.output(batches[0]),
        **({"details_url": report.details_url} if report.details_url else {}),
    }
    posted = api.create_check_run(payload)
    for batch in batches[1:]:
        api.update_check_run(posted.id, {"output": report.output(batch)})
    return posted.id


def _fallback(report: CheckRunReport, summary_file: Path | None) -> list[str]:
    """A token that may not create check runs (a fork's pull_request): annotate the job."""
    lines = [workflow_command("error" if report.conclusion != "success" else "notice",
                              f"{report.title}", title=report.name)]
    lines += [
        workflow_command("error" if a.level == "failure" else "warning", a.message,
                         file=a.path, line=a.line, title=a.title)
        for a in report.annotations if a.path
    ]
    append_summary(summary_file, report.summary + (
        "\n> This token may not create check runs (a pull request from a fork). Run"
        " claim-gate in a separate `workflow_run` workflow so it can post the check; see the"
        " fork set-up (docs/forks.md).\n"
    ))
    return lines


def run_gate(
    *,
    api: GitHubApi,
    inputs: ActionInputs,
    runner: RunnerContext,
    trigger: Trigger,
    clock: Callable[[], datetime],
    emit: Callable[[str], None],
    probe_io: ProbeIO | None = None,
) -> GateOutcome:
    """`probe_io`: how the policy's live probes reach the world (None: no probes run)."""
    pull = resolve_pull(api, trigger, inputs)
    head_sha = pull.head_sha
    details_url = runner.details_url
    try:
        if not claim_required(inputs, pull):
            report = replace(
                unverified_without_claim_report(
                    name=inputs.check_name, head_sha=head_sha, mode=inputs.mode,
                    reason="no claim required", details_url=details_url),
                conclusion="neutral",
                title="no claim required: the PR's author and branch are not an agent's",
            )
            return _finish(api, [report], [], runner, clock, emit, inputs, not_required=True)
        policy = load_action_policy(api, inputs.policy, pull.base_ref).trusting(
            inputs.trusted_verifiers
        )
        found = find_claims(api, inputs.claim_path, head_sha, pull.body, pull.number)
        if not found:
            report = unverified_without_claim_report(
                name=inputs.check_name, head_sha=head_sha, mode=inputs.mode,
                reason=f"no completion claim: no {inputs.claim_path} at {head_sha[:12]} and no"
                " ```completion-claim block in the PR body", details_url=details_url,
            )
            return _finish(api, [report], [], runner, clock, emit, inputs)
        facts = pull_facts(api, pull, policy.trust,
                           inputs.check_name)
        decided = []
        for claim_file in found:
            decided.append(_decide_one(api, claim_file, policy, inputs, runner, facts,
                                       clock, details_url, len(found) > 1, probe_io))
        return _finish(api, [d.report for d in decided], decided, runner, clock, emit, inputs)
    except CheckRunForbidden:
        raise
    except (InvalidInput, CouldNotDecide) as exc:
        report = failure_report(name=inputs.check_name, head_sha=head_sha, reason=str(exc),
                                mode=inputs.mode, details_url=details_url)
        outcome = _finish(api, [report], [], runner, clock, emit, inputs)
        code = exit_code_for(exc)
        return replace(outcome, exit_code=0 if inputs.mode is Mode.OBSERVE else int(code),
                       verdict="could-not-decide")


def _decide_one(
    api: GitHubApi,
    found: FoundClaim,
    policy: Policy,
    inputs: ActionInputs,
    runner: RunnerContext,
    facts: PullFacts,
    clock: Callable[[], datetime],
    details_url: str | None,
    several: bool,
    probe_io: ProbeIO | None,
) -> _Decided:
    head_sha = facts.pull.head_sha
    name = f"{inputs.check_name} ({found.repo_path or 'PR body'})" if several else inputs.check_name
    try:
        loaded = load_found(found)
    except InvalidInput as exc:
        report = unverified_without_claim_report(
            name=name, head_sha=head_sha, mode=inputs.mode,
            reason=f"the completion claim cannot be read: {exc}", details_url=details_url,
        )
        if found.repo_path:
            line = int(exc.place.split(":")[0]) if exc.place and exc.place[0].isdigit() else 1
            report = replace(report, annotations=(Annotation(
                path=found.repo_path, line=line, level="failure",
                title="invalid completion claim", message=report.text),))
        return _Decided(found, report, None, None, report.summary)
    collectors: list[Collector] = [PullEvidence(api, facts, CiSources(
        inputs.artifact_names, inputs.junit, runner.workspace, runner.workflow_path))]
    if probe_io is not None and policy.probes is not None:
        collectors.append(Probes(ProbeContext(
            head_sha=head_sha, environment_urls=deployed_urls(facts.deployments)), probe_io))
    decision = run(loaded, policy, collectors, clock)
    verdict, ci = decision.verdict, decision.observed
    if ci.pull is None or ci.pull.arrival is None:
        raise CouldNotDecide("GitHub's collector recorded no arrival for the head")
    record = completed_record(loaded.document.raw, verdict)
    record["x-claim-gate-notes"] = list(ci.notes)
    record["x-verification"] = verification_summary(
        repository=api.repository, pull=facts.pull, verdict=verdict, claim_label=found.label,
        claim_bytes=found.data, inputs=ci.inputs,
        arrival=ci.pull.arrival, comparisons=ci.test_sets)
    removed = removal_lines(ci.test_sets)
    test_annotations = [
        Annotation(path=t.file, line=t.line or 1, level="failure",
                   title=f"{t.outcome.label}: {t.identity}", message=t.message or t.identity)
        for t in ci.failing if t.file
    ] + [
        Annotation(path=found.repo_path or ".claim.json", line=1,
                   level="warning" if facts.trust.removed_tests is RemovedTests.WARN
                   else "failure", title="tests removed or skipped", message=line)
        for line in removed
    ]
    report = build_check_run(
        name=name, head_sha=head_sha, verdict=verdict, loaded=loaded,
        claim_repo_path=found.repo_path or ".claim.json", record=record, mode=inputs.mode,
        links=ci.links, extra_annotations=test_annotations, details_url=details_url,
        sections=[("Tests removed or skipped on the head", removed), ("Not counted", ci.notes)],
    )
    summary = render("markdown", RenderInput(loaded, verdict, label=found.label, links=ci.links))
    if removed:
        summary += "\n### Tests removed or skipped on the head\n\n" + "\n".join(
            f"- {line}" for line in removed) + "\n"
    if ci.notes:
        summary += "\n### Not counted\n\n" + "\n".join(f"- {n}" for n in ci.notes) + "\n"
    return _Decided(found, report, verdict, json.dumps(record, indent=2), summary)


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
    api: GitHubApi,
    reports: Sequence[CheckRunReport],
    decided: Sequence[_Decided],
    runner: RunnerContext,
    clock: Callable[[], datetime],
    emit: Callable[[str], None],
    inputs: ActionInputs,
    not_required: bool = False,
) -> GateOutcome:
    """Post the checks, write the files and outputs; `not_required`: the PR is outside the
    agent globs (a neutral check, exit 0)."""
    posted: list[int] = []
    for report in reports:
        try:
            posted.append(post_check_run(api, report, clock()))
        except CheckRunForbidden:
            for line in _fallback(report, runner.summary_file):
                emit(line)
    states = [d.verdict.state for d in decided if d.verdict is not None]
    if not decided or any(d.verdict is None for d in decided):
        states.append(VerdictState.UNVERIFIED)  # no claim, or one that cannot be read
    worst = max(states, key=_SEVERITY.__getitem__)
    verdict_name = "not-required" if not_required else str(worst)
    claim_json = None
    records = [d.record_json for d in decided if d.record_json]
    if records:
        claim_json = runner.workspace / ".claim-gate" / "completed-claim.json"
        try:
            claim_json.parent.mkdir(parents=True, exist_ok=True)
            claim_json.write_text(records[0] if len(records) == 1 else
                                  "[" + ",\n".join(records) + "]\n", encoding="utf-8")
        except OSError as exc:
            raise CouldNotDecide(f"{claim_json}: cannot write the completed claim: {exc}") from None
    for d in decided:
        append_summary(runner.summary_file, d.summary + record_details(d.record_json))
    if not decided:
        for report in reports:
            append_summary(runner.summary_file, report.summary)
    unmet = sum(len(d.verdict.unmet) for d in decided if d.verdict is not None)
    write_outputs(runner.output_file, {
        "verdict": verdict_name,
        "unmet-count": str(unmet),
        "claim-json": str(claim_json) if claim_json else "",
    })
    blocking = inputs.mode is Mode.ENFORCE and not not_required
    code = int(EXIT_FOR_STATE[worst]) if blocking else 0
    return GateOutcome(code, verdict_name, unmet, claim_json, tuple(posted))
