"""The time line as a self-contained SVG: no script, no link, no external reference.

One row per event, grouped in lanes (mutations, the head's push, CI runs, probes, the
claim's own evidence, the decision); the row's name on the left, its marker at its time on
the right with the engine's mark beside it, and a dashed guide down the picture at each
mutation, the push and the decision, so "was this after the change?" is read off by eye.

Names come from the agent's claim: they are put on one line, stripped of control and
bidirectional-override characters, cut to fit, and written through ElementTree, which
escapes them for XML (a `]]>` or `<script>` is text, never markup).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from gate.claim.timefmt import format_rfc3339
from gate.report.junit_xml import xml_safe
from gate.report.timeline import Event, Kind, Lane, Mark, Timeline
from gate.report.timeline_axis import Axis, build_axis, ticks

WIDTH = 1400
#: Columns wide enough for a workflow run's whole name and the engine's longest usual note
#: (tests/test_timeline_render.py measures the drawn text against them).
NOTE_X = 512
PLOT_X0, PLOT_X1 = 880.0, 1380.0
TOP = 92
ROW = 20
NAME_CHARS = 72
NOTE_CHARS = 56

_SVG_NS = "http://www.w3.org/2000/svg"
_ONE_LINE = re.compile(r"[\r\n\t\v\f\x1c-\x1e\x85\u2028\u2029]+")
#: Control characters and the bidirectional overrides that could reorder what a row says.
_HIDDEN = re.compile(r"[\x00-\x08\x0e-\x1b\x7f\u200e\u200f\u202a-\u202e\u2066-\u2069]")

#: (colour, filled, shape) per mark, no two alike; the words are drawn too, colour is never
#: alone. "Too early" is the shape of what it came before: a mutation's diamond, the push's
#: triangle, drawn open.
STYLE = {
    Mark.COUNTS: ("#1a7f37", True, "circle"),
    Mark.CONTRADICTS: ("#d1242f", True, "cross"),
    Mark.BEFORE_MUTATION: ("#bc4c00", False, "diamond"),
    Mark.BEFORE_PUSH: ("#bc4c00", False, "triangle"),
    Mark.STALE: ("#9a6700", True, "square"),
    Mark.SELF_ATTESTED: ("#6e7781", False, "square"),
    Mark.NOT_COUNTED: ("#6e7781", False, "circle"),
}
_NEVER = datetime(1970, 1, 1, tzinfo=UTC)  # a legend's sample marker is at no time
_GUIDES = {Kind.MUTATION: "#8250df", Kind.PUSH: "#0969da", Kind.DECISION: "#1f2328",
           Kind.CUTOFF: "#9a6700"}


def plain(text: str, limit: int) -> str:
    """The agent's text as one line of at most `limit` characters that XML can carry."""
    text = _HIDDEN.sub("", _ONE_LINE.sub(" ", xml_safe(text)))
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _el(parent: ET.Element, tag: str, text: str | None = None, /,
        **attrs: str | float) -> ET.Element:
    element = ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): str(v)
                                          for k, v in attrs.items()})
    if text is not None:
        element.text = text
    return element


def _marker(parent: ET.Element, event: Event, x: float, y: float) -> None:
    if event.kind is Kind.MUTATION:
        _el(parent, "path", d=f"M{x:.1f} {y - 6} l6 6 l-6 6 l-6 -6 z", fill="#8250df")
    elif event.kind is Kind.PUSH:
        _el(parent, "path", d=f"M{x:.1f} {y - 6} l6 11 h-12 z", fill="#0969da")
    elif event.kind in (Kind.DECISION, Kind.CUTOFF):
        _el(parent, "rect", x=f"{x - 2:.1f}", y=y - 7, width=4, height=14,
            fill=_GUIDES[event.kind])
    else:
        _evidence_marker(parent, event.mark or Mark.NOT_COUNTED, x, y)


def _evidence_marker(parent: ET.Element, mark: Mark, x: float, y: float) -> None:
    colour, filled, shape = STYLE[mark]
    paint: dict[str, str | float] = {"fill": colour if filled else "#ffffff", "stroke": colour,
                                     "stroke_width": 2}
    if shape == "circle":
        _el(parent, "circle", cx=f"{x:.1f}", cy=y, r=5, **paint)
    elif shape == "square":
        _el(parent, "rect", x=f"{x - 5:.1f}", y=y - 5, width=10, height=10, **paint)
    elif shape == "diamond":
        _el(parent, "path", d=f"M{x:.1f} {y - 6} l6 6 l-6 6 l-6 -6 z", **paint)
    elif shape == "triangle":
        _el(parent, "path", d=f"M{x:.1f} {y - 6} l6 11 h-12 z", **paint)
    else:
        _el(parent, "path", d=f"M{x - 5:.1f} {y - 5} l10 10 m0 -10 l-10 10",
            stroke=colour, stroke_width=3)


def note_of(event: Event) -> str:
    if event.kind is not Kind.EVIDENCE:
        return event.detail
    return f"{event.mark}" + (f" ({event.detail})" if event.detail else "")


