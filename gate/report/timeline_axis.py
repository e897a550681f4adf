"""A time axis that stays readable when the times are far apart: gaps are cut out.

An agent's claim can date one mutation in 1970 and the next in 2026; on a linear axis every
other event would share one pixel. So the axis is made of segments: a gap between two
groups of events that is much longer than all other gaps together (and at least an hour)
is cut out and drawn as a break labelled with its length. Each segment gets width in
proportion to the events it holds (with a floor, so a lone event still has room: the crowded
part of the story gets the room) and its own ticks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from gate.claim.wording import duration

MAX_BREAKS = 3
#: A gap is cut when it is this many times longer than all the other gaps together.
DOMINANCE = 3.0
MIN_BREAK_SECONDS = 3600.0
MIN_SEGMENT_PX = 70.0
BREAK_PX = 26.0
TICK_PX = 95.0

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_DAY = 86400.0
_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
          _DAY, 2 * _DAY, 7 * _DAY, 14 * _DAY, 30 * _DAY, 91 * _DAY, 182 * _DAY, 365 * _DAY,
          730 * _DAY, 1826 * _DAY, 3652 * _DAY, 9131 * _DAY, 18262 * _DAY, 36524 * _DAY,
          182621 * _DAY, 365242 * _DAY)


def seconds(moment: datetime) -> float:
    return (moment - _EPOCH).total_seconds()


def moment(value: float) -> datetime:
    """The instant `value` seconds after 1970, clamped to what datetime can hold (the float
    of datetime.max's seconds rounds past it, so the clamp is on the datetime itself)."""
    try:
        return _EPOCH + timedelta(seconds=value)
    except OverflowError:
        return (datetime.max if value > 0 else datetime.min).replace(tzinfo=UTC)


@dataclass(frozen=True)
class Segment:
    """Times `start`..`end` (seconds since 1970) drawn from x `x0` to `x1`."""

    start: float
    end: float
    x0: float
    x1: float

    def x(self, value: float) -> float:
        if self.end <= self.start:
            return (self.x0 + self.x1) / 2
        return self.x0 + (value - self.start) / (self.end - self.start) * (self.x1 - self.x0)


@dataclass(frozen=True)
class Axis:
    segments: tuple[Segment, ...]

    def x(self, when: datetime) -> float:
        value = seconds(when)
        for segment in self.segments:
            if value <= segment.end:
                return segment.x(max(value, segment.start))
        return self.segments[-1].x1

    def breaks(self) -> list[tuple[float, str]]:
        """(x of the break's middle, the gap it stands for) between adjacent segments."""
        return [((left.x1 + right.x0) / 2, f"{_gap(right.start - left.end)} later")
                for left, right in zip(self.segments, self.segments[1:], strict=False)]


def _gap(length: float) -> str:
    years = length / (365.2425 * _DAY)
    return f"{years:.0f} years" if years >= 2 else duration(length)


def _groups(values: Sequence[float]) -> list[list[float]]:
    """Sorted distinct times, split at the widest gaps (at most MAX_BREAKS) when each of
    them is at least an hour and DOMINANCE times all the gaps left uncut together."""
    gaps = sorted(((values[i + 1] - values[i], i) for i in range(len(values) - 1)),
                  reverse=True)
    cut: set[int] = set()
    for count in range(min(MAX_BREAKS, len(gaps)), 0, -1):
        rest = sum(gap for gap, _ in gaps[count:])
        if all(gap >= max(MIN_BREAK_SECONDS, DOMINANCE * rest) for gap, _ in gaps[:count]):
            cut = {index for _, index in gaps[:count]}
            break
    groups: list[list[float]] = [[values[0]]] if values else []
    for i in range(1, len(values)):
        if i - 1 in cut:
            groups.append([])
        groups[-1].append(values[i])
    return groups


def build_axis(times: Sequence[datetime], x0: float, x1: float) -> Axis:
    """The axis for these times between x `x0` and `x1` (at least one time)."""
    values = sorted({seconds(t) for t in times}) or [0.0]
    groups = _groups(values)
    spans = []
    for group in groups:
        span = group[-1] - group[0]
        pad = max(span * 0.04, 30.0)
        spans.append((group[0] - pad, group[-1] + pad))
    room = (x1 - x0) - BREAK_PX * (len(spans) - 1)
    total = sum(len(group) for group in groups)
    widths = [max(MIN_SEGMENT_PX, room * len(group) / total) for group in groups]
    scale = room / sum(widths)
    segments, x = [], x0
    for (start, end), width in zip(spans, widths, strict=True):
        segments.append(Segment(start, end, x, x + width * scale))
        x += width * scale + BREAK_PX
    return Axis(tuple(segments))


@dataclass(frozen=True)
class Ticks:
    marks: tuple[tuple[float, str], ...]  # (x, label) of round times
    day: str | None  # the date, when the labels show only the time of day


def ticks(segment: Segment) -> Ticks:
    """Round times inside the segment, about one per TICK_PX pixels (at most 12)."""
    wanted = max(1, int((segment.x1 - segment.x0) // TICK_PX))
    span = segment.end - segment.start
    step = next((s for s in _STEPS if s * wanted >= span), _STEPS[-1])
    fmt = "%H:%M:%S" if step < 60 else "%H:%M" if step < _DAY else "%Y-%m-%d"
    value = -(-segment.start // step) * step
    found: list[tuple[float, str]] = []
    while value <= segment.end and len(found) < 12:
        found.append((segment.x(value), moment(value).strftime(fmt)))
        value += step
    day = moment(segment.start).strftime("%Y-%m-%d") if step < _DAY else None
    return Ticks(tuple(found), day)
