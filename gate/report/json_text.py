"""JSON text indented by two, byte for byte what `json.dumps(value, indent=2,
ensure_ascii=False)` writes, without its per-value cost.

With `indent`, the standard library leaves its C encoder and walks every value through a
stack of Python generators: a fifth of verifying a 10,000-mutation claim (issue 23). Here the
document is written a column at a time: all the values that sit at one place of the shape (the
`covers` of every evidence item, the `at` of every mutation) are written together, and nothing
is done in Python per scalar. A column of scalars, or of containers of scalars, is one C-encoder
call, split apart again on a separator the encoder never writes inside a string; the objects
of a column that hold containers are grouped by their keys, each key's values become a column
of their own, and each object is filled into its group's template by `%` in C; the lists of a
column are flattened into one column and joined back. A value of any other type (an enum, a
subclass of str, a key that is not a string, an object met again inside itself) sends the
whole document to `json.dumps`, so the text never differs.
"""

from __future__ import annotations

import json
import json.encoder
from collections.abc import Sequence
from itertools import chain, repeat
from json.encoder import encode_basestring
from operator import is_
from typing import Any

#: The standard library's C encoder (None on an interpreter without the accelerator).
c_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)

_SCALARS = frozenset({str, int, float, bool, type(None)})
_STRINGS = frozenset({str})
_LISTS = frozenset({list, tuple})
_DICTS = frozenset({dict})
_INFINITY = float("inf")
#: Between two values of one C call: a comma and a NUL, which the encoder never writes inside
#: a string (it escapes it), so every NUL in its text is one of these.
_SEPARATOR = ",\0"


class Unusual(Exception):  # noqa: N818 (a signal to the writers, never raised out of them)
    """A value this writer does not spell exactly as json.dumps would."""


