"""The stand-in's in-memory GitHub: plain records the builder creates and the API mutates.

Why mutable: these records are the server's state, which API writes (a check run PATCH, a new
comment) change in place under the hub's lock. Values handed in by tests are frozen
(`ChangedFile`, `Step`, `Annotation`); the records that hold state are not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

GITHUB_ACTIONS_APP_ID = 15368
GITHUB_ACTIONS_SLUG = "github-actions"


def iso(moment: datetime | None) -> str | None:
    """GitHub's timestamp form: UTC, seconds, `Z`."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment!r}: give the stand-in aware times")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class StepClock:
    """A clock that starts at a fixed moment and moves `step` on each reading (deterministic)."""

    start: datetime = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    step: timedelta = timedelta(seconds=1)
    _ticks: int = 0

    def __call__(self) -> datetime:
        moment = self.start + self.step * self._ticks
        self._ticks += 1
        return moment


@dataclass(frozen=True)
class User:
    login: str
    id: int
    type: str = "User"  # "User", "Bot" or "Organization"


@dataclass(frozen=True)
class App:
    """A GitHub App; check runs and suites name the app that posted them."""

    id: int
    slug: str
    name: str
    owner: User
    public_key_pem: bytes | None = None  # verifies the JWT of `POST .../access_tokens`

    @property
    def bot(self) -> User:
        return User(login=f"{self.slug}[bot]", id=self.id * 1000 + 1, type="Bot")


@dataclass(frozen=True)
class Installation:
    id: int
    app: App
    account: User
    permissions: dict[str, str]


@dataclass(frozen=True)
class Identity:
    """Who a token speaks for: an app installation (app set) or a user."""

    user: User
    app: App | None = None
    permissions: dict[str, str] = field(default_factory=dict)

    def may(self, permission: str, level: str = "write") -> bool:
        """True if the token holds `permission` at `level` (write implies read)."""
        held = self.permissions.get(permission)
        return held == "write" or (level == "read" and held == "read")


@dataclass(frozen=True)
class ChangedFile:
    """One file of a PR's diff (`GET .../pulls/{n}/files`)."""

    filename: str
    status: str = "modified"  # added, removed, modified, renamed, copied, changed, unchanged
    additions: int = 1
    deletions: int = 0
    previous_filename: str | None = None


@dataclass(frozen=True)
class Step:
    name: str
    number: int
    status: str = "completed"
    conclusion: str | None = "success"


@dataclass(frozen=True)
class Annotation:
    path: str
    start_line: int
    end_line: int
    annotation_level: str
    message: str
    title: str | None = None
    raw_details: str | None = None
    start_column: int | None = None
    end_column: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Annotation:
        return cls(
            path=data["path"],
            start_line=data["start_line"],
            end_line=data["end_line"],
            annotation_level=data["annotation_level"],
            message=data["message"],
            title=data.get("title"),
            raw_details=data.get("raw_details"),
            start_column=data.get("start_column"),
            end_column=data.get("end_column"),
        )


@dataclass
class Commit:
    sha: str
    message: str
    parents: list[str]
    files: dict[str, bytes]  # the whole tree at this commit: path -> content
    author: User | None
    author_date: datetime
    committer_date: datetime
    symlinks: dict[str, str] = field(default_factory=dict)  # path -> target (in `files` too)


@dataclass
class Activity:
    id: int
    before: str
    after: str
    ref: str
    timestamp: datetime
    activity_type: str  # push, force_push, branch_creation, branch_deletion, ...
    actor: User


@dataclass
class Repo:
    id: int
    owner: User
    name: str
    default_branch: str
    private: bool
    parent: Repo | None  # set for a fork
    branches: dict[str, str] = field(default_factory=dict)
    commits: dict[str, Commit] = field(default_factory=dict)
    activity: list[Activity] = field(default_factory=list)

    @property
    def full_name(self) -> str:
        return f"{self.owner.login}/{self.name}"


