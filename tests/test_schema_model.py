"""The shipped JSON Schema and the frozen model must not drift apart."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gate.claim.codec import dump_claim_core, dump_evidence, parse_claim
from gate.claim.model import (
    CheckType,
    Claim,
    Evidence,
    Mutation,
    Task,
    VerdictState,
    Verifier,
    VerifierKind,
)
from gate.claim.schema import claim_schema, schema_text, validator
from tests.builders import claim, evidence, mutation

DEFS = claim_schema()["$defs"]
INTERNAL = {"extensions", "has_observed_value"}


def model_fields(cls: type[Any]) -> set[str]:
    return {f.name for f in fields(cls)} - INTERNAL


@pytest.mark.parametrize(
    ("cls", "definition", "engine_owned"),
    [
        (Claim, "claim", {"verdict"}),
        (Task, "task", set()),
        (Mutation, "mutation", set()),
        (Evidence, "evidence", set()),
        (Verifier, "verifier", set()),
    ],
)
def test_every_schema_property_is_a_model_field(
    cls: type[Any], definition: str, engine_owned: set[str]
) -> None:
    properties = set(DEFS[definition]["properties"])
    assert properties - engine_owned == model_fields(cls)


def test_enums_match_the_schema() -> None:
    assert DEFS["check_type"]["enum"] == [c.value for c in CheckType]
    assert DEFS["verifier"]["properties"]["kind"]["enum"] == [k.value for k in VerifierKind]
    assert DEFS["verdict"]["properties"]["state"]["enum"] == [s.value for s in VerdictState]


def test_the_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(json.loads(schema_text()))


def test_only_x_prefixed_extras_are_allowed_everywhere() -> None:
    for name in ("claim", "task", "mutation", "evidence", "verifier", "policy", "verdict", "unmet"):
        assert DEFS[name]["additionalProperties"] is False, name
        assert DEFS[name]["patternProperties"] == {"^x-": {}}, name


def test_a_dumped_claim_parses_back_to_the_same_model() -> None:
    original = claim(
        [mutation("m1"), mutation("c1", kind="file_edit", target=None, when=3)],
        claim_evidence=[evidence(expected={"a": 1}, observed={"a": 1})],
    )
    document = dump_claim_core(original)
    document["evidence"] = [dump_evidence(e) for e in original.evidence]
    assert list(validator().iter_errors(document)) == []
    assert parse_claim(document) == original
