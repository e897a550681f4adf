"""Between JSON and the model: parse at the boundary, dump for the completed record.

`parse_*` take documents that already passed the schema, so they only convert; the
checks the schema cannot express live in the loader.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from itertools import chain, repeat
from operator import itemgetter
from typing import Any

from gate.claim.model import (
    JSON,
    CheckType,
    Claim,
    Evidence,
    Mutation,
    PolicyRequest,
    Task,
    Verifier,
    VerifierKind,
)
from gate.claim.timefmt import format_rfc3339, parse_rfc3339


def extensions_of(document: Mapping[str, JSON]) -> dict[str, JSON]:
    # Most objects have none: asked of every key in C first (issue 23, per-item cost).
    if not any(map(str.startswith, document, repeat("x-"))):
        return {}
    return {key: value for key, value in document.items() if key.startswith("x-")}


def _extended(documents: Iterable[Mapping[str, JSON]]) -> bool:
    """Whether any of `documents` has an `x-` key, asked of all their keys in one C pass."""
    return any(map(str.startswith, chain.from_iterable(documents), repeat("x-")))


def read_times(texts: Iterable[str]) -> dict[str, datetime]:
    """Each distinct timestamp text read once (a claim's mutations often share a second);
    TimestampError for the first that is not RFC 3339 with a zone."""
    return {text: parse_rfc3339(text) for text in dict.fromkeys(texts)}


def claim_times(document: Mapping[str, JSON]) -> list[str]:
    """The timestamp texts the model reads, mutations' then evidence's."""
    return [*map(_AT, document["mutations"]), *map(_AT, document.get("evidence", ()))]


_AT = itemgetter("at")


_CHECK_TYPES: Mapping[str, CheckType] = {str(check): check for check in CheckType}
_VERIFIER_KINDS: Mapping[str, VerifierKind] = {str(kind): kind for kind in VerifierKind}


def _check_type(name: JSON) -> CheckType:
    """CheckType(name) by a dict look-up (the enum's call is ten times slower); the enum
    itself still says why a name is not one."""
    try:
        return _CHECK_TYPES[name]
    except (KeyError, TypeError):
        return CheckType(name)


def _verifier_kind(name: JSON) -> VerifierKind:
    try:
        return _VERIFIER_KINDS[name]
    except (KeyError, TypeError):
        return VerifierKind(name)


def parse_max_age(value: JSON) -> dict[CheckType, int]:
    """`max_age_s` as an integer for every check type, or a map by check type."""
    if isinstance(value, int | float):  # JSON Schema counts 300.0 as an integer too
        return dict.fromkeys(CheckType, int(value))
    return {CheckType(key): int(seconds) for key, seconds in value.items()}


def parse_policy_request(document: Mapping[str, JSON]) -> PolicyRequest:
    return PolicyRequest(
        id=document.get("id"),
        requires=tuple(CheckType(item) for item in document.get("requires", [])),
        max_age_s=parse_max_age(document["max_age_s"]) if "max_age_s" in document else {},
        extensions=extensions_of(document),
    )


def parse_evidence(document: Mapping[str, JSON]) -> Evidence:
    verifier = document["verifier"]
    return Evidence(
        check_type=_check_type(document["check_type"]),
        at=parse_rfc3339(document["at"]),
        verifier=Verifier(
            id=verifier["id"],
            kind=_verifier_kind(verifier["kind"]),
            extensions=extensions_of(verifier),
        ),
        covers=tuple(document.get("covers", [])),
        target=document.get("target"),
        expected=document.get("expected"),
        observed_value=document.get("observed_value"),
        has_observed_value="observed_value" in document,
        extensions=extensions_of(document),
    )


def parse_claim(
    document: Mapping[str, JSON], times: Mapping[str, datetime] | None = None
) -> Claim:
    """The model of a claim document; `times` holds each timestamp text already read (the
    loader's check reads them all), else they are read here."""
    task = document["task"]
    policy = document.get("policy")
    if times is None:
        times = read_times(claim_times(document))
    return Claim(
        spec_version=document["spec_version"],
        task=Task(id=task["id"], description=task["description"], extensions=extensions_of(task)),
        claimed_outcome=document["claimed_outcome"],
        mutations=_mutations(document["mutations"], times),
        evidence=_evidence_list(document.get("evidence", []), times),
        policy=parse_policy_request(policy) if policy is not None else None,
        extensions=extensions_of(document),
    )


# A claim holds thousands of mutations and evidence records: each is made as its class's
# __init__ would make it (every field, in field order, into the instance's __dict__), without
# the frozen __init__'s object.__setattr__ per field, two thirds of its cost (issue 23).
# Each field is set in the fresh instance's dict by itself: half the time of one update()
# with keywords, whose dict is built only to be copied in.
# tests/test_loading_fast_paths.py holds each to the class's own __init__, field by field.
_new = object.__new__


def _mutations(items: Sequence[Mapping[str, JSON]],
               times: Mapping[str, datetime]) -> tuple[Mutation, ...]:
    extended = _extended(items)
    made: list[Mutation] = []
    for item in items:
        mutation = _new(Mutation)
        fields = mutation.__dict__
        fields["id"] = item["id"]
        fields["kind"] = item["kind"]
        fields["at"] = times[item["at"]]
        fields["target"] = item.get("target")
        fields["extensions"] = extensions_of(item) if extended else {}
        made.append(mutation)
    return tuple(made)


def _evidence_list(items: Sequence[Mapping[str, JSON]],
                   times: Mapping[str, datetime]) -> tuple[Evidence, ...]:
    extended = _extended(items)
    verifiers_extended = _extended(map(_VERIFIER, items))
    made: list[Evidence] = []
    for item in items:
        written = item["verifier"]
        verifier = _new(Verifier)
        fields = verifier.__dict__
        fields["id"] = written["id"]
        fields["kind"] = _verifier_kind(written["kind"])
        fields["extensions"] = extensions_of(written) if verifiers_extended else {}
        evidence = _new(Evidence)
        fields = evidence.__dict__
        fields["check_type"] = _check_type(item["check_type"])
        fields["at"] = times[item["at"]]
        fields["verifier"] = verifier
        fields["covers"] = tuple(item.get("covers", ()))
        fields["target"] = item.get("target")
        fields["expected"] = item.get("expected")
        fields["observed_value"] = item.get("observed_value")
        fields["has_observed_value"] = "observed_value" in item
        fields["extensions"] = extensions_of(item) if extended else {}
        made.append(evidence)
    return tuple(made)


_VERIFIER = itemgetter("verifier")


def dump_max_age(max_age: Mapping[CheckType, int]) -> JSON:
    values = {max_age[check] for check in CheckType if check in max_age}
    if len(values) == 1 and all(check in max_age for check in CheckType):
        return values.pop()
    return {str(check): max_age[check] for check in CheckType if check in max_age}


def dump_evidence(evidence: Evidence, extra: Mapping[str, JSON] | None = None) -> dict[str, JSON]:
    record: dict[str, Any] = {"check_type": str(evidence.check_type)}
    if evidence.target is not None:
        record["target"] = evidence.target
    if evidence.expected is not None:
        record["expected"] = dict(evidence.expected)
    if evidence.has_observed_value:
        record["observed_value"] = evidence.observed_value
    record["at"] = format_rfc3339(evidence.at)
    record["covers"] = list(evidence.covers)
    record["verifier"] = {
        "id": evidence.verifier.id,
        "kind": str(evidence.verifier.kind),
        **evidence.verifier.extensions,
    }
    record.update(evidence.extensions)
    if extra:
        record.update(extra)
    return record


def dump_claim_core(claim: Claim) -> dict[str, JSON]:
    """The agent-written parts of a claim (task, outcome, mutations), as JSON."""
    return {
        "spec_version": claim.spec_version,
        "task": {"id": claim.task.id, "description": claim.task.description,
                 **claim.task.extensions},
        "claimed_outcome": claim.claimed_outcome,
        "mutations": [
            {
                "id": mutation.id,
                "kind": mutation.kind,
                **({"target": mutation.target} if mutation.target is not None else {}),
                "at": format_rfc3339(mutation.at),
                **mutation.extensions,
            }
            for mutation in claim.mutations
        ],
        **claim.extensions,
    }
