"""Every PR on one head, decided: the orchestrator the Action and `scan` share.

A face reads its inputs and the event, builds `PullOptions` and the PRs, calls `decide_pulls`
once and posts what it returns, in order. Everything that changes what is posted is here or
in the engine: whether the PR needs a claim (the agent rule), whether its base is protected,
the owner's policy from that base, the claims found, each claim decided by `pipeline.run`
(with the acceptance rule), the reports, and which PR's checks the commit ends with
(`gate/engine/bases.py` `posting_order`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from gate.claim.agents import AgentRule
from gate.claim.errors import CouldNotDecide, GateError, InvalidInput
from gate.claim.github_facts import PullRequestRef
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import Policy
from gate.claim.policy_parse import parse_policy_text
from gate.engine.bases import (
    PostCandidate,
    external_id,
    posting_order,
    protected_bases,
    refuse_base,
)
from gate.engine.results import SEVERITY
from gate.evidence.github.api import CheckRunForbidden, GitHubApi
from gate.evidence.github.claims import ClaimSearch, FoundClaim, find_claims, load_found
from gate.evidence.github.deployments import deployed_urls
from gate.evidence.github.gathering import (
    CiSources,
    PullEvidence,
    PullFacts,
    changed_paths,
    pull_facts,
)
from gate.evidence.github.history import read_history
from gate.evidence.github.reviews import ReviewAcceptances
from gate.evidence.github.subject import pull_subject, rereader
from gate.evidence.interface import Collector
from gate.evidence.probe.collect import Probes
from gate.evidence.probe.context import ProbeContext
from gate.evidence.probe.observe import ProbeIO
from gate.pipeline import run
from gate.pipeline_pull_report import DecidedClaim, Judged, Shown, report_claim, unreadable_claim
from gate.report.check_run import CheckRunReport, failure_report, unverified_without_claim_report
from gate.report.combined import combined_report


@dataclass(frozen=True)
class PullOptions:
    """What deciding a PR needs of the face: the owner's configuration and the job's place."""

    shown: Shown
    claim_path: str
    policy: str  # inline policy text, a path on the base branch, or "" (the built-in one)
    agents: AgentRule
    require_always: bool  # `require-claim: always`: every PR needs a claim
    protected_bases: tuple[str, ...]
    trusted_verifiers: tuple[str, ...]
    artifact_names: tuple[str, ...]
    junit: tuple[str, ...]
    workspace: Path
    workflow_path: str | None
    own_run_id: int | None
    app_id: int | None
    #: `base-code-artifact-name`: the head's tests over the base's code (fail-to-pass)
    base_code_names: tuple[str, ...] = ()


def action_default_policy() -> Policy:
    """Without a policy input: a CI test run is required and may count for a day (it is
    bound to its commit); short ages belong to live checks."""
    return Policy(id="claim-gate-action-default", requires=(CheckType.TEST_RUN,),
                  source="built-in (action)")


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


@dataclass(frozen=True)
class PullDecision:
    """What one PR's decision posts: its checks, its decided claims, and any failure."""

    reports: list[CheckRunReport]
    decided: list[DecidedClaim]
    not_required: bool = False
    error: GateError | None = None
    base_ref: str = ""
    protected: bool = True

    def candidate(self) -> PostCandidate:
        """What choosing the posted check reads; an accepted claim stands as verified, as its
        check does."""
        if self.error is not None:
            return PostCandidate(self.base_ref, self.protected, True, 9)
        if self.not_required:
            return PostCandidate(self.base_ref, self.protected, False, -1)
        states = [VerdictState.VERIFIED if d.accepted else d.verdict.state
                  for d in self.decided if d.verdict is not None]
        if not self.decided or any(d.verdict is None for d in self.decided):
            states.append(VerdictState.UNVERIFIED)
        return PostCandidate(self.base_ref, self.protected, True,
                             max(SEVERITY[s] for s in states))


@dataclass(frozen=True)
class PostPlan:
    """Every PR's decision, in posting order: `aside` first (they lower nothing), then
    `chosen`, whose checks the commit ends with and which decide the step."""

    aside: tuple[PullDecision, ...]
    chosen: tuple[PullDecision, ...]

    @property
    def in_order(self) -> tuple[PullDecision, ...]:
        return self.aside + self.chosen


def decide_pulls(
    api: GitHubApi, pulls: Sequence[PullRequestRef], options: PullOptions,
    clock: Callable[[], datetime], probe_io: ProbeIO | None,
    before: Callable[[PullRequestRef], str | None] = lambda pull: None,
) -> PostPlan:
    """Each PR decided on its own; the engine's `posting_order` chooses which stand."""
    judged = [decide_pull(api, pull, options, clock, probe_io, before(pull)) for pull in pulls]
    order = posting_order([part.candidate() for part in judged])
    return PostPlan(tuple(p for i, p in enumerate(judged) if i not in order),
                    tuple(judged[i] for i in order))


def claim_required(options: PullOptions, pull: PullRequestRef, api: GitHubApi) -> bool:
    """`agents`: by account id, app, login or branch (gate/claim/agents.py)."""
    return options.require_always or options.agents.gated_because(
        pull, lambda: api.pull_app(pull.number)) is not None


