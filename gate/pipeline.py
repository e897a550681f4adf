"""One verification, start to end: collect → decide → report, with the collaborators given.

The CLI and the pytest-style callers build a `VerifyOptions` and call `run_verify`; this is
where loading the inputs, the engine and the chosen reporter meet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, Protocol

from gate.claim.errors import GateError, InvalidInput, UsageError
from gate.claim.limits import DEFAULT_MAX_JUNIT_BYTES
from gate.claim.loader import DEFAULT_MAX_CLAIM_BYTES, LoadedClaim
from gate.claim.model import VerdictState
from gate.claim.policy import Policy, default_policy
from gate.claim.subject import Subject
from gate.engine.decide import decide
from gate.engine.override import NO_OVERRIDE, OverrideDecision, judge_override
from gate.engine.results import Verdict
from gate.evidence.git_claim import load_claim_at, written_by_change
from gate.evidence.interface import Collected, Collector
from gate.evidence.operator_records import OperatorRecords
from gate.evidence.probe.context import ProbeContext
from gate.report.renderers import FORMATS, RenderInput, render

if TYPE_CHECKING:
    from gate.claim.review_facts import Acceptances
    from gate.evidence.git_diff import DiffRange
    from gate.evidence.probe.observe import ProbeIO

# The collectors of JUnit files, live probes and the branch's change (with their parsers,
# lxml's and git's) are imported when a command asks for them: a claim verified from its own
# file and records needs none of them (issue 23, the command's start).

__all__ = [
    "FORMATS", "Decision", "ExitCode", "VerifyOptions", "gather", "run", "run_verify",
    "run_verify_command",
]


class ExitCode(IntEnum):
    VERIFIED = 0
    UNVERIFIED = 1
    REFUTED = 2
    INVALID_INPUT = 3
    COULD_NOT_DECIDE = 4


EXIT_FOR_STATE = {
    VerdictState.VERIFIED: ExitCode.VERIFIED,
    VerdictState.UNVERIFIED: ExitCode.UNVERIFIED,
    VerdictState.REFUTED: ExitCode.REFUTED,
}

def exit_code_for(error: GateError) -> ExitCode:
    """Bad input is the operator's to fix (3); anything else is a fault (4)."""
    if isinstance(error, InvalidInput | UsageError):
        return ExitCode.INVALID_INPUT
    return ExitCode.COULD_NOT_DECIDE




@dataclass(frozen=True)
class VerifyOptions:
    claim: Path
    evidence: tuple[Path, ...] = ()  # operator records, from outside the test job
    test_evidence: tuple[Path, ...] = ()  # the test job's hand-off: the plugin's test runs
    policy: Path | None = None
    trusted_verifiers: tuple[str, ...] = ()
    now: datetime | None = None
    format: str = "text"
    max_claim_bytes: int = DEFAULT_MAX_CLAIM_BYTES
    probe: bool = False  # run the policy's live probes (gate/evidence/probe)
    probe_context: ProbeContext = field(default_factory=ProbeContext)
    junit: tuple[str, ...] = ()  # paths or globs of JUnit XML files: one test run
    head_sha: str | None = None
    junit_max_bytes: int = DEFAULT_MAX_JUNIT_BYTES
    repo: Path | None = None  # the clone the claim is read from (default: the one holding it)
    diff_base: str | None = None  # judge the producers over `git diff BASE...HEAD`
    base_junit: tuple[str, ...] = ()  # the base branch's JUnit: removed/skipped tests
    base_code_junit: tuple[str, ...] = ()  # the head's tests over the base's code
    require_claim: bool = False  # no claim is unverified (no_claim), not invalid input
    test_exit_status: int | None = None  # the test job's exit status, beside its JUnit


@dataclass(frozen=True)
class NoClaimResult:
    """A required claim that is not there: unverified (`no_claim`), never a pass."""

    output: str
    exit_code: ExitCode = ExitCode.UNVERIFIED


def _where(options: VerifyOptions) -> str:
    return f" at {options.head_sha[:12]}" if options.head_sha else ""


def _no_claim_file(options: VerifyOptions, inherited: bool = False) -> NoReturn:
    what = (f"the change {options.diff_base}...{(options.head_sha or 'HEAD')[:12]} does not add"
            " or modify the claim file: it is the base branch's, not this change's"
            if inherited else f"no such claim file{_where(options)}")
    raise InvalidInput(str(options.claim), None, what,
                       "commit this change's own claim, or pass --require-claim to make a"
                       " missing claim unverified (exit 1)")


