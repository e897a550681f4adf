"""The time line as a Mermaid gantt chart, for the job summary (GitHub renders Mermaid).

Every event is a milestone at its time, in a section per lane, named with the engine's
mark. Mermaid's gantt grammar gives meaning to `:`, `#`, `%`, `;`, a line break and the
words a line starts with (`click` makes a link), and the block sits in a Markdown fence
that a backtick could close. So a name from the agent keeps only letters, digits, spaces
and `_.,/()+=-'!?*`, every line starts with the gate's own word, and the fence holds no
backtick: the agent's text cannot end the block, add a statement, a link or HTML.

Mermaid reads the times as the viewer's local time; they are written as UTC digits, so the
axis shows UTC whatever the viewer's zone (the title says so).
"""

from __future__ import annotations

from datetime import UTC, datetime

from gate.report.timeline import Event, Kind, Mark, Timeline

LABEL_CHARS = 90
NAME_CHARS = 50
NOTE_CHARS = 45
_KEPT = frozenset(" _.,/()+=-'!?*")
_TAGS = {
    Mark.COUNTS: "active, ",
    Mark.CONTRADICTS: "crit, ",
    Mark.BEFORE_MUTATION: "crit, ",
    Mark.BEFORE_PUSH: "crit, ",
    Mark.STALE: "crit, ",
    Mark.SELF_ATTESTED: "done, ",
    Mark.NOT_COUNTED: "done, ",
}
_WORD = {Kind.MUTATION: "mutation", Kind.PUSH: "push", Kind.EVIDENCE: "evidence",
         Kind.CUTOFF: "limit", Kind.DECISION: "decision"}


def mermaid_text(text: str, limit: int = LABEL_CHARS) -> str:
    """Text Mermaid's gantt grammar and Markdown read as plain words, on one line."""
    kept = "".join(c if c.isalnum() or c in _KEPT else " " for c in text)
    words = " ".join(kept.split())
    return words if len(words) <= limit else words[:limit - 3].rstrip() + "..."


def _when(at: datetime) -> str:
    """The instant in UTC, as the chart's title says its times are (a claim may give +02:00;
    the loader refuses times outside the calendar once in UTC)."""
    moment = at.astimezone(UTC)
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
            f" {moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}")


def event_label(event: Event) -> str:
    """The milestone's words: the gate's word for the kind, the name, the mark."""
    note = f"{event.mark}" + (f" {event.detail}" if event.detail else "") \
        if event.kind is Kind.EVIDENCE else event.detail
    return f"{mermaid_text(f'{_WORD[event.kind]} {event.name}', NAME_CHARS)} -" \
        f" {mermaid_text(note, NOTE_CHARS)}"


def _axis_format(timeline: Timeline) -> str:
    times = [e.at for e in timeline.events]
    span = (max(times) - min(times)).total_seconds()
    if span < 86400:
        return "%H:%M"
    return "%m-%d %H:%M" if span < 60 * 86400 else "%Y-%m-%d"


def render_mermaid(timeline: Timeline) -> str:
    """A ```mermaid block (and a line on what it left out), for a Markdown summary."""
    lines = ["```mermaid", "gantt",
             f"    title Completion claim time line, {timeline.state} (times in UTC)",
             "    dateFormat YYYY-MM-DD HH:mm:ss", f"    axisFormat {_axis_format(timeline)}",
             "    todayMarker off"]
    lane = None
    for number, event in enumerate(timeline.events):
        if event.lane is not lane:
            lane = event.lane
            lines.append(f"    section {mermaid_text(str(lane))}")
        tags = _TAGS[event.mark] if event.mark else "active, " if event.kind is Kind.PUSH else ""
        lines.append(f"    {event_label(event)} :{tags}milestone, r{number},"
                     f" {_when(event.at)}, 0s")
    lines.append("```")
    text = "\n".join(lines) + "\n"
    if timeline.left_out:
        text += f"\n_{timeline.left_out}._\n"
    return text
