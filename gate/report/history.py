"""The claim's history on its PR, for the record and the summary (issue 15 item 3).

Pure: the earlier verdicts as read (`PriorHistory`) and this decision in, the record's
`x-verification.history` object and the summary's lines out. This decision is appended as
the newest head; its result is the verdict's, whatever came before: history is shown to a
reviewer and kept in the record, and never feeds a verdict.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gate.claim.history_facts import (
    MAX_KEPT_HEADS,
    FirstVerified,
    HeadVerdict,
    HistoryStatus,
    PriorHistory,
)
from gate.claim.model import JSON
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import plural

HEADING = "History on this PR"


def _when(moment: datetime | None) -> str | None:
    return format_rfc3339(moment) if moment is not None else None


def history_json(prior: PriorHistory, head_sha: str, result: str,
                 decided_at: datetime) -> dict[str, JSON]:
    """`x-verification.history`: the heads oldest first with this one last, the counts, and
    how complete they are. Unread or unreadable history starts no new count as if complete."""
    current = HeadVerdict(head_sha, result, decided_at)
    heads = (*prior.heads, current)[-MAX_KEPT_HEADS:]
    count = prior.decided_heads + 1
    first = prior.first_verified
    if first is None and result == "verified":
        first = FirstVerified(head_sha, decided_at, count)
    first_json: JSON = None if first is None else {
        "head_sha": first.head_sha, "decided_at": _when(first.decided_at), "push": first.push}
    return {
        "status": str(prior.status),
        "source": prior.source,
        "note": prior.note,
        "complete": prior.complete and prior.status is HistoryStatus.READ,
        "decided_heads": count,
        "heads": [{"head_sha": h.head_sha, "result": h.result,
                   "decided_at": _when(h.decided_at)} for h in heads],
        "first_verified": first_json,
    }


def history_lines(history: dict[str, Any]) -> list[str]:
    """The summary's section: each head's verdict, the first verified, the pushes it took."""
    status, note = history["status"], history.get("note")
    if status == str(HistoryStatus.UNREADABLE):
        return [f"history could not be read: {note}; this verdict does not depend on it"]
    if status == str(HistoryStatus.NOT_READ):
        return [f"history not read: {note}"]
    heads = history["heads"]
    lines = [f"{head['head_sha'][:12]}: {head['result']}"
             + (" (this decision)" if index == len(heads) - 1 else
                f" (decided {head['decided_at']})" if head["decided_at"] else "")
             for index, head in enumerate(heads)]
    complete = history["complete"]
    of = "" if complete else " of those known"
    first = history["first_verified"]
    if first is None:
        lines.append(f"not verified yet on any of {plural(history['decided_heads'], 'head')}"
                     f" decided{of}")
    else:
        lines.append(f"first verified on {first['head_sha'][:12]} at {first['decided_at']}:"
                     f" it took {plural(first['push'], 'push', 'pushes')}{of}")
    if len(heads) > 1:
        lines.append("verdicts in order: " + " → ".join(h["result"] for h in heads))
    if note:
        lines.append(f"note: {note}")
    return lines


def history_markdown(lines: list[str]) -> str:
    """The job summary's section (the check run's comes through build_check_run's sections)."""
    from gate.report.untrusted import prose

    return f"\n### {HEADING}\n\n" + "".join(f"- {prose(line)}\n" for line in lines)
