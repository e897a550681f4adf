"""The completed claim object: the agent's claim, the evidence used, the new verdict.

The agent-written parts are kept as written (raw JSON); evidence, policy and verdict are
the gate's. Evidence from the claim keeps its own fields, but `verifier.kind` states the
gate's judgement and the label the producer wrote is kept as `x-claimed-kind`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.claim.codec import dump_evidence
from gate.claim.facts import EvidenceItem
from gate.claim.model import JSON
from gate.claim.timefmt import format_rfc3339
from gate.engine.results import Assessment, Unmet, Verdict

#: The record's parts that are the gate's, never the agent's as written.
OWNED = ("evidence", "policy", "verdict")


def unmet_json(entry: Unmet) -> dict[str, JSON]:
    record: dict[str, Any] = {"code": entry.code, "message": entry.message}
    if entry.mutation is not None:
        record["mutation"] = entry.mutation
    if entry.requirement is not None:
        record["requirement"] = str(entry.requirement)
    if entry.evidence:
        record["evidence"] = list(entry.evidence)
    if entry.path is not None:
        record["x-path"] = entry.path
    return record


def _assessment_json(assessment: Assessment, origin: str, source: str) -> dict[str, JSON]:
    return {
        "origin": origin,
        "source": source,
        "counts": assessment.counts,
        "covers": list(assessment.covers),
        "supports": list(assessment.supports),
        "satisfies": [str(check) for check in assessment.satisfies],
        "contradicts": list(assessment.contradicts_mutations),
        **(
            {"problem": {"code": assessment.problem.code, "message": assessment.problem.message}}
            if assessment.problem
            else {}
        ),
    }


def verdict_json(verdict: Verdict) -> dict[str, JSON]:
    return {
        "state": str(verdict.state),
        "unmet": [unmet_json(entry) for entry in verdict.unmet],
        "reason": verdict.reason,
        "decided_at": format_rfc3339(verdict.decided_at),
        "x-decided-by": verdict.decided_by,
        "x-policy": {"id": verdict.policy.id, "sha256": verdict.policy.digest},
        **({"x-notes": list(verdict.notes)} if verdict.notes else {}),
        **({"x-fail-to-pass": list(verdict.fail_to_pass)} if verdict.fail_to_pass else {}),
    }


def completed_record(raw_claim: Mapping[str, JSON], verdict: Verdict) -> dict[str, JSON]:
    """The completed record; valid against the shipped schema's `#/$defs/completed`."""
    record: dict[str, Any] = {k: v for k, v in raw_claim.items() if k not in OWNED}
    record["evidence"] = [evidence_json(item, assessment) for item, assessment
                          in zip(verdict.items, verdict.assessments, strict=True)]
    record["policy"] = policy_json(verdict)
    record["verdict"] = verdict_json(verdict)
    return record


def evidence_json(item: EvidenceItem, assessment: Assessment) -> dict[str, JSON]:
    """One item of the record's `evidence`: as dumped, its kind the gate's judgement."""
    dumped = dump_evidence(item.evidence)
    claimed = item.evidence.verifier.kind
    judged = "independent" if assessment.independent else "self_attested"
    if str(claimed) != judged:
        dumped["verifier"]["x-claimed-kind"] = str(claimed)
    dumped["verifier"]["kind"] = judged
    dumped["x-claim-gate"] = _assessment_json(assessment, str(item.origin), item.source)
    return dumped


def policy_json(verdict: Verdict) -> dict[str, JSON]:
    return {**verdict.policy.to_json(), "x-sha256": verdict.policy.digest}
