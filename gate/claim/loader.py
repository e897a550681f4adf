"""Loading a claim file: every check between the bytes on disk and a `Claim`.

Order matters for the messages: size, encoding, JSON syntax, spec version, schema, then the
rules the schema cannot express (unique mutation ids, `covers` naming real mutations).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

from gate.claim.codec import claim_times, parse_claim, parse_evidence, read_times
from gate.claim.errors import InvalidInput
from gate.claim.jsondoc import decode_utf8, parse_json, read_capped
from gate.claim.jsonpos import Position, value_positions
from gate.claim.limits import DEFAULT_MAX_CLAIM_BYTES as DEFAULT_MAX_CLAIM_BYTES
from gate.claim.model import SPEC_VERSION, Claim, Evidence
from gate.claim.schema import schema_errors
from gate.claim.timefmt import TimestampError, parse_rfc3339

MAX_REPORTED_ERRORS = 20


@dataclass(frozen=True)
class LoadedDocument:
    """A parsed JSON document with what reports need: its source, digest and positions."""

    source: str
    text: str
    raw: Any
    sha256: str

    @cached_property
    def positions(self) -> dict[str, Position]:
        return value_positions(self.text)

    def locate(self, json_pointer: str) -> Position | None:
        """Line and column of the value at `json_pointer`, or of its nearest parent."""
        candidate = json_pointer
        while True:
            found = self.positions.get(candidate)
            if found is not None or not candidate:
                return found
            candidate = candidate.rsplit("/", 1)[0]

    def place(self, json_pointer: str) -> str:
        found = self.locate(json_pointer)
        return f"{found}" if found else "1:1"


@dataclass(frozen=True)
class LoadedClaim:
    document: LoadedDocument
    claim: Claim = field(compare=False)

    @property
    def source(self) -> str:
        return self.document.source


def _read_document(data: bytes, source: str, what: str) -> LoadedDocument:
    text = decode_utf8(data, source, what)
    raw = parse_json(text, source, what)
    return LoadedDocument(source, text, raw, hashlib.sha256(data).hexdigest())


def _raise_schema_errors(document: LoadedDocument, ref: str | None, what: str) -> None:
    found = list(schema_errors(document.raw, ref))
    if not found:
        return
    lines = [
        f"{document.source}:{document.place(where)}: {where or '(document)'}: {message}"
        for where, message in found[:MAX_REPORTED_ERRORS]
    ]
    if len(found) > MAX_REPORTED_ERRORS:
        lines.append(f"... and {len(found) - MAX_REPORTED_ERRORS} more")
    first_where, first_message = found[0]
    raise InvalidInput(
        document.source,
        document.place(first_where),
        f"{first_where or '(document)'}: {first_message}",
        f"the {what} does not follow the completion-claim v0.1 schema;"
        " `claim-gate schema` prints it",
        more=tuple(lines[1:]),
    )


def _check_spec_version(document: LoadedDocument) -> None:
    raw = document.raw
    if not isinstance(raw, dict):
        raise InvalidInput(
            document.source, "1:1", "a claim must be a JSON object",
            "see `claim-gate schema`",
        )
    version = raw.get("spec_version")
    if version is None:
        raise InvalidInput(
            document.source, "1:1", "/spec_version is missing",
            f'add "spec_version": "{SPEC_VERSION}"',
        )
    if version != SPEC_VERSION:
        raise InvalidInput(
            document.source,
            document.place("/spec_version"),
            f"/spec_version is {version!r}; this gate reads completion claims v{SPEC_VERSION}",
            "write the claim in v0.1 or use a gate that reads your version",
        )


def _check_semantics(document: LoadedDocument) -> dict[str, datetime]:
    """The rules the schema cannot express; each timestamp text read, for the model.

    A claim that keeps them is answered by set operations in C over all its ids at once;
    only one that breaks one is walked item by item, to name every place."""
    raw: Mapping[str, Any] = document.raw
    ids = list(map(_ID, raw["mutations"]))
    known = set(ids)
    covered = chain.from_iterable(map(dict.get, raw.get("evidence", []), repeat("covers"),
                                      repeat(())))
    if len(known) == len(ids) and known.issuperset(covered):
        try:
            return read_times(_timestamp_texts(raw))
        except TimestampError:
            pass
    problems = _semantic_problems(raw)
    if problems:
        where, message = problems[0]
        raise InvalidInput(
            document.source,
            document.place(where),
            f"{where}: {message}",
            more=tuple(
                f"{document.source}:{document.place(w)}: {w}: {m}" for w, m in problems[1:]
            ),
        )
    return read_times(_timestamp_texts(raw))


_ID = itemgetter("id")


def _semantic_problems(raw: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every broken rule, in document order, with its place (the long way)."""
    problems: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for index, mutation in enumerate(raw["mutations"]):
        mutation_id = mutation["id"]
        if mutation_id in seen:
            problems.append((
                f"/mutations/{index}/id",
                f"mutation id {mutation_id!r} is used twice (also /mutations/{seen[mutation_id]});"
                " give every mutation its own id",
            ))
        seen.setdefault(mutation_id, index)
    for index, evidence in enumerate(raw.get("evidence", [])):
        for position, covered in enumerate(evidence.get("covers", [])):
            if covered not in seen:
                problems.append((
                    f"/evidence/{index}/covers/{position}",
                    f"covers {covered!r}, which is not the id of any mutation in this claim",
                ))
    for where, text in _timestamps(raw):
        try:
            parse_rfc3339(text)
        except TimestampError as exc:
            problems.append((where, str(exc)))
    return problems


