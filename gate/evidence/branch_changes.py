"""The branch's changes from git, for the producer-modified rule on the command line.

On GitHub the PR's file list tells the engine whether the change edited the workflow or the
test set-up that produced its evidence (`gate/engine/provenance.py`). Any other CI has the
same question and git has the answer: `verify --diff-base REF` reads `git diff
REF...HEAD` (`git_diff.changed_files`), and the engine judges every test run made by the
test job against the same evidence chain as the Action (`TrustPolicy.chain`). There is no
push to arrive here, so the observation carries no arrival: each run binds itself to the
commit it tested (`--head-sha`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gate.claim.errors import InvalidInput
from gate.claim.facts import EvidenceItem, Producer
from gate.claim.github_facts import PullChanges, PullObservation
from gate.claim.loader import LoadedClaim
from gate.claim.model import CheckType
from gate.claim.policy import Policy
from gate.evidence.git_diff import GitDiffError, changed_files
from gate.evidence.interface import Collected, Collector


@dataclass(frozen=True)
class BranchChanges:
    """`git diff BASE...HEAD` in `repo` as the engine's change observation."""

    repo: Path
    base: str
    head: str = "HEAD"

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        try:
            changes = changed_files(self.repo, self.base, self.head)
        except GitDiffError as exc:
            raise InvalidInput(f"--diff-base {self.base}", None, str(exc)) from None
        paths = frozenset(p for change in changes for p in change.paths)
        observed = PullObservation(PullChanges(paths, complete=True), arrival=None)
        note = f"git diff {self.base}...{self.head[:12]}: {len(paths)} path(s) changed"
        return Collected(pull=observed, notes=(note,))


@dataclass(frozen=True)
class MadeByTheTestJob:
    """The test runs another collector read were made by the CI's test job, which runs the
    repository's own test set-up: the engine judges their producer (`Producer(None)`: no
    GitHub workflow file names it)."""

    inner: Collector

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        found = self.inner.collect(loaded, policy)
        return replace(found, items=_produced(found.items))


def _produced(items: Sequence[EvidenceItem]) -> tuple[EvidenceItem, ...]:
    return tuple(
        replace(item, producer=item.producer or Producer(None))
        if item.evidence.check_type is CheckType.TEST_RUN else item
        for item in items
    )
