"""A verdict as a GitHub check run: conclusion, title, summary, text and annotations.

Pure: builds the payloads; the action sends them. GitHub's limits are met here on purpose:
summary and text at most 65535 characters, 50 annotations per request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gate.claim.loader import LoadedClaim
from gate.claim.model import JSON, VerdictState
from gate.engine.results import Unmet, Verdict
from gate.report.markdown import Block, fit_blocks, markdown_blocks
from gate.report.untrusted import prose, visible

MAX_OUTPUT_CHARS = 65535
ANNOTATIONS_PER_REQUEST = 50
MAX_ANNOTATIONS = 500


class Mode(StrEnum):
    ENFORCE = "enforce"
    OBSERVE = "observe"


#: unverified and refuted call for different responses (the spec): never collapse them.
_CONCLUSION = {
    VerdictState.VERIFIED: "success",
    VerdictState.UNVERIFIED: "action_required",
    VerdictState.REFUTED: "failure",
}


def conclusion_for(state: VerdictState, mode: Mode) -> str:
    return "neutral" if mode is Mode.OBSERVE else _CONCLUSION[state]


@dataclass(frozen=True)
class Annotation:
    path: str
    line: int
    level: str  # notice | warning | failure
    title: str
    message: str

    def to_json(self) -> dict[str, JSON]:
        return {
            "path": self.path,
            "start_line": self.line,
            "end_line": self.line,
            "annotation_level": self.level,
            "title": visible(self.title)[:255],
            "message": visible(self.message)[:64000],
        }


@dataclass(frozen=True)
class CheckRunReport:
    name: str
    head_sha: str
    conclusion: str
    title: str
    summary: str
    text: str
    annotations: tuple[Annotation, ...]
    details_url: str | None = None
    #: What the check was decided for (the PR and its base), for the merge queue to read.
    external_id: str | None = None

    def annotation_batches(self) -> list[list[dict[str, JSON]]]:
        payloads = [a.to_json() for a in self.annotations]
        return [
            payloads[start:start + ANNOTATIONS_PER_REQUEST]
            for start in range(0, len(payloads), ANNOTATIONS_PER_REQUEST)
        ] or [[]]

    def output(self, annotations: Sequence[Mapping[str, JSON]]) -> dict[str, JSON]:
        return {
            "title": self.title,
            "summary": self.summary,
            "text": self.text,
            "annotations": list(annotations),
        }


def _unmet_pointer(entry: Unmet, loaded: LoadedClaim) -> str:
    raw: Mapping[str, Any] = loaded.document.raw
    if entry.mutation is not None:
        for index, mutation in enumerate(raw.get("mutations", [])):
            if mutation.get("id") == entry.mutation:
                return f"/mutations/{index}/id"
    own_evidence = len(raw.get("evidence", []))
    for index in entry.evidence:
        if index < own_evidence:
            return f"/evidence/{index}/check_type"
    if entry.requirement is not None and "policy" in raw:
        return "/policy"
    return ""


def claim_annotations(
    verdict: Verdict, loaded: LoadedClaim, repo_path: str
) -> list[Annotation]:
    """One annotation per unmet item, at the line of the mutation or evidence it concerns."""
    level = "failure" if verdict.state is VerdictState.REFUTED else "warning"
    found = []
    for entry in verdict.unmet:
        position = loaded.document.locate(_unmet_pointer(entry, loaded))
        subject = entry.mutation or entry.path or (
            str(entry.requirement) if entry.requirement else "claim")
        found.append(Annotation(  # an unclaimed changed file is annotated on that file
            path=entry.path or repo_path,
            line=1 if entry.path else (position.line if position else 1),
            level="failure" if entry.code == "contradicted" else level,
            title=f"{entry.code}: {subject}",
            message=entry.message,
        ))
    return found


def _title(verdict: Verdict, mode: Mode) -> str:
    prefix = f"{verdict.state}" + (" (observe mode: not blocking)" if mode is Mode.OBSERVE else "")
    headline = visible(verdict.reason.split(": ", 1)[-1])
    text = f"{prefix}: {headline}"
    return text if len(text) <= 250 else text[:247] + "..."


def record_text(record: Mapping[str, JSON], **layout: Any) -> str:
    """The record as JSON for the check's text: readable UTF-8, but every invisible format
    character escaped (`\\u202e` is the same character to a JSON reader)."""
    return visible(json.dumps(record, ensure_ascii=False, **layout), json_escape=True)


def _bounded_text(record: Mapping[str, JSON]) -> str:
    text = record_text(record, indent=2)
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    compact = record_text(record, separators=(",", ":"))
    if len(compact) <= MAX_OUTPUT_CHARS:
        return compact
    return (
        "The completed claim is larger than GitHub's 65535-character limit for check run text;"
        " it is in the job summary's artifact and the action's `claim-json` output file."
    )


def build_check_run(
    *,
    name: str,
    head_sha: str,
    verdict: Verdict,
    loaded: LoadedClaim,
    claim_repo_path: str,
    record: Mapping[str, JSON],
    mode: Mode,
    links: Sequence[str] = (),
    notes: Sequence[str] = (),
    extra_annotations: Sequence[Annotation] = (),
    details_url: str | None = None,
    sections: Sequence[tuple[str, Sequence[str]]] = (),
) -> CheckRunReport:
    """`sections`: (heading, bullet lines) added to the summary, e.g. what was not counted."""
    annotations = claim_annotations(verdict, loaded, claim_repo_path) + list(extra_annotations)
    blocks = markdown_blocks(loaded.claim, verdict, claim_repo_path, links, notes)
    for heading, lines in sections:
        if lines:
            blocks += [Block(("", f"### {heading}", "")),
                       Block(tuple(f"- {prose(line)}" for line in lines), what=heading.lower()),
                       Block(("",))]
    summary = fit_blocks(blocks, MAX_OUTPUT_CHARS - 400)
    if len(annotations) > MAX_ANNOTATIONS:
        summary += (
            f"\n_{len(annotations)} annotations; the first {MAX_ANNOTATIONS} are shown on the"
            " files._\n"
        )
        annotations = annotations[:MAX_ANNOTATIONS]
    return CheckRunReport(
        name=name,
        head_sha=head_sha,
        conclusion=conclusion_for(verdict.state, mode),
        title=_title(verdict, mode),
        summary=summary,
        text=_bounded_text(record),
        annotations=tuple(annotations),
        details_url=details_url,
    )


#: How much of a reason (which may quote the agent's claim) a check run shows in full.
MAX_REASON_CHARS = 4000


def _shown(reason: str, limit: int = MAX_REASON_CHARS) -> str:
    """A reason cut to `limit` characters, saying how much was cut (GitHub refuses the whole
    check run when its summary or text is over 65535 characters); invisible format
    characters shown escaped."""
    reason = visible(reason)
    if len(reason) <= limit:
        return reason
    return reason[:limit] + f" ... ({len(reason) - limit} more characters not shown)"


def failure_report(
    *, name: str, head_sha: str, reason: str, mode: Mode, details_url: str | None = None
) -> CheckRunReport:
    """What a gate that could not decide posts: a definite, blocking answer with the reason."""
    conclusion = "neutral" if mode is Mode.OBSERVE else "failure"
    return CheckRunReport(
        name=name,
        head_sha=head_sha,
        conclusion=conclusion,
        title="could not decide" + (" (observe mode)" if mode is Mode.OBSERVE else ""),
        summary=f"## Completion claim: could not decide\n\n{prose(reason, MAX_REASON_CHARS)}"
        "\n\nThe gate never"
        " passes because something went wrong; re-run the job once the cause is fixed.\n",
        text=_shown(reason),
        annotations=(),
        details_url=details_url,
    )


def unverified_without_claim_report(
    *, name: str, head_sha: str, reason: str, mode: Mode, details_url: str | None = None
) -> CheckRunReport:
    """No claim at all is `unverified` with the reason, never success."""
    return CheckRunReport(
        name=name,
        head_sha=head_sha,
        conclusion=conclusion_for(VerdictState.UNVERIFIED, mode),
        title=_shown(f"unverified: {reason}", 250),
        summary=f"## Completion claim: ⚠️ unverified\n\n**Reason:**"
        f" {prose(reason, MAX_REASON_CHARS)}\n",
        text=_shown(reason),
        annotations=(),
        details_url=details_url,
    )


def claims_section(considered: Sequence[str]) -> str:
    """Every claim the gate found for the PR and whether it counted, and why not (a PR-body
    claim beside a claim file is not read): on the check itself, not only in the job summary."""
    if not considered:
        return ""
    return "\n### Claims found\n\n" + "".join(f"- {prose(line)}\n" for line in considered)
