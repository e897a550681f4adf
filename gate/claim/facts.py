"""What every collector hands the engine: evidence records, where they came from, and the
facts the engine's rules read (the PR's changes, the head's arrival, the test sets).

The record's own `verifier.kind` is a label written by its producer; whether the gate
treats it as independent is decided by where the item came from and whom the policy
trusts, and a collector may disqualify an item for a reason only it can see (the run was
on another commit, the tree was dirty, the PR edited the workflow that produced it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from gate.claim.test_job import JUNIT_REPORT_FIELD as JUNIT_REPORT_FIELD

if TYPE_CHECKING:
    from gate.claim.change_facts import ChangeReading
    from gate.claim.changed_paths import ChangedPaths
    from gate.claim.ci_facts import CiObservation
    from gate.claim.fail_to_pass import BaseCodeComparison
    from gate.claim.github_facts import PullObservation, TestSetComparison
    from gate.claim.model import Evidence
    from gate.claim.subject import Binding, Subject

#: A record and the JUnit file of its own run disagree (one was rewritten after the run).
EVIDENCE_MISMATCH = "evidence_mismatch"


class Origin(StrEnum):
    CLAIM = "claim"  # written by the agent inside its claim file
    OPERATOR = "operator"  # a record file the operator named (--evidence)
    TEST_JOB = "test_job"  # a record file the test job handed on (--test-evidence)
    GATE = "gate"  # observed by the gate itself (JUnit it read, GitHub, probes)


@dataclass(frozen=True)
class Disqualification:
    """Why a collector says this item is not evidence about the claimed work."""

    code: str
    message: str


@dataclass(frozen=True)
class EvidenceItem:
    evidence: Evidence
    origin: Origin
    source: str
    disqualified: Disqualification | None = None
    #: Produced by a CI workflow (its file, when known): the engine judges its provenance.
    producer: Producer | None = None
    #: What the item is bound to, as its source observed it (gate/claim/subject.py).
    binding: Binding | None = None
    #: Where in its source the item sits, for a person ("record 2 at 14:3"), when it has one.
    place: str | None = None


@dataclass(frozen=True)
class Producer:
    """The CI workflow that produced an item (GitHub's `path`, or the gate's own workflow),
    with what GitHub says of its run: how it ended and which PR base it was made for."""

    workflow_path: str | None
    #: The run's conclusion (None: not a finished run of GitHub's, e.g. the gate's own job).
    conclusion: str | None = None
    #: The base branch of this PR the run was made for (`pull_requests[].base.ref`), if said.
    base_ref: str | None = None


@dataclass(frozen=True)
class Facts:
    """Everything the collectors observed for one claim; the engine's only input besides the
    claim, the policy and the time."""

    items: tuple[EvidenceItem, ...] = ()
    #: On GitHub: the PR's changed paths and the head's arrival (None elsewhere).
    pull: PullObservation | None = None
    #: The head's test sets against the base branch's, one per workflow.
    test_sets: tuple[TestSetComparison, ...] = ()
    #: On GitHub: the head's runs and the artifacts that could not be read (None elsewhere).
    ci: CiObservation | None = None
    #: The change's files (GitHub's PR listing or git's diff): the record of file mutations.
    changed: ChangedPaths | None = None
    #: What this decision is about; facts bound to something else never count toward verified.
    subject: Subject | None = None
    #: What the gate read of the change's own files: reach into the test machinery.
    change: ChangeReading | None = None
    #: The head's tests over the base's code against the head's run (fail-to-pass).
    base_code: BaseCodeComparison | None = None
    #: The subject as read again once everything was observed: a head or base that moved
    #: means the facts are about a PR state that is gone (`superseded`).
    reread: Subject | None = None

    @classmethod
    def of(cls, items: Iterable[EvidenceItem]) -> Facts:
        return cls(items=tuple(items))
