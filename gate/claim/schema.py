"""The shipped JSON Schema of claim v0.1 and validation with readable, located errors."""

from __future__ import annotations

import json
import pkgutil
from collections.abc import Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING, Any

from gate.claim.jsonpos import pointer
from gate.claim.schema_check import Check, compile_schema
from gate.claim.timefmt import TimestampError, parse_rfc3339

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError


def schema_text() -> str:
    """The schema exactly as shipped (what `claim-gate schema` prints). Read by the package's
    own loader (a file or a zip member alike): `importlib.resources` imported tempfile and
    zipfile on every start (issue 23)."""
    data = pkgutil.get_data("gate.claim", "schema.json")
    if data is None:  # a loader that cannot read package data: none of the standard ones
        raise FileNotFoundError("gate/claim/schema.json: the package's loader cannot read it")
    return data.decode("utf-8")


@cache
def claim_schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


def _validator_for(ref: str | None) -> Draft202012Validator:
    # jsonschema (with referencing and its bundled meta-schemas) costs a tenth of a second to
    # import: only a document that is validated pays for it (issue 23).
    from jsonschema import Draft202012Validator

    root = claim_schema()
    if ref is None:
        return Draft202012Validator(root)
    # A sub-schema that keeps `$ref`s to the root resolvable.
    return Draft202012Validator({"$ref": ref, "$defs": root["$defs"]})


@cache
def validator(ref: str | None = None) -> Draft202012Validator:
    """The validator for the whole claim (ref None) or for `#/$defs/<name>`."""
    return _validator_for(ref)


@cache
def conforms(ref: str | None = None) -> Check:
    """The compiled check of the whole claim (ref None) or of `#/$defs/<name>`: true exactly
    when jsonschema finds the document valid, a tenth of its time and without importing it."""
    return compile_schema(claim_schema(), ref)


def schema_errors(document: Any, ref: str | None = None) -> Iterator[tuple[str, str]]:
    """Yield (JSON pointer, message) for every schema violation, in document order. A valid
    document is answered by the compiled check; jsonschema explains an invalid one."""
    if conforms(ref)(document):
        return
    errors = sorted(validator(ref).iter_errors(document), key=lambda e: list(map(str, e.path)))
    for error in errors:
        yield pointer(tuple(error.absolute_path)), _describe(error)


def _describe(error: ValidationError) -> str:
    last = error.absolute_path[-1] if error.absolute_path else None
    if error.validator == "pattern" and last in ("at", "decided_at") and isinstance(
        error.instance, str
    ):
        try:
            parse_rfc3339(error.instance)
        except TimestampError as exc:
            return str(exc)
    if error.validator == "additionalProperties":
        return f"{error.message}; extra fields are allowed only under an 'x-' prefix"
    if error.validator == "required":
        return error.message.replace("is a required property", "is required here")
    explain: dict[str, Callable[[ValidationError], str]] = {
        "const": lambda e: f"{e.instance!r} must be {e.validator_value!r}",
        "enum": lambda e: f"{e.instance!r} is not one of {_listed(e.validator_value)}",
    }
    describe = explain.get(str(error.validator))
    return describe(error) if describe else error.message


def _listed(values: object) -> str:
    return ", ".join(map(str, values)) if isinstance(values, list) else str(values)
