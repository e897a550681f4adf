"""What the gate observes on GitHub, as plain values: PRs, runs, checks, deployments, arrival.

Collectors (gate/evidence/github) build these from the API; the engine and the reporters read
them. Nothing here talks to GitHub.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fnmatch import fnmatchcase

from gate.claim.change_facts import ChainFileChange
from gate.claim.junit_facts import Outcome
from gate.claim.model import JSON
from gate.claim.timefmt import format_rfc3339


@dataclass(frozen=True)
class PullRequestRef:
    number: int
    head_sha: str
    head_ref: str
    head_repo: str
    base_ref: str
    base_repo: str
    author: str
    body: str
    #: The repository's default branch, from the API's repository object (None: not read).
    default_branch: str | None = None
    author_id: int | None = None  # the account id: a login can be renamed, an id cannot
    author_type: str = ""  # User, Bot or Organization
    #: GitHub's count of the PR's changed files (None when the payload does not carry it).
    changed_files: int | None = None
    #: The base commit the PR is measured against (`base.sha`; None: the payload lacks it).
    base_sha: str | None = None

    @property
    def from_fork(self) -> bool:
        return self.head_repo.lower() != self.base_repo.lower()


@dataclass(frozen=True)
class WorkflowRun:
    id: int
    name: str
    path: str
    event: str
    head_sha: str
    status: str
    conclusion: str | None
    run_attempt: int
    created_at: datetime
    run_started_at: datetime | None
    updated_at: datetime
    html_url: str
    pull_numbers: tuple[int, ...]
    app_slug: str | None = None
    head_branch: str | None = None
    #: (PR number, base branch) of each PR the run names (`pull_requests[].base.ref`).
    pull_bases: tuple[tuple[int, str], ...] = ()
    #: Who started this attempt (`triggering_actor`, else `actor`), as GitHub recorded it.
    actor: str | None = None
    #: The repository the run's head came from (`head_repository.full_name`): a fork PR's
    #: run names the fork, so it cannot pass for a PR from another repository's branch.
    head_repo: str | None = None

    def base_for(self, number: int) -> str | None:
        """The base branch the run was made for, for PR `number` (None: not said)."""
        return next((ref for n, ref in self.pull_bases if n == number), None)


@dataclass(frozen=True)
class Artifact:
    id: int
    name: str
    size_in_bytes: int
    expired: bool
    run_id: int | None


@dataclass(frozen=True)
class DeploymentStatus:
    state: str
    creator: str
    environment_url: str | None
    created_at: datetime


@dataclass(frozen=True)
class Deployment:
    id: int
    sha: str
    environment: str
    creator: str
    created_at: datetime
    #: The whole status history, oldest first: a later status from anyone hides nothing.
    statuses: tuple[DeploymentStatus, ...] = ()


@dataclass(frozen=True)
class PostedCheckRun:
    id: int
    html_url: str | None
    app_id: int | None = None
    app_slug: str | None = None


@dataclass(frozen=True)
class ChangedFile:
    """One file of a PR's diff; a rename also names the path it came from."""

    filename: str
    status: str
    previous_filename: str | None = None


@dataclass(frozen=True)
class ActivityEntry:
    """A push, force-push or branch creation as GitHub's server recorded it."""

    activity_type: str
    ref: str
    before: str
    after: str
    timestamp: datetime
    actor: str


@dataclass(frozen=True)
class CheckRunInfo:
    """A check run as listed on a commit: who posted it (the app) matters as much as what."""

    id: int
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    app_id: int | None
    app_slug: str
    completed_at: datetime | None
    html_url: str | None
    external_id: str | None = None
    text: str | None = None  # output.text: the gate's own checks carry their record there
    title: str | None = None  # output.title: the gate's own start with the verdict


