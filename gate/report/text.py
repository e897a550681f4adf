"""The verdict explained to a person in a terminal: one line per unmet item."""

from __future__ import annotations

import re

from gate.claim.model import Claim, VerdictState
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import plural
from gate.engine.results import Verdict

_HEADLINE = {
    VerdictState.VERIFIED: "VERIFIED",
    VerdictState.UNVERIFIED: "UNVERIFIED",
    VerdictState.REFUTED: "REFUTED",
}


#: Characters that end a line somewhere (a terminal, a CI log, str.splitlines), shown escaped.
_LINE_BREAKING = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")


def _one_line(text: str) -> str:
    """The agent's text stays on its line: in a GitHub Actions log a line that starts with
    `::` is a workflow command, so a claim must not be able to start one."""
    return _LINE_BREAKING.sub(lambda found: repr(found.group())[1:-1], text)


def render_text(claim: Claim, verdict: Verdict, source: str) -> str:
    lines = [
        f"{_HEADLINE[verdict.state]}: {source} (task {claim.task.id})",
        f"  claimed: {claim.claimed_outcome}",
        f"  {verdict.policy.describe()}",
        f"  policy sha256 {verdict.policy.digest}",
        f"  decided by {verdict.decided_by} at {format_rfc3339(verdict.decided_at)}",
    ]
    counted = sum(1 for assessment in verdict.assessments if assessment.counts)
    lines.append(f"  evidence: {plural(len(verdict.items), 'item')}, {counted} counted")
    if verdict.unmet:
        # The reason is the first unmet item's sentence: listed once, with the rest.
        lines.append(f"  unmet ({len(verdict.unmet)}), the reason first:")
        ordered = sorted(verdict.unmet, key=lambda e: e.state is not VerdictState.REFUTED)
        lines.extend(f"  - [{entry.code}] {entry.message}" for entry in ordered)
    else:
        lines.append(f"  reason: {verdict.reason}")
    lines.extend(f"  note: {note}" for note in verdict.notes)
    return "\n".join(_one_line(line) for line in lines) + "\n"
