"""One verification, start to end: collect → decide → report, with the collaborators given.

The CLI and the pytest-style callers build a `VerifyOptions` and call `run_verify`; this is
where loading the inputs, the engine and the chosen reporter meet.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
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
from gate.evidence.interface import EvidenceItem, Origin
from gate.evidence.operator_records import qualify
from gate.policy import Policy, default_policy, load_policy
from gate.report.github_commands import render_github
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
    head_sha: str | None = None  # test runs bound to another commit or a dirty tree don't count


@dataclass(frozen=True)
class VerifyResult:
    loaded: LoadedClaim
    verdict: Verdict
    output: str

    @property
    def exit_code(self) -> ExitCode:
        return EXIT_FOR_STATE[self.verdict.state]


def operator_evidence(paths: Sequence[Path], head_sha: str | None = None) -> list[EvidenceItem]:
    """Evidence records the operator named: they keep their own `kind`, but a test run about
    another commit, a dirty tree or no test at all is disqualified (`operator_records`)."""
    items: list[EvidenceItem] = []
    for path in paths:
        document, records = load_evidence_records(path)
        items.extend(
            EvidenceItem(record, Origin.OPERATOR, document.source, qualify(record, head_sha))
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


def run_verify(options: VerifyOptions, now: datetime) -> VerifyResult:
    """Load everything (InvalidInput on bad input), decide, render."""
    loaded = load_claim(options.claim, options.max_claim_bytes)
    policy = choose_policy(options.policy, options.trusted_verifiers)
    evidence = operator_evidence(options.evidence, options.head_sha)
    verdict = decide(loaded.claim, evidence, policy, options.now or now)
    return VerifyResult(loaded, verdict, render(options.format, loaded, verdict))