@dataclass(frozen=True)
class Arrival:
    """When the head SHA reached GitHub, where that time comes from, and how exact it is."""

    sha: str
    at: datetime | None
    source: str
    upper_bound: bool = False

    def as_json(self) -> dict[str, JSON]:
        return {
            "head_sha": self.sha,
            "at": format_rfc3339(self.at) if self.at else None,
            "source": self.source,
            "upper_bound": self.upper_bound,
            "commit_dates_used": False,
        }

    def describe(self) -> str:
        if self.at is None:
            return f"the arrival of {self.sha[:12]} on GitHub is unknown ({self.source})"
        bound = " (an upper bound)" if self.upper_bound else ""
        return f"{self.sha[:12]} arrived on GitHub at {format_rfc3339(self.at)}{bound}," \
            f" from {self.source}"


#: GitHub lists at most this many files of a PR; beyond it the chain cannot be checked.
MAX_LISTED_FILES = 3000


@dataclass(frozen=True)
class PullChanges:
    """The paths a PR touches (a rename touches both its old and its new path)."""

    paths: frozenset[str]
    complete: bool
    #: The modified structured chain files as read at base and head (which parts changed);
    #: a chain path without an entry here is judged whole.
    chain_files: tuple[ChainFileChange, ...] = ()

    @classmethod
    def of(cls, files: Sequence[ChangedFile]) -> PullChanges:
        paths = {f.filename for f in files} | {
            f.previous_filename for f in files if f.previous_filename
        }
        return cls(frozenset(paths), len(files) < MAX_LISTED_FILES)

    def matching(self, globs: Sequence[str]) -> list[str]:
        return sorted(p for p in self.paths if any(fnmatchcase(p, g) for g in globs))


@dataclass(frozen=True)
class RemovedTest:
    identity: str
    on_base: Outcome
    on_head: Outcome | None  # None: missing; SKIPPED: marked skipped

    def describe(self) -> str:
        base = "passed" if self.on_base is Outcome.PASSED else "failed"
        head = "missing" if self.on_head is None else "skipped"
        return f"{self.identity} ({base} on base, {head} on head)"


@dataclass(frozen=True)
class TestSetComparison:
    """One workflow's head test set against its base-branch baseline."""

    __test__ = False  # not a pytest class

    workflow_path: str
    baseline: WorkflowRun | None
    removed: tuple[RemovedTest, ...] = ()
    note: str | None = None  # why the comparison could not be made, if it could not
    comparable: bool = True
    inputs: tuple[tuple[str, str], ...] = ()  # (what, sha256) of the baseline's JUnit files
    #: The baseline when it is no GitHub run: the base branch's report on the command line.
    base_label: str | None = None

    def describe_baseline(self) -> str:
        if self.baseline is not None:
            return run_label(self.baseline)
        return self.base_label or "no baseline"


@dataclass(frozen=True)
class PullObservation:
    """What the engine needs to judge CI provenance: the PR's paths and its head's arrival.

    `arrival` is None where there is no push to arrive: on the command line the diff comes
    from git (`verify --diff-base`) and each run binds itself to the commit it tested
    (`--head-sha`), so only the producer rules apply. Always given explicitly."""

    changes: PullChanges
    arrival: Arrival | None  # None: not applicable (a git diff on the command line)
    #: The PR's base branch as GitHub says now (a run made for another base does not count).
    base_ref: str | None = None
    #: When the PR's base last changed or it was last reopened (its issue events), if ever:
    #: a pull_request run started before then was made for another base or another life.
    rebound_at: datetime | None = None


def run_label(run: WorkflowRun) -> str:
    return f"workflow run {run.name!r} #{run.id} attempt {run.run_attempt} ({run.path})"


@dataclass(frozen=True)
class ContentEntry:
    """What a path is at a commit, as the contents API answers: a file's bytes, or its kind."""

    kind: str  # file, dir, symlink, submodule
    #: The path GitHub answered for: a symlink to a file answers with its target's content
    #: and path, so a path other than the one asked for means the asked path is a symlink.
    path: str
    data: bytes | None = None
