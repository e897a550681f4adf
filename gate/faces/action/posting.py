"""Where a decided PR goes: the poster seam between the per-PR flow and the world.

`run_gate` decides and builds check runs; a `Poster` delivers them. The Action's poster
(`ApiPoster`) creates the check runs through the API and writes the step's files (completed
claim, job summary, outputs); `claim-gate scan` passes a poster that only records, so the
same flow is read-only and prints exactly the requests the Action would have sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from gate.evidence.github.api import CheckRunForbidden, GitHubApi
from gate.faces.action.attestation_file import DecidedFile, action_statement, write_statement
from gate.faces.action.inputs import RunnerContext
from gate.faces.action.runner_files import (
    append_summary,
    workflow_command,
    write_outputs,
    write_step_file,
    write_timelines,
)
from gate.report.check_run import CheckRunReport


@dataclass(frozen=True)
class CheckRunRequests:
    """What posting one check run sends: the create body, then one update per further
    batch of 50 annotations (GitHub's limit per request)."""

    create: dict[str, Any]
    updates: tuple[dict[str, Any], ...]


def check_run_requests(report: CheckRunReport, completed_at: datetime) -> CheckRunRequests:
    batches = report.annotation_batches()
    create = {
        "name": report.name,
        "head_sha": report.head_sha,
        "status": "completed",
        "conclusion": report.conclusion,
        "completed_at": completed_at.isoformat().replace("+00:00", "Z"),
        "output": report.output(batches[0]),
        **({"details_url": report.details_url} if report.details_url else {}),
        **({"external_id": report.external_id} if report.external_id else {}),
    }
    return CheckRunRequests(create, tuple({"output": report.output(b)} for b in batches[1:]))


@dataclass(frozen=True)
class Published:
    """What a run leaves besides its check runs: the verdict for the step's outputs, the
    completed claim records (JSON text, one per claim file), the job summary parts, and the
    head commit with its decided claim files for the `attestation` output."""

    verdict: str
    unmet_count: int
    records: tuple[str, ...]
    summaries: tuple[str, ...]
    head_sha: str = ""
    decided: tuple[DecidedFile, ...] = ()
    #: The time line of each decided claim, as SVG (the `timeline-svg` output's files).
    timelines: tuple[str, ...] = ()
    #: A PR of this run (or a claim of one) was not decided: the run's verdict is not verified
    #: whatever the decided claims say, and so neither is its statement.
    undecided: bool = False


class Poster(Protocol):
    def post(self, report: CheckRunReport, completed_at: datetime) -> int | None:
        """Deliver one check run; its id when one was created."""

    def publish(self, published: Published) -> Path | None:
        """Leave the run's results behind; the completed claim's file, if one was written."""


def post_check_run(api: GitHubApi, report: CheckRunReport, now: datetime) -> int:
    requests = check_run_requests(report, now)
    posted = api.create_check_run(requests.create)
    for update in requests.updates:
        api.update_check_run(posted.id, update)
    return posted.id


def _fallback(report: CheckRunReport, summary_file: Path | None) -> list[str]:
    """A token that may not create check runs (a fork's pull_request): annotate the job."""
    lines = [workflow_command("error" if report.conclusion != "success" else "notice",
                              f"{report.title}", title=report.name)]
    lines += [
        workflow_command("error" if a.level == "failure" else "warning", a.message,
                         file=a.path, line=a.line, title=a.title)
        for a in report.annotations if a.path
    ]
    append_summary(summary_file, report.summary + (
        "\n> This token may not create check runs (a pull request from a fork). Run"
        " claim-gate in a separate `workflow_run` workflow so it can post the check; see the"
        " fork set-up (docs/forks.md).\n"
    ))
    return lines


@dataclass(frozen=True)
class ApiPoster:
    """The Action's: check runs through the API, the step's files on the runner."""

    api: GitHubApi
    runner: RunnerContext
    emit: Callable[[str], None]

    def post(self, report: CheckRunReport, completed_at: datetime) -> int | None:
        try:
            return post_check_run(self.api, report, completed_at)
        except CheckRunForbidden:
            for line in _fallback(report, self.runner.summary_file):
                self.emit(line)
            return None

    def publish(self, published: Published) -> Path | None:
        claim_json = ""
        if published.records:
            records = published.records
            text = records[0] if len(records) == 1 else "[" + ",\n".join(records) + "]\n"
            claim_json = write_step_file(self.runner.workspace, "completed-claim.json", text,
                                         "completed claim")
        for summary in published.summaries:
            append_summary(self.runner.summary_file, summary)
        pictures = write_timelines(self.runner.workspace, published.timelines)
        attestation = self._attest(published)  # the last file: none is left if one failed
        write_outputs(self.runner.output_file, {
            "verdict": published.verdict,
            "unmet-count": str(published.unmet_count),
            # Relative to the workspace: the container's /github/workspace is another path on
            # the runner, and later steps start in the workspace either way.
            "claim-json": claim_json,
            "attestation": attestation,
            "timeline-svg": "\n".join(pictures),
        })
        return self.runner.workspace / claim_json if claim_json else None

    def _attest(self, published: Published) -> str:
        """The verdict as an in-toto statement under the workspace; its path, or "" when no
        claim was decided."""
        head = published.head_sha
        uri = f"git+{self.runner.server_url.rstrip('/')}/{self.runner.repository}@{head}"
        return write_statement(self.runner.workspace,
                               action_statement(published.decided, head, uri,
                                                complete=not published.undecided))
