"""Policy text (JSON or YAML) -> a typed `Policy`, validated; loading a file is the edge.

Every section is parsed here, once: a misspelt key or a wrong type is invalid input naming
the place, never a silently weaker gate.
"""

from __future__ import annotations

import datetime
import difflib
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gate.claim.claim_rules import SECTIONS as CLAIM_SECTIONS
from gate.claim.claim_rules import parse_claim_rules
from gate.claim.codec import parse_max_age
from gate.claim.errors import InvalidInput
from gate.claim.fail_to_pass import SECTIONS as FAIL_TO_PASS_SECTIONS
from gate.claim.fail_to_pass import parse_fail_to_pass
from gate.claim.jsondoc import MAX_DEPTH, decode_utf8, parse_json, read_capped
from gate.claim.jsonpos import Position, escape_pointer_token, pointer, value_positions
from gate.claim.junit_options import SECTION as JUNIT_SECTION
from gate.claim.junit_options import JUnitOptions, parse_junit_options
from gate.claim.model import CheckType
from gate.claim.policy import (
    DEFAULT_CODE_CHANGE_KINDS,
    DEFAULT_MAX_AGE_S,
    Policy,
    ordered_checks,
)
from gate.claim.probe_policy import parse_probes
from gate.claim.probe_settings import SECTION as PROBES
from gate.claim.trust_policy import SECTIONS as TRUST_SECTIONS
from gate.claim.trust_policy import parse_trust_policy

MAX_POLICY_BYTES = 1 << 20
REQUIRED_TESTS = "required_tests"

#: Top-level policy sections owned by other rooms of the gate (validated there).
#: probes: live checks (gate/evidence/probe); required_tests: test names every JUnit run must
#: show passed (gate/evidence/junit.py); evidence_chain, trusted_workflows, removed_tests,
#: deployment_creators: whose word counts on GitHub (gate/claim/trust_policy.py); junit: how
#: JUnit cases are counted (gate/claim/junit_options.py); claim rules (gate/claim/claim_rules.py);
#: fail_to_pass, test_paths: tests that fail on the base's code (gate/claim/fail_to_pass.py).
SECTIONS: frozenset[str] = (
    frozenset({PROBES, REQUIRED_TESTS, JUNIT_SECTION}) | TRUST_SECTIONS | CLAIM_SECTIONS
    | FAIL_TO_PASS_SECTIONS
)

_CHECK_TYPE = {"enum": [str(check) for check in CheckType]}
_POLICY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "requires": {"type": "array", "items": _CHECK_TYPE, "uniqueItems": True},
        "max_age_s": {
            "oneOf": [
                {"type": "integer", "minimum": 0},
                {
                    "type": "object",
                    "propertyNames": _CHECK_TYPE,
                    "additionalProperties": {"type": "integer", "minimum": 0},
                },
            ]
        },
        "trusted_verifiers": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "code_change_kinds": {
            "type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1,
        },
    },
    "patternProperties": {"^x-": {}},
    "additionalProperties": False,
}


_UNKNOWN_KEY = re.compile(r"(?P<where>/\S*): unknown keys? (?P<key>[^\s,]+)")
#: Every top-level key a policy may have (besides `x-` fields), in the order they are listed.
KEYS: tuple[str, ...] = (*_POLICY_SCHEMA["properties"], *sorted(SECTIONS))


def _place(positions: Mapping[str, Position], where: str) -> str | None:
    """`line:column` of the nearest written ancestor of `where` (a JSON pointer)."""
    while True:
        if where in positions:
            return str(positions[where])
        if not where:
            return None
        where = where.rpartition("/")[0]


def _refuse_unknown_keys(raw: dict[Any, Any], source: str,
                         positions: Mapping[str, Position]) -> None:
    """The first key no policy has, at its place, with the nearest known key: a misspelt
    `requirez` is named before anything it makes missing (the `id` check comes after)."""
    unknown = [k for k in raw if str(k) not in KEYS and not str(k).startswith("x-")]
    if not unknown:
        return
    key = str(unknown[0])
    close = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
    accepts = f"a policy accepts {', '.join(KEYS)} and x- fields"
    raise InvalidInput(
        source, _place(positions, pointer((key,))),
        f"{pointer((key,))}: unknown key {key!r}: a misspelt key would silently weaken the"
        " policy", f"did you mean {close[0]}? {accepts}" if close else accepts,
    )


