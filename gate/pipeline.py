"""One verification, start to end: collect → decide → report, with the collaborators given.

The CLI and the pytest-style callers build a `VerifyOptions` and call `run_verify`; this is
where loading the inputs, the engine and the chosen reporter meet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum
from pathlib import Path

from gate.claim.errors import GateError, InvalidInput, UsageError
from gate.claim.loader import DEFAULT_MAX_CLAIM_BYTES, LoadedClaim, load_claim
from gate.claim.model import VerdictState
from gate.claim.policy import Policy, default_policy
from gate.claim.policy_parse import load_policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from gate.evidence.interface import Collected, Collector
from gate.evidence.junit import DEFAULT_MAX_JUNIT_BYTES, JUnitFiles
from gate.evidence.operator_records import OperatorRecords
from gate.evidence.probe.collect import Probes
from gate.evidence.probe.observe import ProbeContext, ProbeIO
from gate.report.renderers import FORMATS, RenderInput, render

__all__ = ["FORMATS", "Decision", "ExitCode", "VerifyOptions", "gather", "run", "run_verify"]


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
    evidence: tuple[Path, ...] = ()
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


@dataclass(frozen=True)
class VerifyResult:
    loaded: LoadedClaim
    verdict: Verdict
    output: str

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_FOR_STATE[self.verdict.state]


def choose_policy(path: Path | None, trusted: Sequence[str]) -> Policy:
    policy = load_policy(path) if path is not None else default_policy()
    return policy.trusting(trusted)


@dataclass(frozen=True)
class Decision:
    """One claim decided: what was observed and what the engine made of it."""

    loaded: LoadedClaim
    verdict: Verdict
    observed: Collected


def gather(collectors: Sequence[Collector], loaded: LoadedClaim, policy: Policy) -> Collected:
    """Ask every collector, in order; they observe and record, and never decide."""
    return Collected.merge([collector.collect(loaded, policy) for collector in collectors])


def run(
    loaded: LoadedClaim,
    policy: Policy,
    collectors: Sequence[Collector],
    clock: Callable[[], datetime],
) -> Decision:
    """collect -> decide: the only place `decide` is called. The decision time is read after
    the observations arrived, never before."""
    observed = gather(collectors, loaded, policy)
    verdict = decide(loaded.claim, observed.facts(), policy, clock())
    return Decision(loaded, verdict, observed)


def verify_collectors(
    options: VerifyOptions, probe_io: ProbeIO | None
) -> tuple[list[Collector], ProbeIO | None]:
    """What `claim-gate verify` observes: records, live probes, JUnit files, in that order."""
    collectors: list[Collector] = [OperatorRecords(options.evidence, options.head_sha)]
    io = None
    if options.probe:
        io = probe_io or ProbeIO.system()
        collectors.append(Probes(options.probe_context, io))
    if options.junit:
        collectors.append(JUnitFiles(options.junit, options.head_sha, options.junit_max_bytes))
    return collectors, io


def run_verify(
    options: VerifyOptions, now: datetime, probe_io: ProbeIO | None = None
) -> VerifyResult:
    """Load everything (InvalidInput on bad input), collect, decide, render."""
    loaded = load_claim(options.claim, options.max_claim_bytes)
    policy = choose_policy(options.policy, options.trusted_verifiers)
    collectors, io = verify_collectors(options, probe_io)
    fixed = options.now or now
    clock = (lambda: fixed) if options.now or io is None else io.clock
    decision = run(loaded, policy, collectors, clock)
    given = RenderInput(loaded, decision.verdict, junit=decision.observed.junit)
    output = render(options.format, given)
    return VerifyResult(loaded, decision.verdict, output)
