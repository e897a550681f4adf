"""The completed record as JSON text, its evidence written from the verdict in columns.

`indented_json(completed_record(...))` builds a dict per evidence item (the item dumped, its
verifier, the gate's `x-claim-gate` assessment) that the writer then takes apart again into
columns: on a 10,000-mutation claim that was a third of `verify --format json` (issue 23).
Here each key's values are read off the items and assessments as one column and written
once, and each item is its shape's template filled in by `%` (nested objects inlined, so
one fill per item). An item whose extensions hold a key its dump writes itself (the long
way lets the extension overwrite it in place) is dumped and written the long way, in its
place; a value the writer does not spell as json.dumps does sends the whole record the long
way. The text is `indented_json(completed_record(raw, verdict))` byte for byte
(tests/test_record_text.py holds the two to each other).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from json.encoder import encode_basestring
from operator import attrgetter, is_, is_not, ne
from typing import Any, TypeVar

from gate.claim.facts import EvidenceItem
from gate.claim.model import JSON
from gate.claim.timefmt import format_rfc3339
from gate.engine.results import Assessment, Verdict
from gate.report.json_text import Columns, Unusual, c_make_encoder, constant, indented_json
from gate.report.record import OWNED, completed_record, evidence_json, policy_json, verdict_json

#: What `dump_evidence` and the record write on an item; an extension of the same name
#: would take that key's place, so such an item is written the long way.
_DUMPED = frozenset({"check_type", "target", "expected", "observed_value", "at", "covers",
                     "verifier", "x-claim-gate"})
_VERIFIER_KEYS = frozenset({"id", "kind", "x-claimed-kind"})

_EVIDENCE = attrgetter("evidence")
_VERIFIER = attrgetter("verifier")
_COVERS = attrgetter("covers")
_CHECK = attrgetter("check_type")
_OBSERVED_VALUE = attrgetter("observed_value")
_AT = attrgetter("at")
_ID = attrgetter("id")
_ORIGIN = attrgetter("origin")
_SOURCE = attrgetter("source")
_COUNTS = attrgetter("counts")
_SUPPORTS = attrgetter("supports")
_SATISFIES = attrgetter("satisfies")
_CONTRADICTS = attrgetter("contradicts_mutations")
_TUPLES = frozenset({tuple})
_STRINGS = frozenset({str})
_OWN = attrgetter("verifier.extensions")
_ADDED = attrgetter("extensions")
_TARGET = attrgetter("target")
_EXPECTED = attrgetter("expected")
_OBSERVED = attrgetter("has_observed_value")
_KIND = attrgetter("verifier.kind")
_INDEPENDENT = attrgetter("independent")
_PROBLEM = attrgetter("problem")

#: The verifier's kind the record states: the gate's judgement, by `Assessment.independent`.
_JUDGED = {True: "independent", False: "self_attested"}

_Key = TypeVar("_Key", bound=Hashable)


@dataclass(frozen=True)
class _Nested:
    """An object inside each item, spelt into the item's template: its keys and columns."""

    entries: list[tuple[str, Sequence[Any] | _Nested]]


_Entry = tuple[str, Sequence[Any] | _Nested]


def record_text(raw_claim: Mapping[str, JSON], verdict: Verdict, end: str = "") -> str:
    """`indented_json(completed_record(raw_claim, verdict)) + end`, the same text, faster.

    The text is joined once from its pieces (the items and what stands between them), `end`
    too: each `+` of the whole record was another copy of it (8 MB at 10,000 mutations), and
    its fresh pages were half the command's system time."""
    if c_make_encoder is None:
        return indented_json(completed_record(raw_claim, verdict)) + end
    try:
        return "".join(_Record(Columns()).pieces(raw_claim, verdict, end))
    except (Unusual, RecursionError):  # the long way says which, or writes it its way
        return indented_json(completed_record(raw_claim, verdict)) + end


def _memo(function: Callable[[_Key], Any], values: Sequence[_Key]) -> list[Any]:
    """`function` of each value, worked out once per distinct value (a claim's items share
    their check type, verifier kind, origin and, often, their second)."""
    found = {value: function(value) for value in dict.fromkeys(values)}
    return list(map(found.__getitem__, values))


def _indexes(values: Sequence[Any]) -> list[int]:
    """The places of the values that are not empty, found in C (most have none)."""
    return list(compress(range(len(values)), values))


