"""The verdict explained to a person in a terminal: one line per unmet item."""

from __future__ import annotations

from gate.claim.model import Claim, VerdictState
from gate.timefmt import format_rfc3339
from gate.verdict import Verdict

_HEADLINE = {
    VerdictState.VERIFIED: "VERIFIED",
    VerdictState.UNVERIFIED: "UNVERIFIED",
    VerdictState.REFUTED: "REFUTED",
}


def render_text(claim: Claim, verdict: Verdict, source: str) -> str:
    lines = [
        f"{_HEADLINE[verdict.state]}: {source} (task {claim.task.id})",
        f"  claimed: {claim.claimed_outcome}",
        f"  {verdict.policy.describe()}",
        f"  policy sha256 {verdict.policy.digest}",
        f"  decided by {verdict.decided_by} at {format_rfc3339(verdict.decided_at)}",
    ]
    counted = sum(1 for assessment in verdict.assessments if assessment.counts)
    lines.append(f"  evidence: {len(verdict.items)} item(s), {counted} counted")
    if verdict.unmet:
        lines.append(f"  unmet ({len(verdict.unmet)}):")
        lines.extend(f"  - [{entry.code}] {entry.message}" for entry in verdict.unmet)
    lines.append(f"  reason: {verdict.reason}")
    return "\n".join(lines) + "\n"