def indented_json(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, faster."""
    if c_make_encoder is None:  # an interpreter without the C accelerator
        return json.dumps(value, indent=2, ensure_ascii=False)
    try:
        return Columns().write([value], 0, frozenset())[0]
    except (Unusual, RecursionError):  # json.dumps says which (a cycle: ValueError)
        return json.dumps(value, indent=2, ensure_ascii=False)


def constant(values: Sequence[Any]) -> bool:
    """Whether every value of a column is written as the same text: one object throughout, or
    strings equal to the first (an equal str subclass, a StrEnum, writes the same text too).
    Only these: 1, True and 1.0 are equal and written apart, as are 0.0 and -0.0. Such a
    column (a check type, a verifier, a gate's constant) is written once into its template."""
    if len(values) < 2:
        return False
    first = values[0]
    if all(map(is_, values, repeat(first))):
        return True
    return type(first) is str and values[-1] == first and values.count(first) == len(values)


def _scalar(value: Any) -> str:
    """One scalar of a type the C call does not take as it is (a StrEnum, an IntEnum): what
    json.dumps writes for it, its str or int value."""
    if isinstance(value, bool) or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (_INFINITY, -_INFINITY):
            return "Infinity" if value > 0 else "-Infinity"
        return float.__repr__(value)
    raise Unusual


class Columns:
    """One document's writer: the C encoder, and the new-line-and-indent text of each depth.

    `write(values, depth, outer)` returns the text of each value as it stands at `depth` (its
    closing bracket after the new line of that depth); `outer` holds the ids of the containers
    of containers the values sit in, so an object met inside itself is a cycle, never a loop."""

    def __init__(self) -> None:
        self.encode = c_make_encoder(None, None, encode_basestring, None, ": ", _SEPARATOR,
                                     False, False, True)
        self.newlines = ["\n"]

    def newline(self, depth: int) -> str:
        while len(self.newlines) <= depth:
            self.newlines.append("\n" + "  " * len(self.newlines))
        return self.newlines[depth]

    def write(self, values: Sequence[Any], depth: int, outer: frozenset[int]) -> list[str]:
        kinds = set(map(type, values))
        if kinds <= _SCALARS:
            return self.scalars(values)
        if kinds <= _DICTS:
            return self.objects(values, depth, outer)
        if kinds <= _LISTS:
            return self.arrays(values, depth, outer)
        return self.mixed(values, depth, outer)

    def mixed(self, values: Sequence[Any], depth: int, outer: frozenset[int]) -> list[str]:
        """A column of several kinds: each kind written as a column, put back in its places."""
        places: dict[str, list[int]] = {"scalar": [], "dict": [], "list": []}
        texts = [""] * len(values)
        for index, value in enumerate(values):
            kind = type(value)
            if kind in _SCALARS:
                places["scalar"].append(index)
            elif kind is dict:
                places["dict"].append(index)
            elif kind is list or kind is tuple:
                places["list"].append(index)
            else:
                texts[index] = _scalar(value)
        for name, indexes in places.items():
            if indexes:
                column = [values[index] for index in indexes]
                written = self.scalars(column) if name == "scalar" \
                    else self.objects(column, depth, outer) if name == "dict" \
                    else self.arrays(column, depth, outer)
                for index, text in zip(indexes, written, strict=True):
                    texts[index] = text
        return texts

    def scalars(self, values: Sequence[Any]) -> list[str]:
        if not values:
            return []
        return "".join(self.encode(values, 0))[1:-1].split(_SEPARATOR)

    def of_scalars(self, values: Sequence[Any], bracket: str, depth: int) -> list[str]:
        """Containers whose values are all scalars: one C call, split on the separators that
        stood between the containers (`},NUL{`, `],NUL[`: the containers' own separators come
        before a key or a scalar, which never starts with a bracket); an empty part is an
        empty container."""
        if not values:
            return []
        closing = "}" if bracket == "{" else "]"
        inner = self.newline(depth + 1)
        text = "".join(self.encode(values, 0))[2:-2].replace(_SEPARATOR, "," + inner)
        parts = text.split(f"{closing},{inner}{bracket}")
        filled = map(f"{bracket}{inner}%s{self.newline(depth)}{closing}".__mod__, parts)
        if "" not in parts:
            return list(filled)
        return list(map({"": bracket + closing}.get, parts, filled))

    def objects(self, values: Sequence[dict[Any, Any]], depth: int,
                outer: frozenset[int]) -> list[str]:
        """Objects of one shape (the same keys in the same order, the common case: every
        mutation, every evidence item) are one group; else those of scalars only are one C
        call and the others are grouped by their keys."""
        ids = set(map(id, values))
        if not ids.isdisjoint(outer):
            raise Unusual  # an object inside itself: json.dumps names the cycle
        inside = outer | ids
        shapes = list(map(tuple, values))
        if shapes and shapes.count(shapes[0]) == len(shapes):  # one shape, no hash of each
            return self.group(values, shapes[0], depth, inside)
        texts = [""] * len(values)
        flat = [index for index, value in enumerate(values)
                if _SCALARS.issuperset(map(type, value.values()))]
        for index, text in zip(flat, self.of_scalars([values[i] for i in flat], "{", depth),
                               strict=True):
            texts[index] = text
        groups: dict[tuple[Any, ...], list[int]] = {}
        counted = set(flat)
        for index, shape in enumerate(shapes):
            if index not in counted:
                groups.setdefault(shape, []).append(index)
        for keys, indexes in groups.items():
            written = self.group([values[i] for i in indexes], keys, depth, inside)
            for index, text in zip(indexes, written, strict=True):
                texts[index] = text
        return texts

    def group(self, rows: Sequence[dict[Any, Any]], keys: tuple[Any, ...], depth: int,
              inside: frozenset[int]) -> list[str]:
        """Objects with these keys: each key's values one column, each object its template
        filled in (by `%`, in C)."""
        if not _STRINGS.issuperset(map(type, keys)):
            raise Unusual  # json.dumps turns such keys into strings its own way
        if not keys:
            return ["{}"] * len(rows)
        parts = []
        written = []
        for key, column in zip(keys, zip(*map(dict.values, rows), strict=True), strict=True):
            name = encode_basestring(key).replace("%", "%%")
            if constant(column):  # written once, into the template
                text = self.write(column[:1], depth + 1, inside)[0]
                parts.append(f"{name}: {text.replace('%', '%%')}")
            else:
                parts.append(f"{name}: %s")
                written.append(self.write(column, depth + 1, inside))
        between = "," + self.newline(depth + 1)
        template = "{" + self.newline(depth + 1) + between.join(parts) + self.newline(depth) \
            + "}"
        if not written:
            return [template % ()] * len(rows)
        return list(map(template.__mod__, zip(*written, strict=True)))

    def arrays(self, values: Sequence[Sequence[Any]], depth: int,
               outer: frozenset[int]) -> list[str]:
        """Lists: of scalars, one C call for all; else every item of every list is one column,
        written, then joined back list by list."""
        if _SCALARS.issuperset(map(type, chain.from_iterable(values))):
            return self.of_scalars(values, "[", depth)
        ids = set(map(id, values))
        if not ids.isdisjoint(outer):
            raise Unusual  # a list inside itself: json.dumps names the cycle
        items = self.write(list(chain.from_iterable(values)), depth + 1, outer | ids)
        between = "," + self.newline(depth + 1)
        opened, closed = "[" + self.newline(depth + 1), self.newline(depth) + "]"
        texts = []
        start = 0
        for length in map(len, values):
            if length:
                texts.append(f"{opened}{between.join(items[start:start + length])}{closed}")
                start += length
            else:
                texts.append("[]")
        return texts
