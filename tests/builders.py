"""Small builders for claims and evidence, so tests state only what matters to them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.model import (
    CheckType,
    Claim,
    Evidence,
    Mutation,
    PolicyRequest,
    Task,
    Verifier,
    VerifierKind,
)

T0 = datetime(2026, 8, 27, 18, 4, 2, tzinfo=UTC)


def at(seconds: float) -> datetime:
    """A moment `seconds` after T0."""
    return T0 + timedelta(seconds=seconds)


def mutation(mid: str = "m1", kind: str = "state_write", when: float = 0.0,
             target: str | None = "accounts/4471") -> Mutation:
    return Mutation(id=mid, kind=kind, at=at(when), target=target)


#: The counts of a small passing test run.
PASSING_RUN = {"tests": 3, "failures": 0, "errors": 0}


def evidence(
    when: float = 7.0,
    covers: Sequence[str] = ("m1",),
    check_type: CheckType = CheckType.STATE_READBACK,
    verifier: str = "records-reader/1",
    kind: VerifierKind = VerifierKind.INDEPENDENT,
    expected: Mapping[str, Any] | None = None,
    observed: Any = None,
    has_observed: bool | None = None,
) -> Evidence:
    if check_type is CheckType.TEST_RUN and observed is None and has_observed is None:
        # Issue 16 item 4: a test_run without counts is no test run; a builder's test run
        # is a passing one unless the test says what it observed.
        observed = dict(PASSING_RUN)
    return Evidence(
        check_type=check_type,
        at=at(when),
        verifier=Verifier(verifier, kind),
        covers=tuple(covers),
        expected=expected,
        observed_value=observed,
        has_observed_value=(observed is not None) if has_observed is None else has_observed,
    )


def item(
    record: Evidence,
    origin: Origin = Origin.OPERATOR,
    disqualified: Disqualification | None = None,
) -> EvidenceItem:
    return EvidenceItem(record, origin, f"{origin}-source", disqualified)


def claim(
    mutations: Sequence[Mutation] | None = None,
    claim_evidence: Sequence[Evidence] = (),
    policy: PolicyRequest | None = None,
) -> Claim:
    return Claim(
        spec_version="0.1",
        task=Task("task-1", "Update the billing address"),
        claimed_outcome="Updated it.",
        mutations=(mutation(),) if mutations is None else tuple(mutations),
        evidence=tuple(claim_evidence),
        policy=policy,
    )