def _timestamps(raw: Mapping[str, Any]) -> list[tuple[str, str]]:
    found = [(f"/mutations/{i}/at", m["at"]) for i, m in enumerate(raw["mutations"])]
    found += [(f"/evidence/{i}/at", e["at"]) for i, e in enumerate(raw.get("evidence", []))]
    verdict = raw.get("verdict")
    if isinstance(verdict, dict) and "decided_at" in verdict:
        found.append(("/verdict/decided_at", verdict["decided_at"]))
    return found


def _timestamp_texts(raw: Mapping[str, Any]) -> list[str]:
    """What `_timestamps` finds, without the places (only a broken one needs its place)."""
    texts = claim_times(raw)
    verdict = raw.get("verdict")
    if isinstance(verdict, dict) and "decided_at" in verdict:
        texts.append(verdict["decided_at"])
    return texts


def parse_claim_bytes(data: bytes, source: str) -> LoadedClaim:
    """Validate and parse claim bytes already read under the size cap."""
    document = _read_document(data, source, "claim")
    _check_spec_version(document)
    _raise_schema_errors(document, None, "claim")
    times = _check_semantics(document)
    return LoadedClaim(document, parse_claim(document.raw, times))


def load_claim(path: Path, max_bytes: int = DEFAULT_MAX_CLAIM_BYTES) -> LoadedClaim:
    """Read, validate and parse the claim at `path`; InvalidInput names file and place."""
    return parse_claim_bytes(read_capped(path, max_bytes, "claim"), str(path))


def load_evidence_records(
    path: Path, max_bytes: int = DEFAULT_MAX_CLAIM_BYTES
) -> tuple[LoadedDocument, tuple[Evidence, ...]]:
    """An operator's evidence file: one evidence record or a JSON list of them."""
    document = _read_document(read_capped(path, max_bytes, "evidence file"), str(path), "evidence")
    raw = document.raw
    items = raw if isinstance(raw, list) else [raw]
    prefix = "" if not isinstance(raw, list) else None
    records: list[Evidence] = []
    for index, item in enumerate(items):
        base = f"/{index}" if prefix is None else ""
        for where, message in schema_errors(item, "#/$defs/evidence"):
            raise InvalidInput(
                document.source,
                document.place(base + where),
                f"{base + where or '(record)'}: {message}",
                "an evidence record follows the claim schema's #/$defs/evidence",
            )
        try:
            records.append(parse_evidence(item))
        except TimestampError as exc:
            raise InvalidInput(
                document.source, document.place(f"{base}/at"), f"{base}/at: {exc}"
            ) from None
    if not records:
        raise InvalidInput(document.source, "1:1", "the evidence file holds no records")
    return document, tuple(records)
