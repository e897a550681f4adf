"""The files a change touches, as the independent record of its file mutations.

On GitHub this is the PR's `pulls/{n}/files` listing (all pages) with the PR's own
`changed_files` count; from a terminal it is `git diff --name-status BASE...HEAD`. The agent
chooses which mutations its claim lists; this record is what it cannot choose, so the engine
(`gate/engine/diff_coverage.py`) holds every changed file against the claimed mutations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.claim.github_facts import ChangedFile


@dataclass(frozen=True)
class BaseTip:
    """The base ref's commit as the clone had it, and how the head relates to it."""

    ref: str  # as the operator named it: origin/main
    sha: str
    contained: bool  # the head has it among its ancestors (or is it)
    merged_result: bool = False  # the head is a merge whose parents include it (a merged result)


@dataclass(frozen=True)
class ChangedPaths:
    """The changed files as listed, how many the source says there are, and where from.

    The list is complete only when it holds as many files as the source says there are: GitHub's
    comparison lists at most 300 (one more is then the lower bound), a PR's own list at most
    3,000 against its `changed_files` count."""

    files: tuple[ChangedFile, ...]
    #: The PR's `changed_files` count; None when the source has no separate count (git).
    expected: int | None
    source: str
    #: Claim files of this change: always exempt from needing a mutation of their own.
    claim_files: tuple[str, ...] = ()
    #: The commit the listing is measured from (GitHub's comparison names its merge base).
    merge_base: str | None = None
    #: The base branch's tip the change is measured against, and whether the head under review
    #: contains it (git's `merge-base --is-ancestor`; None: this source did not ask). A head
    #: without it was tested without the base's latest commits: not what merging produces.
    base_tip: BaseTip | None = None

    @classmethod
    def of(cls, files: Sequence[ChangedFile], expected: int | None, source: str,
           claim_files: Sequence[str] = ()) -> ChangedPaths:
        return cls(tuple(files), expected, source, tuple(claim_files))

    @property
    def listed(self) -> int:
        return len(self.files)

    @property
    def complete(self) -> bool:
        return self.expected is None or self.listed >= self.expected

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path the change touches, sorted; a rename touches its old and new path."""
        found = {f.filename for f in self.files}
        found |= {f.previous_filename for f in self.files if f.previous_filename}
        return tuple(sorted(found))
