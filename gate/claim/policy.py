"""The operator's policy as typed values: what a claim must show, how fresh, whom to trust.

Parsed once at the edge (`policy_parse`); the engine and the collectors read these fields,
never raw JSON.

The policy comes from the operator (a file, the action input, the base branch), never from
the PR. A claim may carry its own `policy`, which can only tighten this one: requirements
are the union, each age limit the smaller.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gate.claim.claim_rules import ClaimRules
from gate.claim.codec import dump_max_age
from gate.claim.fail_to_pass import FailToPassPolicy
from gate.claim.junit_options import JUnitOptions
from gate.claim.model import JSON, CheckType, PolicyRequest
from gate.claim.trust_policy import TrustPolicy

if TYPE_CHECKING:
    from gate.claim.probe_settings import ProbeSettings

DEFAULT_CODE_CHANGE_KINDS = ("file_write", "file_edit", "file_delete", "code_change", "commit")

#: Ages by check type in the built-in default: a CI test run is bound to its commit, so it may
#: count for a day; live observations of a deploy or a record go stale in minutes.
DEFAULT_MAX_AGE_S: Mapping[CheckType, int] = {
    CheckType.TEST_RUN: 86400,
    CheckType.ENDPOINT_HEALTH: 300,
    CheckType.STATE_READBACK: 300,
}


@dataclass(frozen=True)
class Policy:
    """An effective policy; `max_age_s` has a value for every check type."""

    id: str
    requires: tuple[CheckType, ...] = ()
    max_age_s: Mapping[CheckType, int] = field(default_factory=lambda: dict(DEFAULT_MAX_AGE_S))
    trusted_verifiers: tuple[str, ...] = ()
    code_change_kinds: tuple[str, ...] = DEFAULT_CODE_CHANGE_KINDS
    #: Whose word counts on GitHub (evidence chain, workflows, removed tests, deployments).
    trust: TrustPolicy = field(default_factory=TrustPolicy)
    #: Live probes (None: the policy defines none).
    probes: ProbeSettings | None = None
    #: Tests every JUnit run must show passed (the `required_tests` section).
    required_tests: tuple[str, ...] = ()
    #: How JUnit cases that share an identity are counted (the `junit` section).
    junit: JUnitOptions = field(default_factory=JUnitOptions)
    #: Rules about the claim itself: unclaimed_ok globs, who may be overruled (claim_rules).
    claims: ClaimRules = field(default_factory=ClaimRules)
    #: Fail-to-pass tests: off, listed (default) or required (`fail_to_pass`, `test_paths`).
    fail_to_pass: FailToPassPolicy = field(default_factory=FailToPassPolicy)
    #: The sections as the operator wrote them: for the record and the digest only; every
    #: reader uses the typed fields above, parsed once when the policy was loaded.
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


