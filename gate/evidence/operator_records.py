"""Operator evidence records (`--evidence`): what disqualifies one before the engine weighs it.

A record keeps its own `verifier.kind`; what only a collector can see is checked here: a test
run about another commit or a dirty tree (`commit_binding`), a run in which no test
executed (absence, never a pass), and a pytest session that stopped before it finished.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.loader import LoadedClaim, load_evidence_records
from gate.claim.model import CheckType, Evidence
from gate.claim.policy import Policy
from gate.evidence.commit_binding import check_record
from gate.evidence.interface import Collected
from gate.evidence.probe.records import recorded_disqualification

NO_TESTS = "no_tests"
INCOMPLETE_RUN = "incomplete_run"

PYTEST_VERIFIER_PREFIX = "claim-gate/pytest@"

#: pytest exit codes of a session that did not run its tests to the end:
#: interrupted, internal error, usage error.
_INCOMPLETE_EXIT = {2: "was interrupted", 3: "hit an internal error", 4: "was misused"}


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_totals(evidence: Evidence) -> Disqualification | None:
    """A test run whose own totals say nothing was tested, or that it stopped early."""
    observed = evidence.observed_value
    if evidence.check_type is not CheckType.TEST_RUN or not isinstance(observed, dict):
        return None
    tests, skipped = _count(observed.get("tests")), _count(observed.get("skipped")) or 0
    if tests is not None and tests - skipped <= 0:
        return Disqualification(
            NO_TESTS,
            f"the test run executed no test ({tests} collected, {skipped} skipped): absence is"
            " unverified, never a pass",
        )
    status = _count(observed.get("exit_status"))
    if evidence.verifier.id.startswith(PYTEST_VERIFIER_PREFIX) and status in _INCOMPLETE_EXIT:
        return Disqualification(
            INCOMPLETE_RUN,
            f"the pytest session {_INCOMPLETE_EXIT[status]} (exit status {status}), so not"
            " every test ran; run the whole suite again",
        )
    return None


def qualify(evidence: Evidence, head_sha: str | None) -> Disqualification | None:
    """The first reason this operator record is not evidence about the claimed work."""
    return check_record(evidence, head_sha) or check_totals(evidence)


@dataclass(frozen=True)
class OperatorRecords:
    """Evidence records the operator named (`--evidence`): they keep their own `kind`, but a
    record made for another claim file, or a test run about another commit, a dirty tree or
    no test at all, is disqualified (`probe.records`, `qualify`)."""

    paths: tuple[Path, ...]
    head_sha: str | None = None

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        items: list[EvidenceItem] = []
        claim_sha256 = loaded.document.sha256
        for path in self.paths:
            document, records = load_evidence_records(path)
            items.extend(
                EvidenceItem(
                    record, Origin.OPERATOR, document.source,
                    recorded_disqualification(record, claim_sha256)
                    or qualify(record, self.head_sha),
                )
                for record in records
            )
        return Collected(items=tuple(items))
