"""The completion claim v0.1 as frozen data.

Field names follow the spec object one to one (the shipped JSON Schema is checked against
these classes by a test). `extensions` keeps the `x-` fields a writer added, so that a
completed record round-trips them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

SPEC_VERSION = "0.1"

JSON = Any
"""A value as `json.loads` returns it; only the boundary modules look inside one."""

#: Mutation kinds the live checks know (a deploy needs endpoint_health, a state write a
#: state_readback), and where a mutation states the record it meant to write.
DEPLOY_KIND = "deploy"
STATE_WRITE_KIND = "state_write"
INTENDED_EXTENSION = "x-intended"


class CheckType(StrEnum):
    """The three check types of spec v0.1."""

    TEST_RUN = "test_run"
    ENDPOINT_HEALTH = "endpoint_health"
    STATE_READBACK = "state_readback"


class VerifierKind(StrEnum):
    """Who observed: something outside the agent loop, or the agent itself."""

    INDEPENDENT = "independent"
    SELF_ATTESTED = "self_attested"


class VerdictState(StrEnum):
    """The three verdict states; `unverified` and `refuted` call for different responses."""

    VERIFIED = "verified"
    UNVERIFIED = "unverified"
    REFUTED = "refuted"


@dataclass(frozen=True)
class Task:
    id: str
    description: str
    extensions: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class Mutation:
    id: str
    kind: str
    at: datetime
    target: str | None = None
    extensions: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class Verifier:
    id: str
    kind: VerifierKind
    extensions: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class Evidence:
    """One observation, as its producer recorded it (its label is not yet trusted)."""

    check_type: CheckType
    at: datetime
    verifier: Verifier
    covers: tuple[str, ...] = ()
    target: str | None = None
    expected: Mapping[str, JSON] | None = None
    observed_value: JSON = None
    has_observed_value: bool = False
    extensions: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class PolicyRequest:
    """A policy as a claim states it: it may only tighten the operator's policy."""

    id: str | None
    requires: tuple[CheckType, ...]
    max_age_s: Mapping[CheckType, int]
    extensions: Mapping[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True)
class Claim:
    spec_version: str
    task: Task
    claimed_outcome: str
    mutations: tuple[Mutation, ...]
    evidence: tuple[Evidence, ...] = ()
    policy: PolicyRequest | None = None
    extensions: Mapping[str, JSON] = field(default_factory=dict)
