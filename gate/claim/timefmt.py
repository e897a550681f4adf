"""RFC 3339 timestamps with a zone, and nothing else.

A naive time is an error here, never silently UTC: an agent (or a runner in another
time zone) could otherwise move evidence across a mutation by hours.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

#: The patterns are compiled on first use (`re`'s own cache), not at import: most importers,
#: the pytest plugin among them, only format.
_RFC3339 = (
    r"^(?P<date>\d{4}-\d{2}-\d{2})[Tt](?P<time>\d{2}:\d{2}:\d{2})(?P<frac>\.\d{1,9})?"
    r"(?P<zone>[Zz]|[+-]\d{2}:\d{2})$"
)

#: `2026-08-27T18:04:02Z`: a spelling `datetime.fromisoformat` reads exactly as the long way
#: below does (with 'Z' as +00:00), and that cannot leave the years 1 to 9999 in UTC.
_PLAIN_UTC = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z"


class TimestampError(ValueError):
    """A timestamp that is not RFC 3339 with a zone."""


def parse_rfc3339(text: str) -> datetime:
    """Parse an RFC 3339 date-time that carries a zone; raise TimestampError otherwise."""
    if re.fullmatch(_PLAIN_UTC, text):  # most timestamps: whole seconds in UTC, read in C
        try:
            return datetime.fromisoformat(text)
        except ValueError:
            pass  # no such day or hour: said below, as for every other spelling
    match = re.fullmatch(_RFC3339, text)  # `$` alone would allow a trailing newline
    if match is None:
        if re.match(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?(\.\d+)?$", text):
            raise TimestampError(
                f"{text!r} has no time zone; write it with 'Z' or an offset such as '+02:00'"
            )
        raise TimestampError(
            f"{text!r} is not an RFC 3339 date-time such as '2026-08-27T18:04:02Z'"
        )
    frac = match["frac"] or ""
    # datetime keeps microseconds; nanosecond digits are cut, never rounded up across a second.
    frac = frac[:7]
    zone = match["zone"]
    zone = "+00:00" if zone in ("Z", "z") else zone
    try:
        moment = datetime.fromisoformat(f"{match['date']}T{match['time']}{frac}{zone}")
    except ValueError as exc:
        raise TimestampError(f"{text!r} is not a valid date-time: {exc}") from exc
    try:
        moment.astimezone(UTC)  # every report shows times in UTC
    except OverflowError:
        raise TimestampError(
            f"{text!r} is outside the years 1 to 9999 once converted to UTC"
        ) from None
    return moment


def format_rfc3339(moment: datetime) -> str:
    """Format an aware datetime in UTC with a 'Z'; naive datetimes are a programming error."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("refusing to format a naive datetime")
    text = moment.astimezone(UTC).isoformat()
    return text.replace("+00:00", "Z")