def _row(parent: ET.Element, event: Event, axis: Axis, y: float) -> None:
    _el(parent, "text", plain(event.name, NAME_CHARS), x=14, y=y + 4, font_size=12,
        fill="#1f2328")
    _marker(parent, event, axis.x(event.at), y)
    colour = STYLE[event.mark][0] if event.mark else "#59636e"
    _el(parent, "text", plain(note_of(event), NOTE_CHARS), x=NOTE_X, y=y + 4, font_size=11,
        fill=colour)


def _axis(parent: ET.Element, axis: Axis, bottom: float) -> None:
    for segment in axis.segments:
        found = ticks(segment)
        for x, label in found.marks:
            _el(parent, "line", x1=f"{x:.1f}", x2=f"{x:.1f}", y1=TOP - 20, y2=bottom,
                stroke="#d8dee4", stroke_width=1)
            _el(parent, "text", label, x=f"{x:.1f}", y=TOP - 24, font_size=11,
                text_anchor="middle", fill="#59636e")
        if found.day:
            _el(parent, "text", found.day, x=f"{segment.x0:.1f}", y=TOP - 38, font_size=10,
                fill="#59636e")
        _el(parent, "line", x1=f"{segment.x0:.1f}", x2=f"{segment.x1:.1f}", y1=TOP - 20,
            y2=TOP - 20, stroke="#59636e", stroke_width=1.5)


def _breaks(parent: ET.Element, axis: Axis, bottom: float) -> None:
    """A cut-out gap: a band across the rows, labelled with how long the gap is."""
    for x, gap in axis.breaks():
        _el(parent, "rect", x=f"{x - 9:.1f}", y=TOP - 26, width=18, height=bottom - TOP + 26,
            fill="#eaeef2")
        _el(parent, "text", gap, x=f"{x - 4:.1f}", y=TOP - 6, font_size=10, fill="#1f2328",
            transform=f"rotate(90 {x - 4:.1f} {TOP - 6})")


def _legend(parent: ET.Element, y: float) -> float:
    x = 14.0
    for kind, words in ((Kind.MUTATION, "mutation (the agent's time)"),
                        (Kind.PUSH, "head push (GitHub's time)"),
                        (Kind.DECISION, "decision")):
        _marker(parent, Event(Lane.DECISION, kind, _NEVER, ""), x + 5, y)
        _el(parent, "text", words, x=f"{x + 14:.1f}", y=y + 4, font_size=11, fill="#59636e")
        x += 24 + 6.2 * len(words)
    for mark, (colour, _filled, _shape) in STYLE.items():
        words = str(mark)
        width = 24 + 6.2 * len(words)
        if x + width > WIDTH - 10:
            x, y = 14.0, y + 18
        _evidence_marker(parent, mark, x + 5, y)
        _el(parent, "text", words, x=f"{x + 14:.1f}", y=y + 4, font_size=11, fill=colour)
        x += width
    return y + 22


def render_svg(timeline: Timeline) -> str:
    """The picture as SVG text (UTF-8, with its XML declaration)."""
    rows: list[tuple[Lane | None, Event | None]] = []
    lane_now: Lane | None = None
    for event in timeline.events:
        if event.lane is not lane_now:
            rows.append((event.lane, None))
            lane_now = event.lane
        rows.append((None, event))
    bottom = TOP + ROW * len(rows)
    root = ET.Element("svg", {"xmlns": _SVG_NS, "font-family": "DejaVu Sans, Arial, sans-serif",
                              "role": "img"})
    _el(root, "title", plain(f"Completion claim time line: {timeline.state}", 200))
    _el(root, "rect", x=0, y=0, width="100%", height="100%", fill="#ffffff")
    _el(root, "text", f"Completion claim time line: {timeline.state}", x=14, y=22,
        font_size=16, font_weight="bold", fill="#1f2328")
    _el(root, "text", f"decided at {format_rfc3339(timeline.decided_at)}; times in UTC;"
        " each row is one event, drawn at its time", x=14, y=40, font_size=11, fill="#59636e")
    axis = build_axis([e.at for e in timeline.events], PLOT_X0, PLOT_X1)
    _axis(root, axis, bottom)
    for event in timeline.events:
        if event.kind in _GUIDES:
            x = f"{axis.x(event.at):.1f}"
            _el(root, "line", x1=x, x2=x, y1=TOP - 20, y2=bottom, stroke=_GUIDES[event.kind],
                stroke_width=1, stroke_dasharray="4 3", opacity=0.55)
    y = float(TOP)
    for lane, shown in rows:
        if shown is None and lane is not None:
            _el(root, "rect", x=6, y=y - 9, width=WIDTH - 12, height=ROW - 2, fill="#f6f8fa")
            _el(root, "text", str(lane), x=10, y=y + 5, font_size=12, font_weight="bold",
                fill="#1f2328")
        elif shown is not None:
            _row(root, shown, axis, y + 2)
        y += ROW
    _breaks(root, axis, bottom)
    y = _legend(root, y + 14)
    if timeline.left_out:
        _el(root, "text", timeline.left_out, x=14, y=y + 4, font_size=11, fill="#bc4c00")
        y += 20
    height = int(y + 8)
    root.set("width", str(WIDTH))
    root.set("height", str(height))
    root.set("viewBox", f"0 0 {WIDTH} {height}")
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
