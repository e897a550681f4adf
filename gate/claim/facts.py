"""What every collector hands the engine: an evidence record plus where it came from.

The record's own `verifier.kind` is a label written by its producer; whether the gate
treats it as independent is decided by where the item came from and whom the policy
trusts, and a collector may disqualify an item for a reason only it can see (the run was
on another commit, the tree was dirty, the PR edited the workflow that produced it).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gate.claim.model import Evidence


class Origin(StrEnum):
    CLAIM = "claim"  # written by the agent inside its claim file
    OPERATOR = "operator"  # a record file the operator named (--evidence)
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
