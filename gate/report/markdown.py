"""The verdict as markdown: what goes into a check run summary or a job summary.

The document is built as blocks (paragraphs and tables) so that it can be shortened to fit
GitHub's 65535-character limit without ever cutting a table row or a code block in half.
The reason comes first and is capped, so it is shown whatever the agent's text costs; every
field from the agent's side is escaped and capped (`untrusted`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from gate.claim.model import Claim, VerdictState
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import plural
from gate.engine.results import Verdict
from gate.report.untrusted import (
    FIELD_CHARS,
    OUTCOME_CHARS,
    REASON_CHARS,
    code,
    prose,
    visible,
)

_TITLE = {
    VerdictState.VERIFIED: "✅ verified",
    VerdictState.UNVERIFIED: "⚠️ unverified",
    VerdictState.REFUTED: "❌ refuted",
}


@dataclass(frozen=True)
class Block:
    """Markdown lines that belong together; a table keeps `header` whenever it is shortened."""

    lines: tuple[str, ...]
    header: tuple[str, ...] = ()
    what: str = "lines"

    def text(self) -> str:
        return "\n".join(self.header + self.lines) + "\n"


def cell(text: str) -> str:
    """Make text safe inside a markdown table cell (invisible format characters escaped)."""
    shown = visible(text).replace("\\", "\\\\").replace("|", "\\|")
    return shown.replace("\r", " ").replace("\n", " ")


def markdown_blocks(
    claim: Claim, verdict: Verdict, source: str, links: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> list[Block]:
    """`links`: the runs that supplied evidence; `notes`: what was seen but not counted."""
    blocks = [
        Block((f"## Completion claim: {_TITLE[verdict.state]}", "")),
        _reason(verdict),
        Block((f"**Task** {code(claim.task.id, table=False)}:"
               f" {prose(claim.claimed_outcome, OUTCOME_CHARS)}", "")),
    ]
    unmet_by_mutation = defaultdict(list)
    for entry in verdict.unmet:
        if entry.mutation is not None:
            unmet_by_mutation[entry.mutation].append(entry)
    supporters: dict[str, list[str]] = defaultdict(list)
    for index, assessment in enumerate(verdict.assessments):
        for mutation_id in assessment.supports:
            supporters[mutation_id].append(f"#{index} {verdict.items[index].evidence.check_type}")
    if claim.mutations:
        rows = []
        for mutation in claim.mutations:
            if unmet_by_mutation.get(mutation.id):
                status = "; ".join(f"`{u.code}`" for u in unmet_by_mutation[mutation.id])
            else:
                status = "covered by " + ", ".join(supporters[mutation.id])
            rows.append(
                f"| {code(mutation.id)} | {prose(mutation.kind, FIELD_CHARS)}"
                f" | {prose(mutation.target or '', FIELD_CHARS)}"
                f" | {format_rfc3339(mutation.at)} | {cell(status)} |"
            )
        blocks.append(Block(
            tuple(rows),
            header=("| mutation | kind | target | at | evidence |", "|---|---|---|---|---|"),
            what="mutations",
        ))
        blocks.append(Block(("",)))
    if verdict.unmet and not _reason_is_the_one_unmet(verdict):
        blocks.append(Block((f"### Unmet ({len(verdict.unmet)})", "")))
        blocks.append(Block(
            tuple(f"- {code(entry.code, table=False)}: {prose(entry.message)}"
                  for entry in verdict.unmet),
            what="unmet items",
        ))
        blocks.append(Block(("",)))
    rows = _evidence_rows(verdict)
    blocks.append(Block(("### Evidence", "")))
    if rows:
        blocks.append(Block(
            tuple(rows),
            header=("| # | check | verifier | origin | at | counts |",
                    "|---|---|---|---|---|---|"),
            what="evidence rows",
        ))
    else:
        blocks.append(Block(("No evidence at all.",)))
    blocks.append(Block(("",)))
    if verdict.notes:
        blocks.append(Block(("### Rules", "")))
        blocks.append(Block(tuple(f"- {prose(note)}" for note in verdict.notes),
                            what="rule notes"))
        blocks.append(Block(("",)))
    if notes:
        blocks.append(Block(("### Seen but not counted", "")))
        blocks.append(Block(tuple(f"- {prose(note)}" for note in notes), what="notes"))
        blocks.append(Block(("",)))
    if links:
        blocks.append(Block(("### Runs that supplied evidence", "")))
        blocks.append(Block(tuple(f"- {link}" for link in links), what="run links"))
        blocks.append(Block(("",)))
    blocks.append(Block((
        f"Policy `{cell(verdict.policy.id)}` (sha256 `{verdict.policy.digest}`) from"
        f" {cell(verdict.policy.source)}; decided by `{verdict.decided_by}` at"
        f" {format_rfc3339(verdict.decided_at)}; claim {code(source, table=False)}.",
    )))
    return blocks


def _reason_is_the_one_unmet(verdict: Verdict) -> bool:
    """One unmet item whose message is the reason: a list of it would say it again."""
    return len(verdict.unmet) == 1 and verdict.reason == (
        f"{verdict.state}: {verdict.unmet[0].message}")


def _reason(verdict: Verdict) -> Block:
    """The reason first; when it is the one unmet item, with that item's code, and the Unmet
    list is left out (the reviewer read it once, not four times)."""
    if _reason_is_the_one_unmet(verdict):
        entry = verdict.unmet[0]
        return Block((f"**Reason:** {verdict.state}: {code(entry.code, table=False)}:"
                      f" {prose(entry.message, REASON_CHARS)}", ""))
    return Block((f"**Reason:** {prose(verdict.reason, REASON_CHARS)}", ""))


def _evidence_rows(verdict: Verdict) -> list[str]:
    rows = []
    for index, (item, assessment) in enumerate(
        zip(verdict.items, verdict.assessments, strict=True)
    ):
        counts = "yes" if assessment.counts else (
            f"no: {code(assessment.problem.code)}" if assessment.problem else "no"
        )
        if assessment.contradicts:
            counts += " (contradicts)"
        rows.append(
            f"| {index} | {item.evidence.check_type} | {code(item.evidence.verifier.id)}"
            f" | {item.origin}: {prose(item.source, FIELD_CHARS)}"
            f" | {format_rfc3339(item.evidence.at)}"
            f" | {counts} |"
        )
    return rows


def fit_blocks(blocks: Sequence[Block], limit: int) -> str:
    """Join blocks within `limit` characters. The first block that does not fit is shortened
    at a line boundary (a table keeps its header), later blocks are left out, and a closing
    note says what was left out."""
    whole = "".join(block.text() for block in blocks)
    if len(whole) <= limit:
        return whole
    budget = limit - 300  # room for the closing note
    parts: list[str] = []
    used = 0
    for position, block in enumerate(blocks):
        text = block.text()
        if used + len(text) <= budget:
            parts.append(text)
            used += len(text)
            continue
        room = budget - used - sum(len(line) + 1 for line in block.header)
        kept: list[str] = []
        for line in block.lines:
            if len(line) + 1 > room:
                break
            kept.append(line)
            room -= len(line) + 1
        if kept:
            parts.append("\n".join(block.header + tuple(kept)) + "\n")
        later = len(blocks) - position - 1
        note = (
            f"\n_Shortened to fit GitHub's {limit}-character limit: left out"
            f" {len(block.lines) - len(kept)} {block.what} and {plural(later, 'later section')}."
            " The full"
            " record is in the check run's text, the job summary and the `claim-json` file._\n"
        )
        return "".join(parts) + note
    return "".join(parts)


def render_markdown(
    claim: Claim, verdict: Verdict, source: str, links: Sequence[str] = (),
    notes: Sequence[str] = (),
) -> str:
    return "".join(
        block.text() for block in markdown_blocks(claim, verdict, source, links, notes)
    )
