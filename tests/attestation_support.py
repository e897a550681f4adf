"""The in-toto attestation framework's definitions, as the tests check a statement with them."""

from __future__ import annotations

import re
from typing import Any

from google.protobuf import json_format
from in_toto_attestation.predicates.vsa.v1 import vsa_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement

#: A SLSA track level (`SLSA_BUILD_LEVEL_3`), as the VSA v1 page and slsa-verifier spell one.
SLSA_TRACK_LEVEL = re.compile(r"^SLSA_[A-Z]+_LEVEL_[0-9]+$")


def validate_in_toto(statement: dict[str, Any]) -> None:
    """The framework's definitions: the Statement v1 message (strict: unknown top-level keys
    fail) and its validate(); the predicate as the VSA v1 message, strict, less the `x-`
    extensions, `verifier.version` (a SLSA VSA v1 field the framework's proto lacks) and
    `verifiedLevels`, which the proto types as one string where the SLSA page (and
    slsa-verifier) read a list: that field is checked against the page's rules here instead."""
    parsed = json_format.ParseDict(statement, statement_pb2.Statement())
    Statement.copy_from_pb(parsed).validate()
    predicate = {k: v for k, v in statement["predicate"].items() if not k.startswith("x-")}
    predicate["verifier"] = {k: v for k, v in predicate["verifier"].items() if k != "version"}
    check_verified_levels(predicate.pop("verifiedLevels"))
    json_format.ParseDict(predicate, vsa_pb2.VerificationSummary())


def check_verified_levels(levels: Any) -> None:
    """SLSA VSA v1: a list of SlsaResult strings, at most one level per track, FAILED when
    verification failed; a custom level must not start with `SLSA_` (that prefix names a
    track, and slsa-verifier parses it as one)."""
    assert isinstance(levels, list), f"verifiedLevels is {type(levels).__name__}, not a list"
    assert levels, "verifiedLevels is empty"
    tracks: list[str] = []
    for level in levels:
        assert isinstance(level, str), f"{level!r} is not a string"
        assert level, "a level is empty"
        if level.startswith("SLSA_"):
            assert SLSA_TRACK_LEVEL.match(level), f"{level!r} is not SLSA_<TRACK>_LEVEL_<n>"
            tracks.append(level.split("_")[1])
    assert len(tracks) == len(set(tracks)), f"more than one level per track in {levels}"