def missing_claim(options: VerifyOptions, inherited: bool = False) -> NoClaimResult:
    if not options.require_claim:
        _no_claim_file(options, inherited)
    where = _where(options)
    state = ("was not added or modified by this change (it is inherited from"
             f" {options.diff_base})" if inherited else f"does not exist{where}")
    message = (f"no completion claim: {options.claim} {state}, and"
               " --require-claim says this change needs one")
    from gate.report.no_claim import render_no_claim

    return NoClaimResult(render_no_claim(options.format, message))


def _inherited(options: VerifyOptions, resolved: DiffRange | None) -> bool:
    """Under `--diff-base`, a claim file the change does not write is no claim."""
    return options.diff_base is not None and not written_by_change(
        options.repo or Path(), options.claim, options.diff_base, options.head_sha or "HEAD",
        resolved=resolved)


def _diff_range(options: VerifyOptions) -> DiffRange | None:
    """`--diff-base`: BASE...HEAD resolved once, for the inherited-claim check, the change's
    collector and the subject (git asked once, so the three can never disagree)."""
    return None if options.diff_base is None else _resolve(options, options.diff_base)


def _resolve(options: VerifyOptions, base: str) -> DiffRange:
    from gate.evidence.git_diff import GitDiffError, resolve_range

    try:
        return resolve_range(options.repo or Path(), base, options.head_sha or "HEAD")
    except GitDiffError as exc:
        raise InvalidInput(f"--diff-base {base}", None, str(exc)) from None


@dataclass(frozen=True)
class VerifyResult:
    loaded: LoadedClaim
    verdict: Verdict
    output: str
    inputs: tuple[tuple[str, str], ...] = ()  # (what, sha256) of each evidence file read
    notes: tuple[str, ...] = ()  # what the collectors said of their reading (for a person)

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_FOR_STATE[self.verdict.state]


def choose_policy(path: Path | None, trusted: Sequence[str]) -> Policy:
    if path is None:
        return default_policy().trusting(trusted)
    from gate.claim.policy_parse import load_policy  # the parser only for a policy file

    return load_policy(path).trusting(trusted)


@dataclass(frozen=True)
class Decision:
    """One claim decided: what was observed and what the engine made of it."""

    loaded: LoadedClaim
    verdict: Verdict
    observed: Collected
    #: A maintainer's acceptance beside the verdict (the verdict stays as decided).
    override: OverrideDecision = NO_OVERRIDE


class AcceptanceSource(Protocol):
    """Where maintainers' acceptances are observed (reviews on GitHub); read only for a
    verdict short of verified, so a green PR costs no calls."""

    head_sha: str

    def read(self) -> Acceptances: ...


def gather(collectors: Sequence[Collector], loaded: LoadedClaim, policy: Policy) -> Collected:
    """Ask every collector, in order; they observe and record, and never decide."""
    return Collected.merge([collector.collect(loaded, policy) for collector in collectors])


def run(
    loaded: LoadedClaim,
    policy: Policy,
    collectors: Sequence[Collector],
    clock: Callable[[], datetime],
    subject: Subject | None = None,
    reread: Callable[[], Subject] | None = None,
    *,
    acceptances: AcceptanceSource | None = None,
) -> Decision:
    """collect -> decide -> acceptance: the only place `decide` is called. The decision time
    is read after the observations arrived, never before. `subject`: what this decision is
    about (the collectors were given it too); `reread`: the subject as it is once everything
    was observed (a PR read again), so a new head or another base branch meanwhile supersedes
    it; an acceptance is bound to the head and to the digest of the claim decided here."""
    observed = gather(collectors, loaded, policy)
    facts = replace(observed.facts(), subject=subject,
                    reread=reread() if reread is not None else None)
    verdict = decide(loaded.claim, facts, policy, clock())
    if acceptances is None or verdict.state is VerdictState.VERIFIED:
        return Decision(loaded, verdict, observed)
    override = judge_override(
        verdict.state, acceptances.read(), head_sha=acceptances.head_sha,
        claim_sha256=loaded.document.sha256, allow_refuted=policy.claims.override_refuted)
    return Decision(loaded, verdict, observed, override)


