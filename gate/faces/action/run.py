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
from pathlib import Path

from gate.claim.errors import CouldNotDecide, GateError, InvalidInput
from gate.claim.github_facts import PullRequestRef
from gate.claim.history_facts import PriorHistory
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import Policy
from gate.claim.policy_parse import parse_policy_text
from gate.claim.trust_policy import RemovedTests
from gate.engine.bases import external_id, protected_bases, refuse_base
from gate.engine.removed_tests import removal_lines
from gate.engine.results import SEVERITY, Verdict, worst
from gate.evidence.github.api import CheckRunForbidden, GitHubApi
from gate.evidence.github.claims import ClaimSearch, FoundClaim, find_claims, load_found
from gate.evidence.github.deployments import deployed_urls
from gate.evidence.github.event import Trigger
from gate.evidence.github.gathering import (
    CiSources,
    PullEvidence,
    PullFacts,
    changed_paths,
    pull_facts,
)
from gate.evidence.github.history import read_history
from gate.evidence.github.subject import pull_subject, rereader
from gate.evidence.interface import Collector
from gate.evidence.probe.collect import Probes
from gate.evidence.probe.observe import ProbeContext, ProbeIO
from gate.faces.action.acceptance import review_override, with_override
from gate.faces.action.agents import AgentRule
from gate.faces.action.attestation_file import DecidedFile
from gate.faces.action.inputs import ActionInputs, RunnerContext
from gate.faces.action.posting import ApiPoster, Poster, Published
from gate.faces.action.posting import post_check_run as post_check_run  # its old home
from gate.pipeline import EXIT_FOR_STATE, Decision, exit_code_for, run
from gate.report.check_run import (
    Annotation,
    CheckRunReport,
    Mode,
    build_check_run,
    failure_report,
    unverified_without_claim_report,
)
from gate.report.combined import combined_report
from gate.report.history import HEADING, history_json, history_lines, history_markdown
from gate.report.record import completed_record
from gate.report.renderers import RenderInput, render
from gate.report.untrusted import prose
from gate.report.verification import verification_summary


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
    verdict_exit: int = 0  # the verdict's exit code whatever the mode (`claim-gate scan`)


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


def claim_required(inputs: ActionInputs, pull: PullRequestRef, api: GitHubApi) -> bool:
    """`agents`: by account id, app, login or branch (gate/faces/action/agents.py)."""
    if inputs.require_claim == "always":
        return True
    rule = AgentRule.parse(inputs.agent_authors, inputs.agent_presets, inputs.agent_branches)
    return rule.gated_because(pull, lambda: api.pull_app(pull.number)) is not None


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


@dataclass(frozen=True)
class _Decided:
    found: FoundClaim
    report: CheckRunReport
    verdict: Verdict | None
    record_json: str | None
    summary: str
    accepted: bool = False  # a maintainer accepted the verdict (it stays as decided)
    timeline_svg: str | None = None  # the time line picture (`timeline-svg` output)