def _not_required(pull: PullRequestRef, shown: Shown) -> PullDecision:
    report = replace(
        unverified_without_claim_report(
            name=shown.check_name, head_sha=pull.head_sha, mode=shown.mode,
            reason="no claim required", details_url=shown.details_url),
        conclusion="neutral",
        title="no claim required: the PR's author and branch are not an agent's",
    )
    return PullDecision([report], [], not_required=True)


def decide_pull(
    api: GitHubApi, pull: PullRequestRef, options: PullOptions,
    clock: Callable[[], datetime], probe_io: ProbeIO | None, before: str | None = None,
) -> PullDecision:
    """One PR: not required, into an unprotected base, no claim, or each claim decided."""
    shown = options.shown
    refused = refuse_base(pull.base_ref,
                          protected_bases(options.protected_bases, pull.default_branch))
    try:
        if not claim_required(options, pull, api):
            part = _not_required(pull, shown)
        elif refused:
            part = PullDecision([unverified_without_claim_report(
                name=shown.check_name, head_sha=pull.head_sha, mode=shown.mode,
                reason=refused, details_url=shown.details_url)], [])
        else:
            part = _decide_claims(api, pull, options, clock, probe_io, before)
    except CheckRunForbidden:
        raise
    except (InvalidInput, CouldNotDecide) as exc:
        part = PullDecision([failure_report(
            name=shown.check_name, head_sha=pull.head_sha, reason=str(exc), mode=shown.mode,
            details_url=shown.details_url)], [], error=exc)
    decided_for = external_id(pull.number, pull.base_ref)
    return replace(part, reports=[replace(r, external_id=decided_for) for r in part.reports],
                   base_ref=pull.base_ref, protected=refused is None)


def _no_claim(pull: PullRequestRef, options: PullOptions, search: ClaimSearch) -> PullDecision:
    shown = options.shown
    return PullDecision([unverified_without_claim_report(
        name=shown.check_name, head_sha=pull.head_sha, mode=shown.mode,
        reason=f"no completion claim for this PR: this PR adds or modifies no"
        f" {options.claim_path} and its body has no ```completion-claim block"
        + "".join(f"; {note}" for note in search.considered), details_url=shown.details_url,
    )], [])


def _decide_claims(
    api: GitHubApi, pull: PullRequestRef, options: PullOptions,
    clock: Callable[[], datetime], probe_io: ProbeIO | None, before: str | None = None,
) -> PullDecision:
    """A PR into a protected base: the policy from that base, each claim file decided."""
    shown = options.shown
    policy = load_action_policy(api, options.policy, pull.base_ref).trusting(
        options.trusted_verifiers)
    changed = changed_paths(api, pull)
    search = find_claims(api, options.claim_path, pull.head_sha, pull.body, pull.number,
                         changed)
    if not search.found:
        return _no_claim(pull, options, search)
    changed = replace(changed, claim_files=tuple(f.repo_path for f in search.found
                                                 if f.repo_path))
    facts = pull_facts(api, pull, policy.trust, shown.check_name, changed)
    judged = [_judge_claim(api, claim_file, policy, options, facts, clock, search, probe_io)
              for claim_file in search.found]
    # Information for the reviewer, read only once every claim is decided (its calls and
    # their waits cannot age the evidence) and never given to `run`.
    prior = read_history(api, pull, check_name=shown.check_name, app_id=options.app_id,
                         decided_for=external_id(pull.number, pull.base_ref), before=before)
    decided = [j if isinstance(j, DecidedClaim) else
               report_claim(j, api.repository, facts, shown, search, prior) for j in judged]
    reports = [d.report for d in decided]
    if len(decided) > 1:  # the configured name, always, with the worst verdict (posted last)
        reports.append(combined_report(
            name=shown.check_name, head_sha=pull.head_sha, mode=shown.mode,
            details_url=shown.details_url, files=[
                (d.found.label, d.verdict.state if d.verdict else VerdictState.UNVERIFIED,
                 d.verdict.reason if d.verdict else d.report.text) for d in decided],
            claims=search.considered))
    return PullDecision(reports, decided)


def _judge_claim(
    api: GitHubApi, found: FoundClaim, policy: Policy, options: PullOptions, facts: PullFacts,
    clock: Callable[[], datetime], search: ClaimSearch, probe_io: ProbeIO | None,
) -> DecidedClaim | Judged:
    """Collect and decide one claim file (an unreadable one is reported at once)."""
    head_sha = facts.pull.head_sha
    try:
        loaded = load_found(found)
    except InvalidInput as exc:
        return unreadable_claim(found, exc, head_sha, options.shown, search)
    subject = pull_subject(api.repository, facts.pull, found.data, options.workflow_path)
    collectors: list[Collector] = [PullEvidence(api, facts, CiSources(
        options.artifact_names, options.junit, options.workspace, options.workflow_path,
        own_run_id=options.own_run_id, base_code_names=options.base_code_names), subject)]
    if probe_io is not None and policy.probes is not None:
        collectors.append(Probes(ProbeContext(
            head_sha=head_sha, environment_urls=deployed_urls(
                facts.deployments, facts.trust.deployment_creators)), probe_io))
    acceptances = ReviewAcceptances(api, facts.pull, options.agents)
    return Judged(found, run(loaded, policy, collectors, clock, subject,
                             rereader(api, subject), acceptances=acceptances))