@dataclass
class Pull:
    id: int
    number: int
    repo: Repo  # the base repository
    title: str
    body: str | None
    user: User
    head_repo: Repo
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    state: str
    draft: bool
    files: list[ChangedFile]
    created_at: datetime
    updated_at: datetime
    merge_commit_sha: str | None = None
    #: The GitHub App that opened the PR on a user's behalf (the issue's
    #: `performed_via_github_app`), e.g. an agent acting with the user's token.
    app: App | None = None
    #: Its timeline's state changes, oldest first: (id, event, actor, created_at), e.g.
    #: `base_ref_changed` (a retarget), `closed`, `reopened`.
    events: list[tuple[int, str, User, datetime]] = field(default_factory=list)


@dataclass
class Job:
    id: int
    run_id: int
    run_attempt: int
    name: str
    status: str
    conclusion: str | None
    created_at: datetime
    started_at: datetime
    completed_at: datetime | None
    steps: list[Step]
    labels: list[str]


@dataclass
class Artifact:
    id: int
    repo: Repo
    run_id: int
    name: str
    data: bytes
    expired: bool
    created_at: datetime
    expires_at: datetime


@dataclass
class RunAttempt:
    """What a workflow run said at one attempt (`GET .../runs/{id}/attempts/{n}`)."""

    run_attempt: int
    status: str
    conclusion: str | None
    run_started_at: datetime
    updated_at: datetime


@dataclass
class WorkflowRun:
    id: int
    repo: Repo
    head_repo: Repo
    name: str
    path: str
    workflow_id: int
    head_sha: str
    head_branch: str | None
    event: str
    status: str
    conclusion: str | None
    run_number: int
    run_attempt: int
    run_started_at: datetime
    created_at: datetime
    updated_at: datetime
    actor: User
    pull_requests: list[Pull]
    check_suite_id: int
    display_title: str
    jobs: list[Job] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    previous_attempts: list[RunAttempt] = field(default_factory=list)
    #: PR number -> (base ref, base sha) when the run was made: GitHub keeps the base the
    #: run was for in `pull_requests[].base`, whatever the PR targets later.
    pull_bases: dict[int, tuple[str, str]] = field(default_factory=dict)


@dataclass
class CheckSuite:
    id: int
    repo: Repo
    app: App
    head_sha: str
    head_branch: str | None
    status: str
    conclusion: str | None
    created_at: datetime
    updated_at: datetime


@dataclass
class CheckRun:
    id: int
    repo: Repo
    suite: CheckSuite
    name: str
    head_sha: str
    status: str
    conclusion: str | None
    started_at: datetime | None
    completed_at: datetime | None
    external_id: str | None
    details_url: str | None
    title: str | None
    summary: str | None
    text: str | None
    annotations: list[Annotation] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def app(self) -> App:
        return self.suite.app


@dataclass
class Status:
    id: int
    repo: Repo
    sha: str
    state: str
    context: str
    description: str | None
    target_url: str | None
    creator: User
    created_at: datetime
    updated_at: datetime


@dataclass
class DeploymentStatus:
    id: int
    state: str
    creator: User
    description: str
    environment: str
    target_url: str
    created_at: datetime
    app: App | None
    environment_url: str = ""


@dataclass
class Deployment:
    id: int
    repo: Repo
    sha: str
    ref: str
    task: str
    environment: str
    creator: User
    description: str | None
    created_at: datetime
    app: App | None
    statuses: list[DeploymentStatus] = field(default_factory=list)


@dataclass
class Comment:
    id: int
    repo: Repo
    issue_number: int
    body: str
    user: User
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class Symlink:
    """A symbolic link as a commit's file content (`add_commit(files={path: Symlink(...)})`)."""

    target: str


@dataclass
class Review:
    id: int
    repo: Repo
    pull_number: int
    user: User
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    body: str
    commit_id: str
    submitted_at: datetime