@dataclass(frozen=True)
class _Part:
    """What one PR's decision posts: its checks, its decided claims, and any failure."""

    reports: list[CheckRunReport]
    decided: list[_Decided]
    not_required: bool = False
    error: GateError | None = None

    @property
    def rank(self) -> int:
        """Best first: the worst part's check is posted last, so it is the commit's latest."""
        if self.error is not None:
            return 9
        if self.not_required:
            return -1
        states = [d.verdict.state for d in self.decided if d.verdict is not None]
        if not self.decided or any(d.verdict is None for d in self.decided):
            states.append(VerdictState.UNVERIFIED)
        return max(SEVERITY[s] for s in states)


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
    `poster`: where the check runs and the step's files go (default: the Action's).
    Each PR the event names is decided on its own; the worst decides the step."""
    poster = poster or ApiPoster(api, runner, emit)
    pulls = resolve_pulls(api, trigger, inputs)
    parts = sorted((_judge_pull(api, pull, inputs, runner, clock, probe_io,
                                _before(trigger, pull)) for pull in pulls),
                   key=lambda part: part.rank)
    reports = [r for part in parts for r in part.reports]
    decided = [d for part in parts for d in part.decided]
    errors = [part.error for part in parts if part.error is not None]
    loose = [r for part in parts for r in part.reports  # shown beside the decided claims
             if not part.decided or (len(part.decided) > 1 and r.name == inputs.check_name)]
    outcome = _finish(poster, reports, decided, clock, inputs,
                      not_required=all(part.not_required for part in parts),
                      undecided=any(not p.decided and not p.not_required for p in parts),
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


def _judge_pull(
    api: GitHubApi, pull: PullRequestRef, inputs: ActionInputs, runner: RunnerContext,
    clock: Callable[[], datetime], probe_io: ProbeIO | None, before: str | None = None,
) -> _Part:
    """One PR: not required, into an unprotected base, no claim, or each claim decided."""
    head_sha, details_url = pull.head_sha, runner.details_url
    decided_for = external_id(pull.number, pull.base_ref)
    part = _Part([], [])
    try:
        if not claim_required(inputs, pull, api):
            report = replace(
                unverified_without_claim_report(
                    name=inputs.check_name, head_sha=head_sha, mode=inputs.mode,
                    reason="no claim required", details_url=details_url),
                conclusion="neutral",
                title="no claim required: the PR's author and branch are not an agent's",
            )
            part = _Part([report], [], not_required=True)
        elif refused := refuse_base(
                pull.base_ref, protected_bases(inputs.protected_bases, pull.default_branch)):
            part = _Part([unverified_without_claim_report(
                name=inputs.check_name, head_sha=head_sha, mode=inputs.mode,
                reason=refused, details_url=details_url)], [])
        else:
            part = _decide_pull(api, pull, inputs, runner, clock, probe_io, before)
    except CheckRunForbidden:
        raise
    except (InvalidInput, CouldNotDecide) as exc:
        part = _Part([failure_report(name=inputs.check_name, head_sha=head_sha, reason=str(exc),
                                     mode=inputs.mode, details_url=details_url)], [], error=exc)
    return replace(part, reports=[replace(r, external_id=decided_for) for r in part.reports])


def _decide_pull(
    api: GitHubApi, pull: PullRequestRef, inputs: ActionInputs, runner: RunnerContext,
    clock: Callable[[], datetime], probe_io: ProbeIO | None, before: str | None = None,
) -> _Part:
    """A PR into a protected base: the policy from that base, each claim file decided."""
    head_sha, details_url = pull.head_sha, runner.details_url
    policy = load_action_policy(api, inputs.policy, pull.base_ref).trusting(
        inputs.trusted_verifiers
    )
    changed = changed_paths(api, pull)
    search = find_claims(api, inputs.claim_path, head_sha, pull.body, pull.number, changed)
    if not search.found:
        return _Part([unverified_without_claim_report(
            name=inputs.check_name, head_sha=head_sha, mode=inputs.mode,
            reason=f"no completion claim for this PR: this PR adds or modifies no"
            f" {inputs.claim_path} and its body has no ```completion-claim block"
            + "".join(f"; {note}" for note in search.considered), details_url=details_url,
        )], [])
    changed = replace(changed, claim_files=tuple(f.repo_path for f in search.found
                                                 if f.repo_path))
    facts = pull_facts(api, pull, policy.trust, inputs.check_name, changed)
    judged = [_judge_claim(api, claim_file, policy, inputs, runner, facts, clock, details_url,
                           search, probe_io) for claim_file in search.found]
    # Information for the reviewer, read only once every claim is decided (its calls and
    # their waits cannot age the evidence) and never given to `run`.
    prior = read_history(api, pull, check_name=inputs.check_name,
                         app_id=int(inputs.app_id) if inputs.app_id else None,
                         decided_for=external_id(pull.number, pull.base_ref), before=before)
    decided = [j if isinstance(j, _Decided) else
               _report_claim(api, j, policy, inputs, facts, details_url, search, prior)
               for j in judged]
    reports = [d.report for d in decided]
    if len(decided) > 1:  # the configured name, always, with the worst verdict (posted last)
        reports.append(combined_report(
            name=inputs.check_name, head_sha=head_sha, mode=inputs.mode,
            details_url=details_url, files=[
                (d.found.label, d.verdict.state if d.verdict else VerdictState.UNVERIFIED,
                 d.verdict.reason if d.verdict else d.report.text) for d in decided]))
    return _Part(reports, decided)


@dataclass(frozen=True)
class _Judged:
    """One claim file decided, before its reports are built."""

    found: FoundClaim
    decision: Decision


def _check_name(found: FoundClaim, inputs: ActionInputs, search: ClaimSearch) -> str:
    several = len(search.found) > 1
    return f"{inputs.check_name} ({found.repo_path or 'PR body'})" if several \
        else inputs.check_name


def _judge_claim(
    api: GitHubApi,
    found: FoundClaim,
    policy: Policy,
    inputs: ActionInputs,
    runner: RunnerContext,
    facts: PullFacts,
    clock: Callable[[], datetime],
    details_url: str | None,
    search: ClaimSearch,
    probe_io: ProbeIO | None,
) -> _Decided | _Judged:
    """Collect and decide one claim file (an unreadable one is reported at once)."""
    head_sha = facts.pull.head_sha
    name = _check_name(found, inputs, search)
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
    own_run = int(runner.run_id) if runner.run_id and runner.run_id.isdigit() else None
    subject = pull_subject(api.repository, facts.pull, found.data, runner.workflow_path)
    collectors: list[Collector] = [PullEvidence(api, facts, CiSources(
        inputs.artifact_names, inputs.junit, runner.workspace, runner.workflow_path,
        own_run_id=own_run), subject)]
    if probe_io is not None and policy.probes is not None:
        collectors.append(Probes(ProbeContext(
            head_sha=head_sha, environment_urls=deployed_urls(
                facts.deployments, facts.trust.deployment_creators)), probe_io))
    return _Judged(found, run(loaded, policy, collectors, clock, subject,
                              rereader(api, subject)))


def _report_claim(
    api: GitHubApi,
    judged: _Judged,
    policy: Policy,
    inputs: ActionInputs,
    facts: PullFacts,
    details_url: str | None,
    search: ClaimSearch,
    prior: PriorHistory,
) -> _Decided:
    """The check run, record and summary of a decided claim, with the PR's history."""
    found, loaded = judged.found, judged.decision.loaded
    verdict, ci = judged.decision.verdict, judged.decision.observed
    head_sha = facts.pull.head_sha
    name = _check_name(found, inputs, search)
    if ci.pull is None or ci.pull.arrival is None:
        raise CouldNotDecide("GitHub's collector recorded no arrival for the head")
    record = completed_record(loaded.document.raw, verdict)
    kept = history_json(prior, head_sha, str(verdict.state), verdict.decided_at)
    history = history_lines(kept)
    record["x-claim-gate-notes"] = list(ci.notes)
    record["x-claim-gate-claims"] = list(search.considered)
    record["x-verification"] = verification_summary(
        repository=api.repository, pull=facts.pull, verdict=verdict, claim_label=found.label,
        claim_bytes=found.data, inputs=ci.inputs,
        arrival=ci.pull.arrival, comparisons=ci.test_sets) | {"history": kept}
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
        sections=[("Tests removed or skipped on the head", removed), ("Not counted", ci.notes),
                  (HEADING, history)],
    )
    shown = RenderInput(loaded, verdict, label=found.label, links=ci.links,
                        arrival=ci.pull.arrival)
    summary = _job_summary(render("markdown", shown), removed, ci.notes, search.considered,
                           history)
    accepted = review_override(api, facts.pull, verdict, policy, inputs.agent_authors)
    report, summary = with_override(accepted, report, record, summary, inputs.mode)
    return _Decided(found, report, verdict, json.dumps(record, indent=2), summary,
                    accepted.override is not None, render("svg", shown))


def _job_summary(summary: str, removed: Sequence[str], notes: Sequence[str],
                 considered: Sequence[str], history: list[str]) -> str:
    if removed:
        summary += "\n### Tests removed or skipped on the head\n\n" + "\n".join(
            f"- {prose(line)}" for line in removed) + "\n"
    if notes:
        summary += "\n### Not counted\n\n" + "\n".join(f"- {prose(n)}" for n in notes) + "\n"
    summary += "\n### Claims found\n\n" + "".join(f"- {prose(n)}\n" for n in considered)
    return summary + history_markdown(history)


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
    decided: Sequence[_Decided],
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