def parse_policy_document(raw: Any, source: str,
                          positions: Mapping[str, Position] | None = None) -> Policy:
    """A policy from a parsed JSON/YAML mapping, validated; unknown keys are refused.
    `positions`: where each value is written (by JSON pointer), for `file:line:column`."""
    if not isinstance(raw, dict):
        raise InvalidInput(source, None, "a policy must be a mapping with at least an 'id'")
    # jsonschema is imported when a policy is read, not at every start (issue 23).
    from jsonschema import Draft202012Validator

    places = positions or {}
    _refuse_unknown_keys(raw, source, places)
    schema = dict(_POLICY_SCHEMA)
    schema["properties"] = {**_POLICY_SCHEMA["properties"], **{s: {} for s in SECTIONS}}
    errors = sorted(Draft202012Validator(schema).iter_errors(raw), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        where = pointer(tuple(error.absolute_path))
        raise InvalidInput(source, _place(places, where), f"{where or '(policy)'}: {error.message}")
    try:
        return _typed(raw, source)
    except InvalidInput as exc:  # a section's own check: put its pointer on a line
        if exc.place is not None or not exc.problem.startswith("/"):
            raise
        where = exc.problem.split(" ", 1)[0].rstrip(":")
        named = _UNKNOWN_KEY.match(exc.problem)  # a section's unknown key: at the key itself
        if named is not None:
            where = f"{named['where']}/{escape_pointer_token(named['key'])}"
        raise InvalidInput(source, _place(places, where), exc.problem, exc.fix,
                           exc.more) from None


def _typed(raw: dict[str, Any], source: str) -> Policy:
    ages = dict(DEFAULT_MAX_AGE_S)
    if "max_age_s" in raw:
        ages.update(parse_max_age(raw["max_age_s"]))
    return Policy(
        id=raw["id"],
        requires=ordered_checks(CheckType(item) for item in raw.get("requires", [])),
        max_age_s=ages,
        trusted_verifiers=tuple(raw.get("trusted_verifiers", [])),
        code_change_kinds=tuple(raw.get("code_change_kinds", DEFAULT_CODE_CHANGE_KINDS)),
        trust=parse_trust_policy(raw, source),
        probes=parse_probes(raw[PROBES], source) if PROBES in raw else None,
        required_tests=test_names(raw.get(REQUIRED_TESTS, []), source, REQUIRED_TESTS),
        junit=parse_junit_options(raw[JUNIT_SECTION], source) if JUNIT_SECTION in raw
        else JUnitOptions(),
        claims=parse_claim_rules(raw, source),
        fail_to_pass=parse_fail_to_pass(raw, source),
        sections={key: raw[key] for key in SECTIONS if key in raw},
        source=source,
    )


def parse_policy_text(text: str, source: str) -> Policy:
    """A policy written as JSON or YAML (YAML aliases are refused: no alias bombs)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return parse_policy_document(parse_json(text, source, "policy"), source,
                                     value_positions(text))
    # PyYAML is imported only for a YAML policy, not at every start (issue 23).
    import yaml

    from gate.claim.yamldoc import safe_load_strict, yaml_positions

    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                raise InvalidInput(
                    source, f"{mark.line + 1}:{mark.column + 1}" if mark else None,
                    "YAML aliases are not accepted in a policy", "write the value out",
                )
        raw = safe_load_strict(text)  # a key written twice is refused, as in JSON
    except RecursionError:
        raise InvalidInput(source, None, "the policy is nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"{mark.line + 1}:{mark.column + 1}" if mark else None
        raise InvalidInput(source, place, f"the policy is not valid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise InvalidInput(source, None, f"the policy is not valid YAML: {exc}") from None
    _refuse_what_json_cannot_say(raw, source)
    return parse_policy_document(raw, source, yaml_positions(text))


def _refuse_what_json_cannot_say(raw: Any, source: str) -> None:
    """A YAML policy must be what its JSON twin would be: its digest is of canonical JSON, and
    the validators expect text keys. YAML alone has non-text keys, dates, binary, .nan."""
    pending: list[tuple[Any, tuple[str | int, ...]]] = [(raw, ())]
    while pending:
        value, path = pending.pop()
        where = pointer(path) or "(policy)"
        problem = None
        if len(path) >= MAX_DEPTH:
            raise InvalidInput(source, None, f"the policy is nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise InvalidInput(
                        source, None, f"{pointer((*path, str(key)))}: a key must be text, not"
                        f" {type(key).__name__}", "quote it",
                    )
                pending.append((key, (*path, key)))
                pending.append((item, (*path, key)))
        elif isinstance(value, list):
            pending.extend((item, (*path, index)) for index, item in enumerate(value))
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                problem = "a lone surrogate (\\ud800-\\udfff) is not a character"
        elif isinstance(value, float) and not math.isfinite(value):
            problem = f"{value} is not a JSON number"
        elif isinstance(value, datetime.date):
            problem = f"a date ({value}) is not JSON; quote it if it is meant as text"
        elif value is not None and not isinstance(value, bool | int | float):
            problem = f"a YAML {type(value).__name__} is not JSON"
        if problem is not None:
            raise InvalidInput(source, None, f"{where}: {problem}")


def load_policy(path: Path) -> Policy:
    data = read_capped(path, MAX_POLICY_BYTES, "policy")
    return parse_policy_text(decode_utf8(data, str(path), "policy"), str(path))


def test_names(value: Any, source: str, where: str) -> tuple[str, ...]:
    """A list of test names (the policy's `required_tests`, a claim's `x-required-tests`)."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidInput(
            source, None, f"{where} must be a list of test names (non-empty strings)",
            "e.g. ['tests/test_api.py::test_login', 'com.acme.FooTest::testBar']",
        )
    return tuple(dict.fromkeys(v.strip() for v in value))
