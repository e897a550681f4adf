"""What one PR's decided claim posts: its check run, completed record and job summary.

The renderers are in `gate/report/`; this is where a claim decided by the pipeline meets them
with the PR's facts (its history, the tests removed, what was not counted, the acceptance the
engine's rule found), so the Action and `scan` post exactly the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.github_facts import Arrival
from gate.claim.history_facts import PriorHistory
from gate.claim.model import JSON
from gate.claim.trust_policy import RemovedTests
from gate.engine.removed_tests import removal_lines
from gate.engine.results import Verdict
from gate.evidence.github.claims import ClaimSearch, FoundClaim
from gate.evidence.github.gathering import PullFacts
from gate.pipeline import Decision
from gate.report.check_run import (
    Annotation,
    CheckRunReport,
    Mode,
    build_check_run,
    claims_section,
    unverified_without_claim_report,
)
from gate.report.history import HEADING, history_json, history_lines, history_markdown
from gate.report.override import with_override
from gate.report.record import completed_record
from gate.report.renderers import RenderInput, render
from gate.report.untrusted import prose
from gate.report.verification import verification_summary


@dataclass(frozen=True)
class DecidedClaim:
    """One claim file of a PR, with everything it posts (verdict None: it could not be read)."""

    found: FoundClaim
    report: CheckRunReport
    verdict: Verdict | None
    record_json: str | None
    summary: str
    accepted: bool = False  # a maintainer accepted the verdict (it stays as decided)
    timeline_svg: str | None = None  # the time line picture (`timeline-svg` output)


@dataclass(frozen=True)
class Judged:
    """One claim file decided, before its reports are built."""

    found: FoundClaim
    decision: Decision


@dataclass(frozen=True)
class Shown:
    """Where and how a PR's checks are shown: the check name, mode and the job's page."""

    check_name: str
    mode: Mode
    details_url: str | None


def check_name(found: FoundClaim, shown: Shown, search: ClaimSearch) -> str:
    several = len(search.found) > 1
    return f"{shown.check_name} ({found.repo_path or 'PR body'})" if several \
        else shown.check_name


def unreadable_claim(found: FoundClaim, exc: InvalidInput, head_sha: str, shown: Shown,
                     search: ClaimSearch) -> DecidedClaim:
    """A claim that cannot be read: unverified at once, annotated at the line that says why."""
    report = unverified_without_claim_report(
        name=check_name(found, shown, search), head_sha=head_sha, mode=shown.mode,
        reason=f"the completion claim cannot be read: {exc}", details_url=shown.details_url,
    )
    report = replace(report, summary=report.summary + claims_section(search.considered))
    if found.repo_path:
        line = int(exc.place.split(":")[0]) if exc.place and exc.place[0].isdigit() else 1
        report = replace(report, annotations=(Annotation(
            path=found.repo_path, line=line, level="failure",
            title="invalid completion claim", message=report.text),))
    return DecidedClaim(found, report, None, None, report.summary)


def _record(judged: Judged, repository: str, facts: PullFacts, search: ClaimSearch,
            kept: dict[str, JSON], arrival: Arrival) -> dict[str, JSON]:
    found, loaded = judged.found, judged.decision.loaded
    verdict, ci = judged.decision.verdict, judged.decision.observed
    record = completed_record(loaded.document.raw, verdict)
    record["x-claim-gate-notes"] = list(ci.notes)
    record["x-claim-gate-claims"] = list(search.considered)
    record["x-verification"] = verification_summary(
        repository=repository, pull=facts.pull, verdict=verdict, claim_label=found.label,
        claim_bytes=found.data, inputs=ci.inputs,
        arrival=arrival, comparisons=ci.test_sets) | {"history": kept}
    return record


def report_claim(judged: Judged, repository: str, facts: PullFacts, shown: Shown,
                 search: ClaimSearch, prior: PriorHistory) -> DecidedClaim:
    """The check run, record and summary of a decided claim, with the PR's history."""
    found, loaded = judged.found, judged.decision.loaded
    verdict, ci = judged.decision.verdict, judged.decision.observed
    head_sha = facts.pull.head_sha
    if ci.pull is None or ci.pull.arrival is None:
        raise CouldNotDecide("GitHub's collector recorded no arrival for the head")
    kept = history_json(prior, head_sha, str(verdict.state), verdict.decided_at)
    history = history_lines(kept)
    record = _record(judged, repository, facts, search, kept, ci.pull.arrival)
    removed = removal_lines(ci.test_sets)
    test_annotations = [
        Annotation(path=t.file, line=t.line or 1, level="failure",
                   title=f"{t.outcome.label}: {t.identity}", message=t.message or t.identity)
        for t in ci.failing if t.file
    ] + [
        Annotation(path=found.repo_path or ".claim.json", line=1,
                   level="warning" if facts.trust.removed_tests is RemovedTests.WARN
                   else "failure", title="tests removed or skipped", message=line)
        for line in removed
    ]
    report = build_check_run(
        name=check_name(found, shown, search), head_sha=head_sha, verdict=verdict,
        loaded=loaded, claim_repo_path=found.repo_path or ".claim.json", record=record,
        mode=shown.mode, links=ci.links, extra_annotations=test_annotations,
        details_url=shown.details_url,
        sections=[("Claims found", search.considered),
                  ("Tests removed or skipped on the head", removed), ("Not counted", ci.notes),
                  (HEADING, history)],
    )
    given = RenderInput(loaded, verdict, label=found.label, links=ci.links,
                        arrival=ci.pull.arrival)
    summary = job_summary(render("markdown", given), removed, ci.notes, search.considered,
                          history)
    accepted = judged.decision.override
    report, summary = with_override(accepted, report, record, summary, shown.mode,
                                    loaded.document.sha256, verdict.state)
    return DecidedClaim(found, report, verdict, json.dumps(record, indent=2), summary,
                        accepted.override is not None, render("svg", given))


def job_summary(summary: str, removed: Sequence[str], notes: Sequence[str],
                considered: Sequence[str], history: list[str]) -> str:
    if removed:
        summary += "\n### Tests removed or skipped on the head\n\n" + "\n".join(
            f"- {prose(line)}" for line in removed) + "\n"
    if notes:
        summary += "\n### Not counted\n\n" + "\n".join(f"- {prose(n)}" for n in notes) + "\n"
    summary += "\n### Claims found\n\n" + "".join(f"- {prose(n)}\n" for n in considered)
    return summary + history_markdown(history)
