"""The collectors' interface: each source observes and records, and never decides.

A collector gets the claim and the typed policy and returns what it `Collected`: evidence
items (with where they came from and anything it could see that rules them out), the facts
the engine's rules read, and what a reviewer should know (notes, links, failing tests, the
digests of every input). The pipeline merges them; only the engine judges them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from gate.claim.facts import EvidenceItem, Facts
from gate.claim.loader import LoadedClaim
from gate.claim.policy import Policy

if TYPE_CHECKING:
    from gate.claim.change_facts import ChangeReading
    from gate.claim.changed_paths import ChangedPaths
    from gate.claim.ci_facts import CiObservation
    from gate.claim.fail_to_pass import BaseCodeComparison
    from gate.claim.github_facts import PullObservation, TestSetComparison
    from gate.claim.junit_facts import FailingTest, JUnitRun


@dataclass(frozen=True)
class Collected:
    items: tuple[EvidenceItem, ...] = ()
    pull: PullObservation | None = None
    test_sets: tuple[TestSetComparison, ...] = ()
    notes: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    failing: tuple[FailingTest, ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()  # (what, sha256) for the record
    junit: tuple[JUnitRun, ...] = ()  # runs read from files the operator named
    ci: CiObservation | None = None  # the head's runs and unread artifacts (GitHub)
    changed: ChangedPaths | None = None  # the change's files (one collector observes them)
    change: ChangeReading | None = None  # what was read of the change's own files
    base_code: BaseCodeComparison | None = None  # the head's tests over the base's code

    def facts(self) -> Facts:
        return Facts(items=self.items, pull=self.pull, test_sets=self.test_sets, ci=self.ci,
                     changed=self.changed, change=self.change,
                     base_code=self.base_code)

    @classmethod
    def merge(cls, parts: Sequence[Collected]) -> Collected:
        pulls = [p.pull for p in parts if p.pull is not None]
        if len(pulls) > 1:
            raise ValueError("two collectors observed the PR; one must")
        changed = [p.changed for p in parts if p.changed is not None]
        if len(changed) > 1:
            raise ValueError("two collectors observed the changed files; one must")
        runs = [p.ci for p in parts if p.ci is not None]
        if len(runs) > 1:  # the completeness rules read one picture of CI, never the first
            raise ValueError("two collectors observed the CI runs; one must")
        readings = [p.change for p in parts if p.change is not None]
        if len(readings) > 1:
            raise ValueError("two collectors read the change's files; one must")
        base_code = [p.base_code for p in parts if p.base_code is not None]
        if len(base_code) > 1:
            raise ValueError("two collectors read a run over the base's code; one must")
        return cls(
            items=tuple(i for p in parts for i in p.items),
            pull=pulls[0] if pulls else None,
            test_sets=tuple(t for p in parts for t in p.test_sets),
            notes=tuple(n for p in parts for n in p.notes),
            links=tuple(n for p in parts for n in p.links),
            failing=tuple(n for p in parts for n in p.failing),
            inputs=tuple(n for p in parts for n in p.inputs),
            junit=tuple(n for p in parts for n in p.junit),
            ci=runs[0] if runs else None,
            changed=changed[0] if changed else None,
            change=readings[0] if readings else None,
            base_code=base_code[0] if base_code else None,
        )


class Collector(Protocol):
    """One source of evidence. `collect` raises InvalidInput for bad operator input and
    CouldNotDecide when it cannot observe what it must."""

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected: ...
