"""The in-toto attestation framework's definitions, as the tests check a statement with them."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from in_toto_attestation.predicates.vsa.v1 import vsa_pb2
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement


def validate_in_toto(statement: dict[str, Any]) -> None:
    """The framework's definitions: the Statement v1 message (strict: unknown top-level keys
    fail) and its validate(); the predicate as the VSA v1 message, strict, less the `x-`
    extensions and `verifier.version` (a SLSA VSA v1 field the framework's proto lacks)."""
    parsed = json_format.ParseDict(statement, statement_pb2.Statement())
    Statement.copy_from_pb(parsed).validate()
    predicate = {k: v for k, v in statement["predicate"].items() if not k.startswith("x-")}
    predicate["verifier"] = {k: v for k, v in predicate["verifier"].items() if k != "version"}
    json_format.ParseDict(predicate, vsa_pb2.VerificationSummary())
