"""The verdict as markdown: what goes into a check run summary or a job summary."""

from __future__ import annotations

from collections import defaultdict

from gate.claim.model import Claim, VerdictState
from gate.timefmt import format_rfc3339
from gate.verdict import Verdict

_TITLE = {
    VerdictState.VERIFIED: "✅ verified",
    VerdictState.UNVERIFIED: "⚠️ unverified",
    VerdictState.REFUTED: "❌ refuted",
}


def cell(text: str) -> str:
    """Make text safe inside a markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def render_markdown(claim: Claim, verdict: Verdict, source: str) -> str:
    lines = [
        f"## Completion claim: {_TITLE[verdict.state]}",
        "",
        f"**Task** `{cell(claim.task.id)}`: {cell(claim.claimed_outcome)}",
        "",
        f"**Reason:** {cell(verdict.reason)}",
        "",
    ]
    unmet_by_mutation = defaultdict(list)
    for entry in verdict.unmet:
        if entry.mutation is not None:
            unmet_by_mutation[entry.mutation].append(entry)
    if claim.mutations:
        lines += ["| mutation | kind | target | at | evidence |", "|---|---|---|---|---|"]
        for mutation in claim.mutations:
            supporting = [
                f"#{index} {verdict.items[index].evidence.check_type}"
                for index, assessment in enumerate(verdict.assessments)
                if mutation.id in assessment.supports
            ]
            if unmet_by_mutation.get(mutation.id):
                status = "; ".join(f"`{u.code}`" for u in unmet_by_mutation[mutation.id])
            else:
                status = "covered by " + ", ".join(supporting)
            lines.append(
                f"| `{cell(mutation.id)}` | {cell(mutation.kind)} | {cell(mutation.target or '')}"
                f" | {format_rfc3339(mutation.at)} | {cell(status)} |"
            )
        lines.append("")
    if verdict.unmet:
        lines.append(f"### Unmet ({len(verdict.unmet)})")
        lines.append("")
        lines.extend(f"- `{entry.code}`: {cell(entry.message)}" for entry in verdict.unmet)
        lines.append("")
    lines += [
        "### Evidence",
        "",
        "| # | check | verifier | origin | at | counts |",
        "|---|---|---|---|---|---|",
    ]
    for index, (item, assessment) in enumerate(
        zip(verdict.items, verdict.assessments, strict=True)
    ):
        counts = "yes" if assessment.counts else (
            f"no: `{assessment.problem.code}`" if assessment.problem else "no"
        )
        if assessment.contradicts:
            counts += " (contradicts)"
        lines.append(
            f"| {index} | {item.evidence.check_type} | `{cell(item.evidence.verifier.id)}`"
            f" | {item.origin}: {cell(item.source)} | {format_rfc3339(item.evidence.at)}"
            f" | {counts} |"
        )
    lines += [
        "",
        f"Policy `{cell(verdict.policy.id)}` (sha256 `{verdict.policy.digest}`) from"
        f" {cell(verdict.policy.source)}; decided by `{verdict.decided_by}` at"
        f" {format_rfc3339(verdict.decided_at)}; claim `{cell(source)}`.",
        "",
    ]
    return "\n".join(lines)
