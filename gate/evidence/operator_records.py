"""Record files handed on by name: the operator's (`--evidence`) and the test job's
(`--test-evidence`), and what disqualifies a record before the engine weighs it.

Each record keeps the channel it came by (`Origin.OPERATOR`, `Origin.TEST_JOB`) and its place
in the file; which records a channel may carry is the engine's rule (`gate/engine/handed_on.py`).

A record keeps its own `verifier.kind`; what only a collector can see is checked here: a test
run about another commit or a dirty tree (`commit_binding`), a record whose counts differ
from the JUnit file its run wrote, and a record that says the pytest plugin wrote it but
whose producer inventory is missing, edited or names something from the repository that
could rewrite results (`producer_inventory`). What a run's counts mean (no counts, nothing
executed, stopped early, failing, narrowed) is the engine's rule for every producer
(`gate/engine/test_counts.py`), not this collector's.
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
from gate.claim.loader import LoadedClaim, LoadedDocument, load_evidence_records
from gate.claim.model import Evidence
from gate.claim.policy import Policy
from gate.claim.test_job import INVENTORY_FIELD, PLUGIN_VERIFIER_PREFIX
from gate.evidence.commit_binding import check_record, record_fact_binding
from gate.evidence.interface import Collected
from gate.evidence.probe.records import recorded_disqualification
from gate.evidence.producer_inventory import PRODUCER_MODIFIED, judge

#: Counts the record's own `junit_report` totals are compared with.
_COUNTED = ("tests", "failures", "errors")


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def check_producer(evidence: Evidence) -> Disqualification | None:
    """A record from the pytest plugin (by its id, or carrying an inventory) must carry an
    inventory that is whole, unedited and names nothing that could rewrite results."""
    inventory = evidence.extensions.get(INVENTORY_FIELD)
    if not evidence.verifier.id.startswith(PLUGIN_VERIFIER_PREFIX) and inventory is None:
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
    if not isinstance(totals, dict) or _ended_early(observed):
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


def _ended_early(observed: dict[str, object]) -> bool:
    """A run the plugin says did not finish: pytest's JUnit writer still writes a case for
    the test the session ended in, which the record does not count as run; the engine's rule
    for unfinished runs judges both (`gate/engine/test_counts.py`)."""
    return observed.get("interrupted") is True or (_count(observed.get("unfinished")) or 0) > 0


def qualify(evidence: Evidence, head_sha: str | None) -> Disqualification | None:
    """The first reason this operator record is not evidence about the claimed work."""
    return (
        check_record(evidence, head_sha)
        or check_producer(evidence)
        or check_junit_report(evidence)
    )


def _place(document: LoadedDocument, index: int) -> str:
    """Where a record sits in its file: its number and line:column."""
    pointer = f"/{index}" if isinstance(document.raw, list) else ""
    return f"record {index + 1} at {document.place(pointer)}"


@dataclass(frozen=True)
class OperatorRecords:
    """Evidence records named on the command line: the operator's (`--evidence`) and the test
    job's (`--test-evidence`). They keep their own `kind`, but a record made for another claim
    file, or a test run about another commit, a dirty tree or no test at all, is disqualified
    (`probe.records`, `qualify`)."""

    paths: tuple[Path, ...]
    head_sha: str | None = None
    #: The files the test job handed on: the engine takes only the plugin's test runs there.
    test_job: tuple[Path, ...] = ()

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        items: list[EvidenceItem] = []
        inputs: list[tuple[str, str]] = []
        claim_sha256 = loaded.document.sha256
        for origin, label, paths in ((Origin.OPERATOR, "evidence", self.paths),
                                     (Origin.TEST_JOB, "test evidence", self.test_job)):
            for path in paths:
                document, records = load_evidence_records(path)
                inputs.append((f"{label} {document.source}", document.sha256))
                items.extend(
                    EvidenceItem(
                        record, origin, document.source,
                        recorded_disqualification(record, claim_sha256)
                        or qualify(record, self.head_sha),
                        binding=record_fact_binding(record), place=_place(document, index),
                    )
                    for index, record in enumerate(records)
                )
        return Collected(items=tuple(items), inputs=tuple(inputs))
