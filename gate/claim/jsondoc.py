"""Reading a hostile JSON document: size cap, UTF-8, syntax, duplicate keys, nesting depth.

Claims, evidence records and policies all arrive from someone else's hands; each failure
becomes an InvalidInput naming the file and line:column.
"""

from __future__ import annotations

import json
import os
import re
from itertools import chain
from pathlib import Path
from typing import Any

from gate.claim.errors import InvalidInput
from gate.claim.regular_file import open_regular

MAX_DEPTH = 64


def read_capped(path: Path, max_bytes: int, what: str) -> bytes:
    """Read at most `max_bytes` from `path`, refusing larger files before reading them, and
    anything but a regular file (a FIFO would hang), judged on the opened descriptor."""
    source = str(path)
    try:
        with open_regular(path, source, what) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise InvalidInput(
                    source, None, f"the {what} is {size} bytes, over the {max_bytes}-byte limit",
                    "shrink it, or raise the limit on purpose",
                )
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        missing = what if what.endswith(" file") else f"{what} file"
        raise InvalidInput(source, None, f"no such {missing}", "check the path") from None
    except IsADirectoryError:
        raise InvalidInput(source, None, f"the {what} path is a directory, not a file") from None
    except OSError as exc:
        raise InvalidInput(source, None, f"cannot read the {what}: {exc.strerror}") from None
    if len(data) > max_bytes:
        raise InvalidInput(
            source, None, f"the {what} is over the {max_bytes}-byte limit",
            "shrink it, or raise the limit on purpose",
        )
    return data


def decode_utf8(data: bytes, source: str, what: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InvalidInput(
            source, f"{line}:{column}", f"the {what} is not valid UTF-8 ({exc.reason})",
            "save it as UTF-8",
        ) from None
    return text.removeprefix("\ufeff")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Built in C; only a document whose object lost a key to a repeat looks for which.
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise _DuplicateKeyError(key)
            seen.add(key)
    return result


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str, source: str, what: str) -> Any:
    """Parse JSON strictly: no duplicate keys, no NaN/Infinity, at most MAX_DEPTH deep.

    Parsed first without the pairs hook (the C parser then builds each object itself, in
    half the time: issue 23), and a key lost to a repeat is then ruled out by counting
    (`_no_key_lost`); a text that the count cannot clear, or that fails in any way, is
    parsed again the long way, which finds and names what is wrong as it always did."""
    if not text.strip():
        raise InvalidInput(source, None, f"the {what} is empty", f"write the {what} as JSON")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
        keys = _check_depth(value, source, what, text)
    except (ValueError, RecursionError, InvalidInput):
        return _parse_long_way(text, source, what)
    if not _no_key_lost(text, keys):
        return _parse_long_way(text, source, what)
    return value


#: A colon right after JSON white space: a key whose closing quote does not touch its colon.
_SPACED_COLON = re.compile(r":(?<=[ \t\n\r]:)")


def _no_key_lost(text: str, keys: int) -> bool:
    """Whether no object of the document lost a key to a repeat, by counting: `keys` (what
    the parsed objects hold) is the text's key tokens less those lost. Where no
    colon follows white space, every key's closing quote touches its colon, so each key
    token is one `":` of the text (the others are inside strings): the count of `":` is at
    least the key tokens, and equal to `keys` only when none was lost."""
    return text.count('":') == keys and _SPACED_COLON.search(text) is None


def _parse_long_way(text: str, source: str, what: str) -> Any:
    """Each object through the pairs hook (a repeated key named), then the nesting walk."""
    try:
        value = json.loads(
            text, object_pairs_hook=_no_duplicate_keys, parse_constant=_refuse_constant
        )
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            source, f"{exc.lineno}:{exc.colno}", f"the {what} is not valid JSON: {exc.msg}"
        ) from None
    except _DuplicateKeyError as exc:
        raise InvalidInput(
            source, None, f"the key {exc.key!r} appears twice in one object",
            "a reader could take either value; keep one",
        ) from None
    except RecursionError:
        raise InvalidInput(source, None, f"the {what} is nested too deeply") from None
    except ValueError as exc:
        raise InvalidInput(source, None, f"the {what} is not valid JSON: {exc}") from None
    _check_depth(value, source, what, text)
    return value


_CONTAINERS = (dict, list)  # a tuple: isinstance with `dict | list` is slower per call


def _check_depth(value: Any, source: str, what: str, text: str) -> int:
    """Refuse nesting past MAX_DEPTH and lone surrogates, one level at a time.

    Every value is a level, a scalar too (the root is level 1): a non-empty container at
    level MAX_DEPTH is refused whatever it holds, so whether the strings are looked at cannot
    move the limit. They are looked at only when a lone surrogate could be there: it is
    spelt by a \\u escape (or is in a text not decoded from UTF-8); without one, only the
    containers are walked (issue 23: this walk was a tenth of a large claim's time).
    Returns how many keys the objects hold."""
    strings = _SURROGATE_ESCAPE.search(text) is not None or not _encodes(text)
    pending: list[str] = [value] if strings and isinstance(value, str) else []
    dicts: list[dict[str, Any]] = [value] if isinstance(value, dict) else []
    lists: list[list[Any]] = [value] if isinstance(value, list) else []
    depth = 1
    keys = 0  # the keys every object holds, for `_no_key_lost`
    while dicts or lists or pending:  # pending: this level's strings, when looked at
        keys += sum(map(len, dicts))
        if strings:
            for found in chain(pending, chain.from_iterable(dicts)):  # strings and keys
                _check_unicode(found, source, what, text)
        if depth == MAX_DEPTH and (any(dicts) or any(lists)):  # a level past it is held
            raise InvalidInput(
                source, None, f"the {what} is nested deeper than {MAX_DEPTH} levels"
            )
        if strings:
            members = [child for item in dicts for child in item.values()]
            members += [child for item in lists for child in item]
            pending = [child for child in members if isinstance(child, str)]
            members = [child for child in members if isinstance(child, _CONTAINERS)]
        else:
            members = [child for item in dicts for child in item.values()
                       if isinstance(child, _CONTAINERS)]
            members += [child for item in lists for child in item
                        if isinstance(child, _CONTAINERS)]
        dicts = [child for child in members if isinstance(child, dict)]
        lists = [child for child in members if isinstance(child, list)]
        depth += 1
    return keys


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_SURROGATE_ESCAPE = re.compile(r"\\u[dD]([89abAB]|[c-fC-F])[0-9a-fA-F]{2}")


def _check_unicode(value: str, source: str, what: str, text: str) -> None:
    """JSON's \\uD800 escapes can spell a lone surrogate: no character, and no UTF-8 either.
    Refuse it here, or it would fail later when a report is written (exit 4, not 3)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            source, _lone_surrogate_place(text),
            f"the {what} holds a \\u escape of a lone surrogate, which is not a character",
            "escape whole characters only: a high surrogate must be followed by a low one",
        ) from None


def _lone_surrogate_place(text: str) -> str | None:
    """Line:column of the first \\u escape of an unpaired surrogate (best effort)."""
    pending: re.Match[str] | None = None  # a high surrogate waiting for its low half
    for found in _SURROGATE_ESCAPE.finditer(text):
        high = found.group(1) in "89abAB"
        if pending is not None:
            if not high and found.start() == pending.end():
                pending = None
                continue
            return _line_column(text, pending.start())
        if not high:
            return _line_column(text, found.start())
        pending = found
    return None if pending is None else _line_column(text, pending.start())


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f"{line}:{column}"