def verify_collectors(
    options: VerifyOptions, probe_io: ProbeIO | None, resolved: DiffRange | None = None,
) -> tuple[list[Collector], ProbeIO | None, DiffRange | None]:
    """What `claim-gate verify` observes: records, live probes, JUnit files, in that order;
    with `--diff-base`, the range resolved once for the change's collector and the subject."""
    collectors: list[Collector] = [OperatorRecords(options.evidence, options.head_sha,
                                                   options.test_evidence)]
    io = None
    if options.probe:
        from gate.evidence.probe.collect import Probes
        from gate.evidence.probe.observe import ProbeIO

        io = probe_io or ProbeIO.system()
        collectors.append(Probes(options.probe_context, io))
    if options.junit:
        from gate.evidence.junit import JUnitFiles

        collectors.append(JUnitFiles(options.junit, options.head_sha, options.junit_max_bytes,
                                     options.base_junit, options.base_code_junit,
                                     options.test_exit_status))
    collectors, resolved = with_git_sources(collectors, options, resolved)
    return collectors, io, resolved


def with_git_sources(collectors: list[Collector], options: VerifyOptions,
                     resolved: DiffRange | None = None,
                     ) -> tuple[list[Collector], DiffRange | None]:
    """`--diff-base`: the test runs are the test job's, judged against the branch's diff
    (the range resolved here, once); `--base-junit`: the head's tests against the base
    branch's report."""
    if options.base_junit and not options.junit:  # JUnitFiles compares the two
        raise UsageError("--base-junit needs --junit: the head's report to compare with")
    if options.base_code_junit and not options.junit:
        raise UsageError("--base-code-junit needs --junit: the head's report to compare with")
    if options.diff_base is None:
        return collectors, None
    from gate.evidence.branch_changes import BranchChanges, MadeByTheTestJob
    from gate.evidence.probe.collect import Probes

    head = options.head_sha or "HEAD"
    resolved = resolved or _resolve(options, options.diff_base)
    collectors = [c if isinstance(c, Probes) else MadeByTheTestJob(c) for c in collectors]
    collectors.append(BranchChanges(options.repo or Path(), options.diff_base, head,
                                    options.claim, resolved))
    return collectors, resolved


def run_verify_command(
    options: VerifyOptions, now: datetime, probe_io: ProbeIO | None = None
) -> VerifyResult | NoClaimResult:
    """`claim-gate verify`: as `run_verify`, but a required claim that is missing is a
    NoClaimResult (unverified, exit 1)."""
    loaded = load_claim_at(options.claim, options.max_claim_bytes, options.head_sha,
                           options.repo)
    if loaded is None:
        return missing_claim(options)
    resolved = _diff_range(options)
    if _inherited(options, resolved):
        return missing_claim(options, inherited=True)
    return verify_loaded(loaded, options, now, probe_io, resolved)


def run_verify(
    options: VerifyOptions, now: datetime, probe_io: ProbeIO | None = None
) -> VerifyResult:
    """Load everything (InvalidInput on bad input, a missing claim too), collect, decide,
    render."""
    loaded = load_claim_at(options.claim, options.max_claim_bytes, options.head_sha,
                           options.repo)
    if loaded is None:
        _no_claim_file(options)
    resolved = _diff_range(options)
    if _inherited(options, resolved):
        _no_claim_file(options, inherited=True)
    return verify_loaded(loaded, options, now, probe_io, resolved)


def command_line_subject(options: VerifyOptions, loaded: LoadedClaim,
                         resolved: DiffRange | None) -> Subject:
    """What `verify` decides: the claim's digest, the head commit (`--head-sha`) and, with
    `--diff-base`, the merge base the change is measured from (`resolved`)."""
    return Subject(head_sha=options.head_sha, base_ref=options.diff_base,
                   base_sha=resolved.merge_base if resolved is not None else None,
                   claim_sha256=loaded.document.sha256)


def verify_loaded(
    loaded: LoadedClaim, options: VerifyOptions, now: datetime, probe_io: ProbeIO | None = None,
    resolved: DiffRange | None = None,
) -> VerifyResult:
    """Collect, decide and render for a claim already loaded (`resolved`: the `--diff-base`
    range, when the caller has resolved it)."""
    policy = choose_policy(options.policy, options.trusted_verifiers)
    collectors, io, resolved = verify_collectors(options, probe_io, resolved)
    fixed = options.now or now
    clock = (lambda: fixed) if options.now or io is None else io.clock
    subject = command_line_subject(options, loaded, resolved)
    decision = run(loaded, policy, collectors, clock, subject)
    given = RenderInput(loaded, decision.verdict, junit=decision.observed.junit)
    output = render(options.format, given)
    return VerifyResult(loaded, decision.verdict, output, decision.observed.inputs,
                        decision.observed.notes)
