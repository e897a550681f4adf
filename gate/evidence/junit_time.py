"""Suite `timestamp` attributes: trusted only when they say which zone they are in.

Writers disagree: ISO 8601 with `Z` or an offset (gotestsum, vitest, nextest), ISO without
a zone (pytest, Surefire: local time of the runner), `... UTC` (TestNG), RFC 1123 (mocha's
xunit reporter), milliseconds or none. A time without a zone could be hours off, which is
enough to move a test run across the edit it should follow, so it is never read as UTC:
the reader falls back to the file's modification time and says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

_ISO = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[Tt ](?P<time>\d{2}:\d{2}(?::\d{2})?)(?P<frac>[.,]\d+)?"
    r"\s*(?P<zone>Z|z|UTC|GMT|[+-]\d{2}:?\d{2})?$"
)

#: Before this a timestamp is a placeholder (Go's zero time, the Unix epoch), not a run time.
EARLIEST_PLAUSIBLE = datetime(1980, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class ParsedTimestamp:
    at: datetime | None
    problem: str | None  # why `at` is None: no zone, unreadable, placeholder


def parse_suite_timestamp(text: str) -> ParsedTimestamp:
    """An aware datetime, or the reason the text cannot be trusted as one."""
    value = text.strip()
    match = _ISO.match(value)
    if match is not None:
        zone = match["zone"]
        if zone is None:
            return ParsedTimestamp(None, f"timestamp {text!r} has no time zone")
        if zone in ("Z", "z", "UTC", "GMT"):
            zone = "+00:00"
        elif ":" not in zone:
            zone = f"{zone[:3]}:{zone[3:]}"
        clock = match["time"] if match["time"].count(":") == 2 else f"{match['time']}:00"
        frac = (match["frac"] or "").replace(",", ".")[:7]
        try:
            at = datetime.fromisoformat(f"{match['date']}T{clock}{frac}{zone}")
        except ValueError:
            return ParsedTimestamp(None, f"timestamp {text!r} is not a valid date-time")
        return _plausible(at, text)
    # email is imported only for an RFC 2822 stamp, rare in JUnit: not at every start (issue 23)
    from email.utils import parsedate_to_datetime

    try:
        at = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return ParsedTimestamp(None, f"timestamp {text!r} is not a date-time the reader knows")
    if at.tzinfo is None:
        # RFC 2822 "-0000" means "zone unknown"; parsedate_to_datetime returns it naive.
        return ParsedTimestamp(None, f"timestamp {text!r} has no time zone")
    return _plausible(at, text)


def _plausible(at: datetime, text: str) -> ParsedTimestamp:
    if at < EARLIEST_PLAUSIBLE:
        return ParsedTimestamp(None, f"timestamp {text!r} is a placeholder, not a run time")
    return ParsedTimestamp(at, None)
