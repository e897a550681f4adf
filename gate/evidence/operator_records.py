"""Operator evidence records (`--evidence`): what disqualifies one before the engine weighs it.

A record keeps its own `verifier.kind`; what only a collector can see is checked here: a test
run about another commit or a dirty tree (`commit_binding`), a run in which no test
executed (absence, never a pass), a session that stopped before it finished, a run whose own
counts show failures its `expected` does not refute, a "test run" with no counts at all, and
a record that says the pytest plugin wrote it but whose producer inventory is missing, edited
or names something from the repository that could rewrite results (`producer_inventory`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gate.claim.facts import (
    EVIDENCE_MISMATCH,
    JUNIT_REPORT_FIELD,
    Disqualification,
    EvidenceItem,
    Origin,
)
from gate.claim.loader import LoadedClaim, load_evidence_records
from gate.claim.model import CheckType, Evidence
from gate.claim.policy import Policy
from gate.evidence.commit_binding import check_record
from gate.evidence.interface import Collected
from gate.evidence.probe.records import recorded_disqualification
from gate.evidence.producer_inventory import INVENTORY_FIELD, PRODUCER_MODIFIED, judge

NO_TESTS = "no_tests"
INCOMPLETE_RUN = "incomplete_run"
FAILING_RUN = "failing_run"
NO_TEST_COUNTS = "no_test_counts"

PYTEST_VERIFIER_PREFIX = "claim-gate/pytest@"

#: pytest exit codes of a session that did not run its tests to the end:
#: interrupted, internal error, usage error. Other runners that report an exit status use
#: the same small numbers for the same troubles, and none uses them for "all ran".
_INCOMPLETE_EXIT = {2: "was interrupted", 3: "hit an internal error", 4: "was misused"}

#: Counts that say a test did not pass: a record showing any is a failing run.
_FAILING_KEYS = ("failures", "errors")


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_totals(evidence: Evidence) -> Disqualification | None:
    """A test run whose own totals say nothing was tested, that it stopped early, that tests
    failed (whatever its `expected` says), or that say nothing at all."""
    observed = evidence.observed_value
    if evidence.check_type is not CheckType.TEST_RUN:
        return None
    tests = _count(observed.get("tests")) if isinstance(observed, dict) else None
    if not isinstance(observed, dict) or tests is None or _count(observed.get("failures")) is None:
        return Disqualification(
            NO_TEST_COUNTS,
            "the test_run record has no test counts (integer `tests` and `failures` in its"
            " observed value): a run that does not say what ran and what failed is no test run",
        )
    skipped = _count(observed.get("skipped")) or 0
    if tests - skipped <= 0:
        return Disqualification(
            NO_TESTS,
            f"the test run executed no test ({tests} collected, {skipped} skipped): absence is"
            " unverified, never a pass",
        )
    status = _count(observed.get("exit_status"))
    if status in _INCOMPLETE_EXIT:
        return Disqualification(
            INCOMPLETE_RUN,
            f"the test session {_INCOMPLETE_EXIT[status]} (exit status {status}), so not"
            " every test ran; run the whole suite again",
        )
    return _failing(evidence, observed)


def _failing(evidence: Evidence, observed: dict[str, object]) -> Disqualification | None:
    """Failures the record's own `expected` would not contradict (no `expected`, or one that
    expects them) can never make the run a pass; one that expects zero refutes in the engine."""
    expected = evidence.expected if isinstance(evidence.expected, dict) else {}
    failing = {
        key: count for key in _FAILING_KEYS if (count := _count(observed.get(key)) or 0) > 0
    }
    if not failing or all(expected.get(key) == 0 for key in failing):
        return None
    shown = ", ".join(f"{count} {key}" for key, count in failing.items())
    return Disqualification(
        FAILING_RUN,
        f"the test run's own counts show {shown}; a run with failing tests is never evidence"
        f" that the work is done, whatever its `expected` ({evidence.expected!r}) says",
    )


def check_producer(evidence: Evidence) -> Disqualification | None:
    """A record from the pytest plugin (by its id, or carrying an inventory) must carry an
    inventory that is whole, unedited and names nothing that could rewrite results."""
    inventory = evidence.extensions.get(INVENTORY_FIELD)
    if not evidence.verifier.id.startswith(PYTEST_VERIFIER_PREFIX) and inventory is None:
        return None
    problem = judge(inventory)
    return Disqualification(PRODUCER_MODIFIED, problem) if problem else None


def check_junit_report(evidence: Evidence) -> Disqualification | None:
    """The totals the plugin read back from the JUnit file it wrote must be its own totals."""
    report = evidence.extensions.get(JUNIT_REPORT_FIELD)
    observed = evidence.observed_value
    if not isinstance(report, dict) or not isinstance(observed, dict):
        return None
    totals = report.get("totals")
    if not isinstance(totals, dict):
        return None
    differing = [
        key for key in ("tests", "failures", "errors")
        if _count(totals.get(key)) != _count(observed.get(key))
    ]
    if not differing:
        return None
    return Disqualification(
        EVIDENCE_MISMATCH,
        f"the record's counts ({', '.join(f'{k}={observed.get(k)!r}' for k in differing)}) differ"
        f" from those of the JUnit file its run wrote ({report.get('path')!r}:"
        f" {', '.join(f'{k}={totals.get(k)!r}' for k in differing)}): one of them was changed"
        " after the run",
    )


def qualify(evidence: Evidence, head_sha: str | None) -> Disqualification | None:
    """The first reason this operator record is not evidence about the claimed work."""
    return (
        check_record(evidence, head_sha)
        or check_producer(evidence)
        or check_junit_report(evidence)
        or check_totals(evidence)
    )


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
