"""The branch's changes from git, for the rules that read a change's files on the command line.

On GitHub the PR's file list tells the engine whether the change edited the workflow or the
test set-up that produced its evidence (`gate/engine/provenance.py`), and whether the claim
names every changed file and only changed files (`gate/engine/diff_coverage.py`). Any other
CI has the same questions and git has the answer: `verify --diff-base REF` reads `git diff
REF...HEAD` (`git_diff.changed_files`), and the engine judges both against the same policy
as the Action. There is no push to arrive here, so the observation carries no arrival: each
run binds itself to the commit it tested (`--head-sha`).
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from pathlib import Path

from gate.claim.change_facts import ChainFileChange
from gate.claim.changed_paths import BaseTip, ChangedPaths
from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.claim.errors import InvalidInput
from gate.claim.facts import EvidenceItem, Producer
from gate.claim.github_facts import ChangedFile, PullChanges, PullObservation
from gate.claim.loader import LoadedClaim
from gate.claim.model import CheckType
from gate.claim.policy import Policy
from gate.claim.wording import plural
from gate.evidence.chain_files import chain_file_change, is_structured, unread
from gate.evidence.change_reach import reading_note
from gate.evidence.git_change_reading import read_git_change
from gate.evidence.git_claim import path_in_repository
from gate.evidence.git_diff import (
    DiffRange,
    GitDiffError,
    changed_in,
    contains_base,
    resolve_range,
)
from gate.evidence.git_probe import run_git
from gate.evidence.git_submodules import inside, submodule_bumps
from gate.evidence.git_tree import GitRunner
from gate.evidence.interface import Collected, Collector


@dataclass(frozen=True)
class BranchChanges:
    """`git diff BASE...HEAD` in `repo` as the engine's change observation: the paths for
    the producer rule, the file list (with the claim file, which needs no mutation of its
    own) for the claim-matches-diff rule, and the reading of the changed files at HEAD for
    the reach rule (`gate/engine/change_reach.py`)."""

    repo: Path
    base: str
    head: str = "HEAD"
    claim: Path | None = None
    #: The range already resolved by the caller (`verify` resolves it once for the subject).
    resolved: DiffRange | None = None

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        try:
            resolved = self.resolved or resolve_range(self.repo, self.base, self.head)
            changes = changed_in(resolved)
            contained, merged = contains_base(resolved)
            bumped = [p for b in submodule_bumps(resolved) for p in inside(b, resolved.toplevel)]
        except GitDiffError as exc:
            raise InvalidInput(f"--diff-base {self.base}", None, str(exc)) from None
        # A submodule bump is its gitlink (a changed file the claim names) and, for the
        # producer rule, every path it changes inside the submodule.
        paths = frozenset(p for change in changes for p in change.paths) | frozenset(bumped)
        chain = tuple(_chain_file(resolved, c.path) for c in changes
                      if c.status is ChangeStatus.MODIFIED and is_structured(c.path)
                      and any(fnmatchcase(c.path, g) for g in policy.trust.chain))
        observed = PullObservation(PullChanges(paths, complete=True, chain_files=chain),
                                   arrival=None)
        source = f"git diff {self.base}...{self.head[:12]}"
        claim_file = None if self.claim is None else path_in_repository(
            self.claim, self.repo, resolved.toplevel)
        tip = BaseTip(self.base, resolved.base, contained, merged)
        changed = replace(ChangedPaths.of([_as_file(c) for c in changes], None, source,
                                          () if claim_file is None else (claim_file,)),
                          base_tip=tip)
        reading = read_git_change(resolved, changes)
        notes = (f"{source}: {plural(len(paths), 'path')} changed", _tip_note(tip),
                 reading_note(reading, policy.trust))
        return Collected(pull=observed, notes=notes, changed=changed, change=reading)


def _tip_note(tip: BaseTip) -> str:
    """Which of the two the gate decided on, said in the record."""
    where = f"{tip.ref}'s tip {tip.sha[:12]}"
    if not tip.contained:
        return f"the head does not contain {where}: not what merging produces"
    if tip.merged_result:
        return f"the head is a merge of the change into {where}: decided on the merged result"
    return f"the head contains {where}: the branch is up to date with its base"


def _chain_file(resolved: DiffRange, path: str,
                run: GitRunner = run_git) -> ChainFileChange:
    """A modified structured chain file read at the merge base and at the head."""
    def blob(commit: str) -> bytes:
        return run(["cat-file", "blob", f"{commit}:{path}"], resolved.toplevel)

    try:
        return chain_file_change(path, blob(resolved.merge_base), blob(resolved.head))
    except (OSError, subprocess.SubprocessError) as exc:
        return unread(path, f"git could not read it ({exc})")


def _as_file(change: ChangedPath) -> ChangedFile:
    """git's entry in the shape of a PR's file: only a rename's source is a changed path."""
    renamed = change.status is ChangeStatus.RENAMED
    return ChangedFile(change.path, change.status.name.lower(),
                       change.old_path if renamed else None)


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
