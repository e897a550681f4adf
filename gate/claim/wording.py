"""How counts and durations read to a person: "1 test", "3 tests", "2 h 17 min"."""

from __future__ import annotations

from collections.abc import Sequence

_UNITS = (("d", 86400), ("h", 3600), ("min", 60), ("s", 1))


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """`count` with the noun in the right number ("1 item", "0 items", "2 failures")."""
    return f"{count} {noun if count == 1 else (nouns or noun + 's')}"


def listed(noun: str, names: Sequence[str], nouns: str | None = None) -> str:
    """The noun in the number of the names it introduces: "key a", "keys a, b"."""
    return f"{(nouns or noun + 's') if len(names) > 1 else noun} {', '.join(names)}"


def duration(seconds: float) -> str:
    """A duration in its largest unit and the next one when that is not zero: "45 s",
    "3 min 5 s", "2 h 17 min", "1 h" (for 1 h 0 min 1 s), "3 d 4 h"; whole seconds
    (rounded down), never negative."""
    left = max(0, int(seconds))
    for index, (unit, size) in enumerate(_UNITS):
        if left >= size or size == 1:
            amount, rest = divmod(left, size)
            shown = f"{amount} {unit}"
            if index + 1 < len(_UNITS):
                next_unit, next_size = _UNITS[index + 1]
                if rest // next_size:
                    shown += f" {rest // next_size} {next_unit}"
            return shown
    return "0 s"