def _str_tuple(values: Sequence[Any]) -> tuple[str, ...]:
    return tuple(map(str, values))


def _alike(column: list[Any], other: list[Any]) -> list[Any]:
    """`other` when each value of `column` is written as its value in `other` is (the same
    object, or tuples of strings equal to it: an item's covers and what it supports, mostly),
    so the column is written once; else `column`."""
    if all(map(is_, column, other)):
        return other
    if _TUPLES.issuperset(map(type, column)) \
            and _STRINGS.issuperset(map(type, chain.from_iterable(column))) and column == other:
        return other
    return column


class _Record:
    def __init__(self, columns: Columns) -> None:
        self.columns = columns

    def pieces(self, raw_claim: Mapping[str, JSON], verdict: Verdict, end: str) -> list[str]:
        """The record's text at depth 0, then `end`, in pieces to be joined once."""
        kept = [(key, value) for key, value in raw_claim.items() if key not in OWNED]
        if any(type(key) is not str for key, _ in kept):
            raise Unusual  # json.dumps turns such keys into strings its own way
        keys = [key for key, _ in kept] + ["evidence", "policy", "verdict"]
        texts: list[str | list[str]] = [*self.columns.write(
            [value for _, value in kept] + [policy_json(verdict), verdict_json(verdict)], 1,
            frozenset())]
        texts.insert(len(kept), self.evidence(verdict.items, verdict.assessments))
        inner = self.columns.newline(1)
        pieces: list[str] = []
        for position, (key, text) in enumerate(zip(keys, texts, strict=True)):
            pieces.append(f"{',' if position else '{'}{inner}{encode_basestring(key)}: ")
            if isinstance(text, list):
                pieces += text
            else:
                pieces.append(text)
        pieces.append(self.columns.newline(0) + "}" + end)
        return pieces

    def evidence(self, items: Sequence[EvidenceItem],
                 assessments: Sequence[Assessment]) -> list[str]:
        """The `evidence` array at depth 1, in pieces: items grouped by shape, each group in
        columns."""
        if len(items) != len(assessments):
            raise ValueError("a verdict holds one assessment per evidence item")
        if not items:
            return ["[]"]
        texts = [""] * len(items)
        evidence = list(map(_EVIDENCE, items))
        own = list(map(tuple, map(_OWN, evidence)))
        added = list(map(tuple, map(_ADDED, evidence)))
        unusual = sorted({index for index in _indexes(own)
                          if not _VERIFIER_KEYS.isdisjoint(own[index])}
                         | {index for index in _indexes(added)
                            if not _DUMPED.isdisjoint(added[index])})
        parts = [  # of each item's shape, a column each
            list(map(is_not, map(_TARGET, evidence), repeat(None))),
            list(map(is_not, map(_EXPECTED, evidence), repeat(None))),
            list(map(_OBSERVED, evidence)), own,
            list(map(ne, _memo(str, list(map(_KIND, evidence))),
                     map(_JUDGED.__getitem__, map(_INDEPENDENT, assessments)))),
            added, list(map(is_not, map(_PROBLEM, assessments), repeat(None))),
        ]
        groups: dict[tuple[Any, ...], list[int]] = {}
        if not unusual and all(part.count(part[0]) == len(part) for part in parts):
            groups[tuple(part[0] for part in parts)] = list(range(len(items)))  # one shape
        else:
            shapes: list[tuple[Any, ...]] = list(zip(*parts, strict=True))
            for index in unusual:
                shapes[index] = ()
            for index, shape in enumerate(shapes):
                groups.setdefault(shape, []).append(index)
        groups.pop((), None)  # the unusual ones, written the long way below
        for shape, indexes in groups.items():
            if len(indexes) == len(items):  # one shape (the common case): the items in order
                texts = self.group(shape, items, assessments)
                continue
            written = self.group(shape, [items[i] for i in indexes],
                                 [assessments[i] for i in indexes])
            for index, text in zip(indexes, written, strict=True):
                texts[index] = text
        if unusual:
            dumped = [evidence_json(items[i], assessments[i]) for i in unusual]
            for index, text in zip(unusual, self.columns.write(dumped, 2, frozenset()),
                                   strict=True):
                texts[index] = text
        inner = self.columns.newline(2)
        pieces = ["," + inner] * (2 * len(texts) - 1)
        pieces[::2] = texts
        return ["[" + inner, *pieces, self.columns.newline(1) + "]"]

    def group(self, shape: tuple[Any, ...], items: Sequence[EvidenceItem],
              assessments: Sequence[Assessment]) -> list[str]:
        """Items of one shape at depth 2, keys in the order the record writes them."""
        target, expected, observed, own, claimed, added, problem = shape
        evidence = list(map(_EVIDENCE, items))
        verifiers = list(map(_VERIFIER, evidence))
        covers = list(map(_COVERS, evidence))
        entries: list[_Entry] = [("check_type", _memo(str, list(map(_CHECK, evidence))))]
        if target:
            entries.append(("target", list(map(_TARGET, evidence))))
        if expected:
            entries.append(("expected", [e.expected if type(e.expected) is dict
                                         else dict(e.expected or {}) for e in evidence]))
        if observed:
            entries.append(("observed_value", list(map(_OBSERVED_VALUE, evidence))))
        entries.append(("at", _memo(format_rfc3339, list(map(_AT, evidence)))))
        entries.append(("covers", covers))
        verifier: list[_Entry] = [
            ("id", list(map(_ID, verifiers))),
            ("kind", list(map(_JUDGED.__getitem__, map(_INDEPENDENT, assessments)))),
            *((key, [v.extensions[key] for v in verifiers]) for key in own),
        ]
        if claimed:
            verifier.append(("x-claimed-kind", _memo(str, [v.kind for v in verifiers])))
        entries.append(("verifier", _Nested(verifier)))
        entries.extend((key, [e.extensions[key] for e in evidence]) for key in added)
        gate: list[_Entry] = [
            ("origin", _memo(str, list(map(_ORIGIN, items)))),
            ("source", list(map(_SOURCE, items))),
            ("counts", list(map(_COUNTS, assessments))),
            ("covers", _alike(list(map(_COVERS, assessments)), covers)),
            ("supports", _alike(list(map(_SUPPORTS, assessments)), covers)),
            ("satisfies", _memo(_str_tuple, list(map(_SATISFIES, assessments)))),
            ("contradicts", list(map(_CONTRADICTS, assessments))),
        ]
        if problem:
            problems = [a.problem for a in assessments]
            gate.append(("problem", _Nested([("code", [p.code for p in problems if p]),
                                             ("message", [p.message for p in problems if p])])))
        entries.append(("x-claim-gate", _Nested(gate)))
        template, columns = self.template(entries, 2, {})
        texts: dict[tuple[int, int], list[str]] = {}  # a column met twice is written once
        written = [texts[id(column), depth] if (id(column), depth) in texts
                   else texts.setdefault((id(column), depth),
                                         self.columns.write(column, depth, frozenset()))
                   for column, depth in columns]
        alike = {place: text[0] for place, text in texts.items()
                 if len(text) > 1 and text.count(text[0]) == len(text)}
        if alike:  # written the same for every item (objects equal, e.g. `expected`)
            template, columns = self.template(entries, 2, alike)
            written = [texts[id(column), depth] for column, depth in columns]
        if not written:
            return [template % ()] * len(items)
        return list(map(template.__mod__, zip(*written, strict=True)))

    def template(self, entries: Sequence[_Entry], depth: int,
                 fixed: Mapping[tuple[int, int], str],
                 ) -> tuple[str, list[tuple[Sequence[Any], int]]]:
        """The object's text at `depth` with a `%s` per value, and each value's column with
        the depth it is written at; nested objects are spelt into the template, and so is a
        column every item writes alike (`fixed`: its text by the column's id and depth)."""
        inner = self.columns.newline(depth + 1)
        columns: list[tuple[Sequence[Any], int]] = []
        parts = []
        for key, value in entries:
            name = encode_basestring(key).replace("%", "%%")
            if isinstance(value, _Nested):
                nested, more = self.template(value.entries, depth + 1, fixed)
                parts.append(f"{name}: {nested}")
                columns.extend(more)
            elif (id(value), depth + 1) in fixed:
                parts.append(f"{name}: {fixed[id(value), depth + 1].replace('%', '%%')}")
            elif constant(value):  # the same text for every item: once, into the template
                text = self.columns.write(value[:1], depth + 1, frozenset())[0]
                parts.append(f"{name}: {text.replace('%', '%%')}")
            else:
                parts.append(f"{name}: %s")
                columns.append((value, depth + 1))
        return "{" + inner + ("," + inner).join(parts) + self.columns.newline(depth) + "}", \
            columns
