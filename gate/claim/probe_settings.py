"""The probes the operator's policy defines, as frozen values (parsed in `probe_policy`).

Pure types, so the engine and the typed policy can name them without pulling in the parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from gate.claim.model import JSON

SECTION = "probes"
DEFAULT_TIMEOUT_S = 10.0
DEFAULT_WINDOW_S = 60.0
DEFAULT_BACKOFF_S = 1.0
DEFAULT_MAX_BACKOFF_S = 10.0
DEFAULT_MAX_RESPONSE_BYTES = 1 << 20
DEFAULT_MAX_PROBES = 50
#: All of a run's probes share this many seconds (50 probes with a 60 s window each: 50 minutes).
DEFAULT_DEADLINE_S = 300.0


class AssertionKind(StrEnum):
    JSON_POINTER = "json_pointer"
    HEADER = "header"
    BODY_CONTAINS = "body_contains"


@dataclass(frozen=True)
class Assertion:
    """One deploy-specific assertion; `key` names it in `expected` and `observed_value`."""

    kind: AssertionKind
    key: str
    subject: str  # the pointer, the header name (lower case) or the substring template
    equals: JSON = None


@dataclass(frozen=True)
class HeaderValue:
    """A request header: a literal, or a secret read from an environment variable. A secret
    is bound to `hosts` (the policy's `hosts`, else the probe's own fixed URL): it is never
    sent anywhere else."""

    name: str
    literal: str | None = None
    env: str | None = None
    prefix: str = ""
    hosts: tuple[HostRule, ...] = ()

    def refuses(self, host: str, port: int) -> bool:
        """A secret header may not go to this host (literals go wherever the probe goes)."""
        return self.env is not None and not any(rule.allows(host, port) for rule in self.hosts)


@dataclass(frozen=True)
class Retry:
    """"Not yet" answers (connection refused, timeout, 5xx) are retried within `window_s`."""

    window_s: float = DEFAULT_WINDOW_S
    backoff_s: float = DEFAULT_BACKOFF_S
    max_backoff_s: float = DEFAULT_MAX_BACKOFF_S


@dataclass(frozen=True)
class EndpointProbe:
    environment: str
    url: str | None  # fixed by the operator, or None: the environment URL plus `path`
    path: str
    method: str
    status: int
    headers: tuple[HeaderValue, ...]
    assertions: tuple[Assertion, ...]
    place: str


@dataclass(frozen=True)
class ReadbackProbe:
    target: str
    pattern: re.Pattern[str]
    url: str
    headers: tuple[HeaderValue, ...]
    fields: tuple[str, ...] | None
    record: str
    absent_status: tuple[int, ...]
    place: str

    def match(self, target: str) -> dict[str, str] | None:
        """The template fields a claim target fills in, or None if it does not match."""
        found = self.pattern.fullmatch(target)
        if found is None:
            return None
        values = found.groupdict()
        if any(value in (".", "..") for value in values.values()):
            return None
        return values


@dataclass(frozen=True)
class HostRule:
    host: str
    port: int | None
    wildcard: bool

    def allows(self, host: str, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.wildcard:
            return host.endswith("." + self.host)
        return host == self.host


@dataclass(frozen=True)
class ProbeSettings:
    allowed_hosts: tuple[HostRule, ...]
    allow_http: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    retry: Retry = Retry()
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    #: A claim names its targets, so it could ask for thousands of readbacks: beyond this
    #: many probes in one run the rest are not made (their mutations stay unverified).
    max_probes: int = DEFAULT_MAX_PROBES
    #: One overall deadline for all of a run's probes; the ones not made in time are absent.
    deadline_s: float = DEFAULT_DEADLINE_S
    ca_bundle: str | None = None
    endpoint_health: tuple[EndpointProbe, ...] = ()
    state_readback: tuple[ReadbackProbe, ...] = ()
