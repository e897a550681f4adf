"""A whole number as a file, header or input writes it: ASCII digits only.

`str.isdigit()` also accepts digits `int()` refuses (`"²"`), and `int()` refuses more than
4,300 digits, so `text.isdigit() and int(text)` raises on hostile text; every place that reads
a number from outside reads it here instead.
"""

from __future__ import annotations

#: Python's default cap on the digits `int()` converts (`sys.get_int_max_str_digits`).
MAX_DIGITS = 4300


def decimal(text: str | None) -> int | None:
    """The number `text` writes (surrounding white space allowed), or None when it writes
    none: empty, a sign, other characters, non-ASCII digits, or more than MAX_DIGITS."""
    if text is None:
        return None
    digits = text.strip()
    if not digits or len(digits) > MAX_DIGITS or not (digits.isascii() and digits.isdigit()):
        return None
    return int(digits)
