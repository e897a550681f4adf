"""Which parts of a structured evidence-chain file a change edits.

`pyproject.toml`, `package.json` and `setup.cfg` are on the evidence chain whole
(gate/claim/trust_policy.py), yet most edits to them (a version bump, a classifier) do not
change how the tests run. The collectors read a modified one at base and head and record the
key paths that differ (`ChainFileChange`); the engine (gate/engine/chain_parts.py) decides
which of them shape the tests. What cannot be read or parsed is recorded as such, and the
engine keeps that file on the chain whole. Nothing here decides.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import tomllib
from collections.abc import Callable, Iterator
from typing import Any

from gate.claim.change_facts import ChainFileChange

#: Below this depth a difference is recorded at its parent (`tool.pytest.ini_options`).
_DEPTH = 3


def _toml(text: str) -> dict[str, Any]:
    return tomllib.loads(text)


def _json(text: str) -> dict[str, Any]:
    found = json.loads(text)
    if not isinstance(found, dict):
        raise ValueError("the top level is not an object")
    return found


def _ini(text: str) -> dict[str, Any]:
    # strict: a duplicated section or key is ambiguous (which one does the tool read?).
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.read_string(text)
    read = {name: dict(parser.items(name, raw=True)) for name in parser.sections()}
    return {**read, "DEFAULT": dict(parser.defaults())}


_PARSERS: dict[str, Callable[[str], dict[str, Any]]] = {
    "pyproject.toml": _toml, "package.json": _json, "setup.cfg": _ini,
}


def is_structured(path: str) -> bool:
    """Whether the parts of this file can be told apart (by its name, at any depth)."""
    return posixpath.basename(path) in _PARSERS


def _canonical(value: Any) -> Any:
    """A comparable form that keeps `1` apart from `true` and `1.0` (Python's == does not)."""
    if isinstance(value, dict):
        return ("table", tuple(sorted((k, _canonical(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("list", tuple(_canonical(v) for v in value))
    return (type(value).__name__, value)


def _differences(base: Any, head: Any, at: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    if isinstance(base, dict) and isinstance(head, dict) and len(at) < _DEPTH:
        for key in sorted(set(base) | set(head)):
            if key not in base or key not in head:
                yield (*at, key)
            else:
                yield from _differences(base[key], head[key], (*at, key))
    elif _canonical(base) != _canonical(head):
        yield at


def _parse(path: str, side: str, raw: bytes | None) -> dict[str, Any]:
    if raw is None:
        raise ValueError(f"it is absent at {side}")
    try:
        return _PARSERS[posixpath.basename(path)](raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, configparser.Error) as exc:
        # tomllib and json errors are ValueErrors; the first line names the place.
        raise ValueError(f"it cannot be parsed at {side}: {str(exc).splitlines()[0]}") from None


def chain_file_change(path: str, base: bytes | None, head: bytes | None) -> ChainFileChange:
    """The parts of `path` that differ between its `base` and `head` bytes (None: absent)."""
    try:
        before, after = _parse(path, "base", base), _parse(path, "head", head)
    except ValueError as exc:
        return ChainFileChange(path, parsed=False, problem=str(exc))
    return ChainFileChange(path, tuple(_differences(before, after, ())))


def unread(path: str, problem: str) -> ChainFileChange:
    """A chain file whose versions could not be fetched: judged whole."""
    return ChainFileChange(path, parsed=False, problem=problem)
