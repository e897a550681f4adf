"""Where each value of a JSON text starts, by JSON pointer.

Schema errors and annotations must point at a line of the claim file a person can open;
`json` does not keep positions, so this scanner walks text that `json.loads` has already
accepted and records line and column for every value. It is iterative, so deep nesting
cannot exhaust the stack.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?[0-9][0-9eE.+\-]*|true|false|null")
_SPACE = re.compile(r"[ \t\r\n]*")


@dataclass(frozen=True)
class Position:
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


def escape_pointer_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def pointer(parts: tuple[str | int, ...]) -> str:
    """The RFC 6901 pointer for a path of keys and indices ('' is the whole document)."""
    return "".join("/" + escape_pointer_token(str(part)) for part in parts)


def value_positions(text: str) -> dict[str, Position]:
    """Map every JSON pointer in `text` (valid JSON) to where its value starts."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    positions: dict[str, Position] = {}

    def position_of(offset: int) -> Position:
        lo, hi = 0, len(line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return Position(lo + 1, offset - line_starts[lo] + 1)

    # Stack entries: [path, kind ('{' or '['), next index for arrays, pending key].
    stack: list[list[object]] = []
    index = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    path: tuple[str | int, ...] = ()
    expect_value = True
    while index < len(text):
        char = text[index]
        if expect_value:
            positions[pointer(path)] = position_of(index)
            if char in "{[":
                stack.append([path, char, 0])
                index += 1
                index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
                if text[index] in "}]":
                    index += 1
                    stack.pop()
                    expect_value = False
                    index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
                    continue
                path = _next_child(stack, text, index)
                index = _after_key(stack, text, index)
                continue
            match = _STRING.match(text, index) if char == '"' else _SCALAR.match(text, index)
            if match is None:
                raise ValueError(f"unexpected character at offset {index}")
            index = _SPACE.match(text, match.end()).end()  # type: ignore[union-attr]
            expect_value = False
            continue
        if not stack:
            break
        if char == ",":
            index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
            path = _next_child(stack, text, index)
            index = _after_key(stack, text, index)
            expect_value = True
        elif char in "}]":
            stack.pop()
            index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
        else:
            raise ValueError(f"unexpected character at offset {index}")
    return positions


def _next_child(stack: list[list[object]], text: str, index: int) -> tuple[str | int, ...]:
    frame = stack[-1]
    parent = frame[0]
    assert isinstance(parent, tuple)
    if frame[1] == "[":
        position = frame[2]
        assert isinstance(position, int)
        frame[2] = position + 1
        return (*parent, position)
    match = _STRING.match(text, index)
    if match is None:
        raise ValueError(f"expected a key at offset {index}")
    key = json.loads(match.group(0))
    return (*parent, key)


def _after_key(stack: list[list[object]], text: str, index: int) -> int:
    """Skip an object key and its colon; arrays have no key."""
    if stack[-1][1] == "[":
        return index
    match = _STRING.match(text, index)
    assert match is not None
    index = _SPACE.match(text, match.end()).end()  # type: ignore[union-attr]
    if text[index] != ":":
        raise ValueError(f"expected ':' at offset {index}")
    return _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
