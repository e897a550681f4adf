"""A maintainer's acceptance, shown beside the engine's verdict (never instead of it).

Pure: the check run keeps the verdict's summary and record and gains the acceptance (decided by
the engine's rule, `gate/engine/override.py`, in the pipeline): a `success` conclusion, a title
saying who accepted it, a summary section with both, and the record's `x-override`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from gate.claim.model import JSON, VerdictState
from gate.claim.review_facts import Override
from gate.claim.timefmt import format_rfc3339
from gate.engine.override import OverrideDecision, accept_line
from gate.report.check_run import MAX_OUTPUT_CHARS, CheckRunReport, Mode, record_text
from gate.report.markdown import cell
from gate.report.untrusted import visible


def override_section(override: Override | None, refused: Sequence[str], claim_sha256: str,
                     *, acceptable: bool = False) -> str:
    """Markdown for the summary: the acceptance that counts, and those that did not;
    `acceptable`: a verdict short of verified, with the command that would accept this claim
    (bound to its digest, so an edited claim is not accepted)."""
    lines = []
    if override is not None:
        lines += [
            f"## ✅ Accepted by @{override.login}",
            "",
            f"The gate's verdict is **{override.accepted_state}** (below, unchanged); a person"
            f" with {override.permission} permission accepted the claim"
            f" `sha256:{claim_sha256}` with an approving review on"
            f" {override.commit_id[:12]} at {format_rfc3339(override.at)}:",
            "",
            f"> {cell(override.reason)}",
            "",
        ]
    if refused:
        lines += ["### Acceptances that do not count", ""]
        lines += [f"- {cell(line)}" for line in refused]
        lines.append("")
    if override is None and acceptable:
        lines += ["### Accepting this claim", "",
                  f"The claim decided is `sha256:{claim_sha256}`. A maintainer accepts it with an"
                  " approving review of the head holding the line",
                  "", "```text", accept_line(claim_sha256), "```", "",
                  "An edit of the claim (a push, or an edited PR body) voids an acceptance.", ""]
    return "\n".join(lines) + ("\n" if lines else "")


def accepted_check_run(
    report: CheckRunReport, override: Override, record: Mapping[str, JSON], mode: Mode
) -> CheckRunReport:
    """The check for a verdict a maintainer accepted: success, with both in the summary."""
    title = visible(
        f"accepted by @{override.login} ({override.accepted_state}): {override.reason}")
    summary = override_section(override, (), override.claim_sha256) + report.summary
    text = record_text(record, indent=2)
    return replace(
        report,
        conclusion="neutral" if mode is Mode.OBSERVE else "success",
        title=title if len(title) <= 250 else title[:247] + "...",
        summary=summary if len(summary) <= MAX_OUTPUT_CHARS else report.summary,
        text=text if len(text) <= MAX_OUTPUT_CHARS else report.text,
    )


def with_override(
    decision: OverrideDecision, report: CheckRunReport, record: dict[str, Any], summary: str,
    mode: Mode, claim_sha256: str, state: VerdictState,
) -> tuple[CheckRunReport, str]:
    """The check and summary with the acceptance the engine's rule found (and the refused
    ones) beside the verdict, or the line that would accept this claim; the record gains
    `x-override` / `x-override-refused`."""
    if decision.refused:
        record["x-override-refused"] = list(decision.refused)
    if decision.override is None:
        section = override_section(None, decision.refused, claim_sha256,
                                   acceptable=state is not VerdictState.VERIFIED)
        if not section:
            return report, summary
        return replace(report, summary=report.summary + "\n" + section), summary + "\n" + section
    record["x-override"] = decision.override.as_json()
    section = override_section(decision.override, decision.refused, claim_sha256)
    return accepted_check_run(report, decision.override, record, mode), section + summary
