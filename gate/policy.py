"""The operator's policy: what a claim must show, how fresh, and whom to trust.

The policy comes from the operator (a file, the action input, the base branch), never from
the PR. A claim may carry its own `policy`, which can only tighten this one: requirements
are the union, each age limit the smaller.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from gate.claim.codec import dump_max_age, parse_max_age
from gate.claim.jsondoc import MAX_DEPTH, decode_utf8, parse_json, read_capped
from gate.claim.jsonpos import pointer
from gate.claim.model import JSON, CheckType, PolicyRequest
from gate.errors import InvalidInput
from gate.evidence.junit_options import SECTION as JUNIT_SECTION
from gate.evidence.junit_options import parse_junit_options
from gate.evidence.probe.definitions import parse_probes
from gate.github.trust_policy import SECTIONS as TRUST_SECTIONS
from gate.github.trust_policy import parse_trust_policy

MAX_POLICY_BYTES = 1 << 20

DEFAULT_CODE_CHANGE_KINDS = ("file_write", "file_edit", "file_delete", "code_change", "commit")

#: Ages by check type in the built-in default: a CI test run is bound to its commit, so it may
#: count for a day; live observations of a deploy or a record go stale in minutes.
DEFAULT_MAX_AGE_S: Mapping[CheckType, int] = {
    CheckType.TEST_RUN: 86400,
    CheckType.ENDPOINT_HEALTH: 300,
    CheckType.STATE_READBACK: 300,
}

#: Top-level policy sections owned by other rooms of the gate (validated there).
#: probes: live checks (gate/evidence/probe); required_tests: test names every JUnit run must
#: show passed (gate/evidence/junit.py); evidence_chain, trusted_workflows, removed_tests,
#: deployment_creators: whose word counts on GitHub (gate/github/trust_policy.py); junit: how
#: JUnit cases are counted (gate/evidence/junit_options.py).
SECTIONS: frozenset[str] = (
    frozenset({"probes", "required_tests", JUNIT_SECTION}) | TRUST_SECTIONS
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


@dataclass(frozen=True)
class Policy:
    """An effective policy; `max_age_s` has a value for every check type."""

    id: str
    requires: tuple[CheckType, ...] = ()
    max_age_s: Mapping[CheckType, int] = field(default_factory=lambda: dict(DEFAULT_MAX_AGE_S))
    trusted_verifiers: tuple[str, ...] = ()
    code_change_kinds: tuple[str, ...] = DEFAULT_CODE_CHANGE_KINDS
    sections: Mapping[str, JSON] = field(default_factory=dict)
    source: str = "built-in"

    def max_age_for(self, check_type: CheckType) -> int:
        return self.max_age_s[check_type]

    def tightened_by(self, request: PolicyRequest | None) -> Policy:
        """Apply a claim's own policy: it can add requirements and shorten ages, nothing else."""
        if request is None:
            return self
        requires = ordered_checks(set(self.requires) | set(request.requires))
        ages = {
            check: min(self.max_age_s[check], request.max_age_s.get(check, self.max_age_s[check]))
            for check in CheckType
        }
        if requires == self.requires and ages == dict(self.max_age_s):
            return self
        return replace(self, id=f"{self.id}+claim", requires=requires, max_age_s=ages)

    def trusting(self, patterns: Iterable[str]) -> Policy:
        added = tuple(p for p in patterns if p not in self.trusted_verifiers)
        if not added:
            return self
        return replace(self, trusted_verifiers=self.trusted_verifiers + added)

    def to_json(self) -> dict[str, JSON]:
        """The policy object of the spec, plus the gate's own fields under `x-`."""
        return {
            "id": self.id,
            "requires": [str(check) for check in self.requires],
            "max_age_s": dump_max_age(self.max_age_s),
            "x-trusted-verifiers": list(self.trusted_verifiers),
            "x-code-change-kinds": list(self.code_change_kinds),
            **({"x-sections": dict(self.sections)} if self.sections else {}),
        }

    @property
    def digest(self) -> str:
        """sha256 of the canonical JSON of the effective policy: what decided is checkable."""
        canonical = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def describe(self) -> str:
        ages = ", ".join(f"{check}={self.max_age_s[check]}s" for check in CheckType)
        requires = ", ".join(self.requires) or "nothing beyond covering every mutation"
        return f"policy {self.id!r} from {self.source}: requires {requires}; max age {ages}"


def ordered_checks(checks: Iterable[CheckType]) -> tuple[CheckType, ...]:
    """Check types in the spec's order, once each: the digest must not depend on input order."""
    chosen = set(checks)
    return tuple(check for check in CheckType if check in chosen)


def default_policy() -> Policy:
    """Built-in default: every mutation covered; no check type required by name."""
    return Policy(id="claim-gate-default")


def parse_policy_document(raw: Any, source: str) -> Policy:
    """A policy from a parsed JSON/YAML mapping, validated; unknown keys are refused."""
    if not isinstance(raw, dict):
        raise InvalidInput(source, None, "a policy must be a mapping with at least an 'id'")
    schema = dict(_POLICY_SCHEMA)
    schema["properties"] = {**_POLICY_SCHEMA["properties"], **{s: {} for s in SECTIONS}}
    errors = sorted(Draft202012Validator(schema).iter_errors(raw), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        where = pointer(tuple(error.absolute_path)) or "(policy)"
        message = error.message
        if error.validator == "additionalProperties":
            message += " (a policy accepts id, requires, max_age_s, trusted_verifiers,"
            message += " code_change_kinds" + "".join(f", {s}" for s in sorted(SECTIONS))
            message += " and x- fields; a misspelt key would silently weaken the policy)"
        raise InvalidInput(source, None, f"{where}: {message}")
    if "probes" in raw:
        parse_probes(raw["probes"], source)  # the probes room refuses a bad probe at load time
    parse_trust_policy(raw, source)  # so do the trust sections
    if JUNIT_SECTION in raw:
        parse_junit_options(raw[JUNIT_SECTION], source)
    ages = dict(DEFAULT_MAX_AGE_S)
    if "max_age_s" in raw:
        ages.update(parse_max_age(raw["max_age_s"]))
    return Policy(
        id=raw["id"],
        requires=ordered_checks(CheckType(item) for item in raw.get("requires", [])),
        max_age_s=ages,
        trusted_verifiers=tuple(raw.get("trusted_verifiers", [])),
        code_change_kinds=tuple(raw.get("code_change_kinds", DEFAULT_CODE_CHANGE_KINDS)),
        sections={key: raw[key] for key in SECTIONS if key in raw},
        source=source,
    )


def parse_policy_text(text: str, source: str) -> Policy:
    """A policy written as JSON or YAML (YAML aliases are refused: no alias bombs)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return parse_policy_document(parse_json(text, source, "policy"), source)
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                mark = event.start_mark
                raise InvalidInput(
                    source, f"{mark.line + 1}:{mark.column + 1}" if mark else None,
                    "YAML aliases are not accepted in a policy", "write the value out",
                )
        raw = yaml.safe_load(text)
    except RecursionError:
        raise InvalidInput(source, None, "the policy is nested too deeply") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        place = f"{mark.line + 1}:{mark.column + 1}" if mark else None
        raise InvalidInput(source, place, f"the policy is not valid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise InvalidInput(source, None, f"the policy is not valid YAML: {exc}") from None
    _refuse_what_json_cannot_say(raw, source)
    return parse_policy_document(raw, source)


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
