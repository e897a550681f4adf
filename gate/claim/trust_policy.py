"""The owner's answers to "whose word counts" on GitHub, as policy sections.

    evidence_chain:            # files that produce or shape CI evidence
      paths: [...]             # globs; default DEFAULT_CHAIN below
      allow_pr_changes: false  # true: evidence from a PR that edits them still counts
    trusted_workflows: [.github/workflows/ci.yml]   # default: every workflow the PR left alone
    removed_tests: unverified  # or refuted, or warn
    deployment_creators: [deploy-bot[bot]]          # default: no deployment status counts
    deployment_success_counts: false   # true: a named creator's `success` is endpoint_health

Each section is validated when the policy is loaded (`parse_trust_policy`), so a misspelt
key or a wrong type is invalid input naming the section, never a silently weaker gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gate.claim.errors import InvalidInput

EVIDENCE_CHAIN = "evidence_chain"
TRUSTED_WORKFLOWS = "trusted_workflows"
REMOVED_TESTS = "removed_tests"
DEPLOYMENT_CREATORS = "deployment_creators"
DEPLOYMENT_SUCCESS_COUNTS = "deployment_success_counts"
SECTIONS = frozenset({EVIDENCE_CHAIN, TRUSTED_WORKFLOWS, REMOVED_TESTS, DEPLOYMENT_CREATORS,
                      DEPLOYMENT_SUCCESS_COUNTS})

#: What produces and shapes test evidence: the workflows and actions that run the tests and
#: the test runners' configuration (a conftest.py can mark every test passed).
DEFAULT_CHAIN: tuple[str, ...] = (
    ".github/workflows/**",
    ".github/actions/**",
    "pytest.ini",
    "pyproject.toml",
    "conftest.py",
    "**/conftest.py",
    "jest.config.*",
    "**/jest.config.*",
    "tox.ini",
    "setup.cfg",
)


class RemovedTests(StrEnum):
    UNVERIFIED = "unverified"
    REFUTED = "refuted"
    WARN = "warn"


@dataclass(frozen=True)
class TrustPolicy:
    chain: tuple[str, ...] = DEFAULT_CHAIN
    allow_pr_changes: bool = False
    trusted_workflows: tuple[str, ...] | None = None  # None: all the PR did not change
    removed_tests: RemovedTests = RemovedTests.UNVERIFIED
    deployment_creators: tuple[str, ...] = ()
    #: Opt-in: a `success` status from a named creator satisfies endpoint_health by itself
    #: (the pipeline's account, trusted on purpose); default: only a live probe does.
    deployment_success_counts: bool = False


def _strings(value: Any, source: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidInput(source, None, f"/{where} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def parse_trust_policy(sections: Mapping[str, Any], source: str) -> TrustPolicy:
    """The trust sections of a policy (absent ones take their defaults)."""
    policy = TrustPolicy()
    chain = sections.get(EVIDENCE_CHAIN)
    if chain is not None:
        if not isinstance(chain, Mapping):
            raise InvalidInput(source, None, f"/{EVIDENCE_CHAIN} must be a mapping",
                               "give `paths` and/or `allow_pr_changes`")
        unknown = sorted(set(chain) - {"paths", "allow_pr_changes"})
        if unknown:
            raise InvalidInput(source, None, f"/{EVIDENCE_CHAIN}: unknown key(s) {unknown}",
                               "the section accepts paths and allow_pr_changes")
        allow = chain.get("allow_pr_changes", False)
        if not isinstance(allow, bool):
            raise InvalidInput(source, None, f"/{EVIDENCE_CHAIN}/allow_pr_changes must be"
                               " true or false")
        paths = chain.get("paths")
        policy = TrustPolicy(
            chain=DEFAULT_CHAIN if paths is None else _strings(
                paths, source, f"{EVIDENCE_CHAIN}/paths"),
            allow_pr_changes=allow,
        )
    trusted = sections.get(TRUSTED_WORKFLOWS)
    removed = sections.get(REMOVED_TESTS, RemovedTests.UNVERIFIED.value)
    if not isinstance(removed, str) or removed not in set(RemovedTests):
        raise InvalidInput(source, None, f"/{REMOVED_TESTS}: {removed!r} is not one of"
                           " unverified, refuted, warn")
    creators = sections.get(DEPLOYMENT_CREATORS)
    success_counts = sections.get(DEPLOYMENT_SUCCESS_COUNTS, False)
    if not isinstance(success_counts, bool):
        raise InvalidInput(source, None, f"/{DEPLOYMENT_SUCCESS_COUNTS} must be true or false")
    if success_counts and not creators:
        raise InvalidInput(
            source, None, f"/{DEPLOYMENT_SUCCESS_COUNTS} needs /{DEPLOYMENT_CREATORS}",
            "name the accounts whose deployment statuses count",
        )
    return TrustPolicy(
        chain=policy.chain,
        allow_pr_changes=policy.allow_pr_changes,
        trusted_workflows=None if trusted is None else _strings(
            trusted, source, TRUSTED_WORKFLOWS),
        removed_tests=RemovedTests(removed),
        deployment_creators=() if creators is None else _strings(
            creators, source, DEPLOYMENT_CREATORS),
        deployment_success_counts=success_counts,
    )
