"""One verification, start to end: collect → decide → report, with the collaborators given.

The CLI and the pytest-style callers build a `VerifyOptions` and call `run_verify`; this is
where loading the inputs, the engine and the chosen reporter meet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from enum import IntEnum
from pathlib import Path

from gate.claim.loader import (
    DEFAULT_MAX_CLAIM_BYTES,
    LoadedClaim,
    load_claim,
    load_evidence_records,
)
from gate.claim.model import VerdictState
from gate.errors import GateError, InvalidInput, UsageError
from gate.evidence.interface import EvidenceItem, Origin
from gate.evidence.junit import (
    DEFAULT_MAX_JUNIT_BYTES,
    policy_options,
    read_run,
    required_tests,
    run_evidence,
)
from gate.evidence.operator_records import qualify
from gate.evidence.probe.collect import probe_evidence
from gate.evidence.probe.observe import ProbeContext, ProbeIO
from gate.evidence.probe.records import recorded_disqualification
from gate.policy import Policy, default_policy, load_policy
from gate.report.github_commands import render_github
from gate.report.junit_summary import render_junit_appendix
from gate.report.junit_xml import render_junit
from gate.report.markdown import render_markdown
from gate.report.record import completed_record
from gate.report.text import render_text
from gate.verdict import Verdict, decide


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


FORMATS = ("text", "json", "markdown", "junit", "github")


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


def operator_evidence(
    paths: Sequence[Path], claim_sha256: str | None = None, head_sha: str | None = None
) -> list[EvidenceItem]:
    """Evidence records the operator named: they keep their own `kind`, but a record made for
    another claim file, or a test run about another commit, a dirty tree or no test at all,
    is disqualified (`probe.records`, `operator_records`)."""
    items: list[EvidenceItem] = []
    for path in paths:
        document, records = load_evidence_records(path)
        items.extend(
            EvidenceItem(
                record, Origin.OPERATOR, document.source,
                recorded_disqualification(record, claim_sha256) or qualify(record, head_sha),
            )
            for record in records
        )
    return items


def choose_policy(path: Path | None, trusted: Sequence[str]) -> Policy:
    policy = load_policy(path) if path is not None else default_policy()
    return policy.trusting(trusted)


def render(result_format: str, loaded: LoadedClaim, verdict: Verdict) -> str:
    if result_format == "json":
        record = completed_record(loaded.document.raw, verdict)
        return json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    if result_format == "markdown":
        return render_markdown(loaded.claim, verdict, loaded.source)
    if result_format == "junit":
        return render_junit(loaded.claim, verdict, loaded.source)
    if result_format == "github":
        lines = {
            mutation.id: found.line
            for index, mutation in enumerate(loaded.claim.mutations)
            if (found := loaded.document.locate(f"/mutations/{index}")) is not None
        }
        return render_github(loaded.claim, verdict, loaded.source, lines)
    return render_text(loaded.claim, verdict, loaded.source)


def run_verify(
    options: VerifyOptions, now: datetime, probe_io: ProbeIO | None = None
) -> VerifyResult:
    """Load everything (InvalidInput on bad input), probe if asked, decide, render."""
    loaded = load_claim(options.claim, options.max_claim_bytes)
    policy = choose_policy(options.policy, options.trusted_verifiers)
    evidence = operator_evidence(options.evidence, loaded.document.sha256, options.head_sha)
    if options.probe:
        io = probe_io or ProbeIO.system()
        context = replace(options.probe_context, claim_sha256=loaded.document.sha256)
        evidence += probe_evidence(loaded.claim, policy, context, io)
        now = io.clock()  # decide after the observations arrived, not before
    named = required_tests(policy, loaded.claim, loaded.source)
    junit = (read_run(options.junit, named, options.junit_max_bytes, policy_options(policy))
             if options.junit else None)
    if junit is not None:
        evidence.append(run_evidence(junit, options.head_sha))
    verdict = decide(loaded.claim, evidence, policy, options.now or now)
    output = render(options.format, loaded, verdict)
    if junit is not None and options.format == "text":
        output += render_junit_appendix(junit)
    return VerifyResult(loaded, verdict, output)
