"""JSON text indented by two, byte for byte what `json.dumps(value, indent=2,
ensure_ascii=False)` writes, without its per-value cost.

With `indent`, the standard library leaves its C encoder and walks every value through a
stack of Python generators: a fifth of verifying a 10,000-mutation claim (issue 23). Here a
container whose values are all scalars (a mutation, a verifier, a `covers` list: most of a
record) is written by the C encoder in one call, given that depth's separators; only the
containers that hold containers are walked in Python. A value of any other type (an enum, a
subclass of str) sends the whole document to `json.dumps`, so the text never differs.
"""

from __future__ import annotations

import json
import json.encoder
from json.encoder import encode_basestring
from typing import Any

#: The standard library's C encoder (None on an interpreter without the accelerator).
c_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)

_SCALARS = frozenset({str, int, float, bool, type(None)})
_STRINGS = frozenset({str})
_INFINITY = float("inf")


class _Unusual(Exception):  # noqa: N818 (a signal inside this module, never raised out)
    """A value this writer does not spell exactly as json.dumps would."""


def indented_json(value: Any) -> str:
    """`json.dumps(value, indent=2, ensure_ascii=False)`, the same text, faster."""
    if c_make_encoder is None:  # an interpreter without the C accelerator
        return json.dumps(value, indent=2, ensure_ascii=False)
    chunks: list[str] = []
    try:
        writer = _Writer(chunks)
        writer.write(value, 0)
        writer.finish()
    except (_Unusual, RecursionError):  # json.dumps says which (a cycle: ValueError)
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(chunks)


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return _float(value)
    # What json.dumps does with subclasses (a StrEnum, an IntEnum): their str or int value.
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise _Unusual


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (_INFINITY, -_INFINITY):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


class _Writer:
    """One document's chunks. A container of scalars is not written where it is met: it
    waits, with the others of its kind and depth, for one C call over all of them."""

    def __init__(self, chunks: list[str]) -> None:
        self.chunks = chunks
        self.newlines: list[str] = []
        #: (bracket, depth) -> the containers of scalars waiting, and their slots in chunks
        self.waiting: dict[tuple[str, int], tuple[list[Any], list[int]]] = {}

    def _newline(self, depth: int) -> str:
        while len(self.newlines) <= depth:
            self.newlines.append("\n" + "  " * len(self.newlines))
        return self.newlines[depth]

    def finish(self) -> None:
        """Write every waiting container: one C call per kind and depth.

        The encoder's item separator is a comma and a NUL, which the encoder never writes
        inside a string (it escapes it), so each NUL is a separator: the outer list's ones
        stand between brackets (`},NUL{`, `],NUL[`), the containers' own before a key or a
        scalar, which never starts with a bracket."""
        encoder = c_make_encoder(None, None, encode_basestring, None, ": ", ",\0",
                                 False, False, True)
        for (bracket, depth), (values, slots) in self.waiting.items():
            closing = "}" if bracket == "{" else "]"
            text = "".join(encoder(values, 0))[2:-2]
            inner = text.replace(",\0", "," + self._newline(depth))
            opened = bracket + self._newline(depth)
            closed = self._newline(depth - 1) + closing
            parts = inner.split(f"{closing},{self._newline(depth)}{bracket}")
            for slot, part in zip(slots, parts, strict=True):
                self.chunks[slot] = f"{opened}{part}{closed}"

    def _wait(self, bracket: str, value: Any, depth: int) -> None:
        found = self.waiting.get((bracket, depth))
        if found is None:
            found = self.waiting[(bracket, depth)] = ([], [])
        found[0].append(value)
        found[1].append(len(self.chunks))
        self.chunks.append("")

    def write(self, value: Any, depth: int) -> None:
        kind = type(value)
        if kind is dict:
            self._object(value, depth)
        elif kind is list or kind is tuple:
            self._array(value, depth)
        else:
            self.chunks.append(_scalar(value))

    def _object(self, value: dict[Any, Any], depth: int) -> None:
        if not value:
            self.chunks.append("{}")
            return
        inner = depth + 1
        if _SCALARS.issuperset(map(type, value.values())):
            self._wait("{", value, inner)
            return
        if not _STRINGS.issuperset(map(type, value)):
            raise _Unusual  # json.dumps turns such keys into strings its own way
        newline = self._newline(inner)
        chunks, lead = self.chunks, "{" + newline
        for key, item in value.items():
            if type(item) in _SCALARS:
                chunks.append(f"{lead}{encode_basestring(key)}: {_scalar(item)}")
            else:
                chunks.append(f"{lead}{encode_basestring(key)}: ")
                self.write(item, inner)
            lead = "," + newline
        chunks.append(self._newline(depth) + "}")

    def _array(self, value: list[Any] | tuple[Any, ...], depth: int) -> None:
        if not value:
            self.chunks.append("[]")
            return
        inner = depth + 1
        if _SCALARS.issuperset(map(type, value)):
            self._wait("[", value, inner)
            return
        newline = self._newline(inner)
        chunks, lead = self.chunks, "[" + newline
        for item in value:
            chunks.append(lead)
            self.write(item, inner)
            lead = "," + newline
        chunks.append(self._newline(depth) + "]")
