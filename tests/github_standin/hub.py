"""The stand-in GitHub: state, a typed builder for scenarios, and the request dispatcher.

A test builds a scenario (`add_repo`, `add_commit`, `add_pull`, `add_workflow_run`, ...),
points its client at `hub.api_url`, then asserts on what the client did (`check_runs()`,
`calls`, `storage_requests`). See tests/github_standin/README.md.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import secrets
import threading
import time
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from tests.github_standin import render
from tests.github_standin.model import (
    GITHUB_ACTIONS_APP_ID,
    GITHUB_ACTIONS_SLUG,
    Activity,
    App,
    Artifact,
    ChangedFile,
    CheckRun,
    CheckSuite,
    Comment,
    Commit,
    Deployment,
    DeploymentStatus,
    Identity,
    Installation,
    Job,
    Pull,
    Repo,
    Review,
    RunAttempt,
    Status,
    Step,
    StepClock,
    Symlink,
    User,
    WorkflowRun,
    iso,
)
from tests.github_standin.openapi import ApiDescription, Violation
from tests.github_standin.routes import ROUTES
from tests.github_standin.schema_fill import Filler
from tests.github_standin.server import (
    Call,
    Fault,
    HttpError,
    RecordedRequest,
    Reply,
    Route,
    Servers,
    StorageRequest,
    encode,
    error_body,
    match,
    paginate,
    split_target,
    validator_path,
)

FileContent = bytes | str

ACTIONS_PERMISSIONS: dict[str, str] = {
    "actions": "read",
    "checks": "write",
    "contents": "read",
    "deployments": "read",
    "issues": "write",
    "metadata": "read",
    "pull_requests": "write",
    "statuses": "write",
}
# What a fork's `pull_request` GITHUB_TOKEN holds: everything read-only.
READ_ONLY_PERMISSIONS: dict[str, str] = dict.fromkeys(ACTIONS_PERMISSIONS, "read")


@dataclass(frozen=True)
class JobSpec:
    """A job of a workflow run to create (also shown as a check run of GitHub Actions)."""

    name: str = "test"
    status: str = "completed"
    conclusion: str | None = "success"
    started_at: datetime | None = None  # default: the run's run_started_at
    completed_at: datetime | None = None  # default: the run's updated_at when completed
    steps: Sequence[Step] = ()
    labels: Sequence[str] = ("ubuntu-latest",)


@dataclass(frozen=True)
class ArtifactSpec:
    """An artifact of a workflow run to create; `data` is the zip served after the 302."""

    name: str
    data: bytes
    expired: bool = False
    created_at: datetime | None = None
    expires_at: datetime | None = None


@dataclass(frozen=True)
class DeploymentStatusSpec:
    state: str
    creator: User | None = None  # default: the deployment's creator
    app: App | None = None
    created_at: datetime | None = None
    description: str = ""
    target_url: str = ""
    environment_url: str = ""  # where the deployed thing answers (the probes' base URL)


def zip_bytes(files: Mapping[str, FileContent]) -> bytes:
    """A zip archive holding `files` (name -> content), as an artifact's bytes. Entries carry a
    fixed date, so the same files always give the same bytes (tests compare them)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, content.encode() if isinstance(content, str) else content)
    return buffer.getvalue()


def _as_bytes(content: FileContent | Symlink) -> bytes:
    if isinstance(content, Symlink):
        return content.target.encode()  # git stores a link as its target's text
    return content.encode() if isinstance(content, str) else content


@dataclass(frozen=True)
class MergeGroup:
    """A merge queue's temporary branch: the base plus the queued PRs, as one commit."""

    repo: Repo
    pulls: tuple[Pull, ...]
    head_sha: str
    head_ref: str  # gh-readonly-queue/{base}/pr-{n}-{base_sha}
    base_sha: str
    base_ref: str


@dataclass
class _Blob:
    data: bytes
    artifact_id: int


class Hub:
    """An in-memory GitHub served over HTTP on 127.0.0.1 (API server + artifact storage)."""

    def __init__(
        self,
        api: ApiDescription,
        *,
        base_path: str = "",
        clock: Callable[[], datetime] | None = None,
        wall_clock: Callable[[], float] = time.time,
        latency: float = 0.0,
    ) -> None:
        """`latency`: seconds every answer (API and storage) waits before it is made, as a
        round trip to GitHub would (the latency benchmark); the requests wait side by side."""
        if base_path and (not base_path.startswith("/") or base_path.endswith("/")):
            raise ValueError(f"base_path {base_path!r}: give it as '/api/v3' (no trailing /)")
        self.api = api
        self.base_path = base_path
        self.clock: Callable[[], datetime] = clock or StepClock()
        self.wall_clock = wall_clock
        self.latency = latency
        self.lock = threading.RLock()
        self._ids = itertools.count(1001)
        self._numbers: dict[int, itertools.count[int]] = {}
        self._servers: Servers | None = None
        self._stopping = threading.Event()
        self.routes: list[Route] = list(ROUTES)
        # state
        self.users: dict[str, User] = {}
        self.repos: dict[str, Repo] = {}
        self.pulls: dict[tuple[int, int], Pull] = {}
        self.runs: dict[int, WorkflowRun] = {}
        self.artifacts: dict[int, Artifact] = {}
        self.check_suites: dict[int, CheckSuite] = {}
        self.check_run_records: dict[int, CheckRun] = {}
        self.statuses: list[Status] = []
        self.deployments: dict[int, Deployment] = {}
        self.comment_records: dict[int, Comment] = {}
        self.review_records: dict[int, Review] = {}
        #: (repo id, login) -> admin, maintain, write, triage, read (default: the owner admin,
        #: anyone else read, as for a public repository)
        self.permissions: dict[tuple[int, str], str] = {}
        self.apps: dict[int, App] = {}
        self.installations: dict[int, Installation] = {}
        self.tokens: dict[str, Identity] = {}
        self.blobs: dict[str, _Blob] = {}
        # what happened
        self.calls: Counter[str] = Counter()
        self.requests: list[RecordedRequest] = []
        self.storage_requests: list[StorageRequest] = []
        self.violations: list[Violation] = []
        self.faults: list[Fault] = []
        #: endpoint -> [(calls to let through first, what happens then)], for races.
        self.hooks: dict[str, list[tuple[int, Callable[[], None]]]] = {}
        self.storage_rejects_authorization = True
        # GitHub Actions is the app every workflow's GITHUB_TOKEN speaks for.
        github = self.add_user("github", type="Organization")
        self.actions_app = self.add_app(
            GITHUB_ACTIONS_SLUG, name="GitHub Actions", app_id=GITHUB_ACTIONS_APP_ID, owner=github
        )

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> Hub:
        if self._servers is None:
            self._servers = Servers(self)
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._servers is not None:
            self._servers.close()
            self._servers = None

    def __enter__(self) -> Hub:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def _running(self) -> Servers:
        if self._servers is None:
            raise RuntimeError("the stand-in is not started (use hub.start() or the fixture)")
        return self._servers

    @property
    def web_url(self) -> str:
        """Where html_url fields point (no base path), e.g. http://127.0.0.1:PORT."""
        return self._running.api_origin

    @property
    def api_url(self) -> str:
        """The API root a client's base_url takes, e.g. http://127.0.0.1:PORT/api/v3."""
        return self._running.api_origin + self.base_path

    @property
    def storage_url(self) -> str:
        return self._running.storage_origin

    @property
    def urls(self) -> render.Urls:
        return render.Urls(api=self.api_url, web=self.web_url)

    # -- ids ------------------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def _sha(self, *seed: object) -> str:
        return hashlib.sha1(  # noqa: S324 - an id, not security
            ":".join(str(part) for part in (*seed, self.next_id())).encode()
        ).hexdigest()

    def _number(self, repo: Repo) -> int:
        return next(self._numbers.setdefault(repo.id, itertools.count(1)))

    # -- identities -----------------------------------------------------------------------------

    def add_user(self, login: str, *, type: str = "User") -> User:
        """A user (or bot, or organization); the same login always gives the same user."""
        with self.lock:
            if login not in self.users:
                self.users[login] = User(login=login, id=self.next_id(), type=type)
            return self.users[login]

    def add_app(
        self,
        slug: str,
        *,
        name: str | None = None,
        app_id: int | None = None,
        owner: User | None = None,
        public_key_pem: bytes | None = None,
    ) -> App:
        """A GitHub App; with `public_key_pem`, its JWTs are verified (RS256)."""
        with self.lock:
            the_app = App(
                id=app_id if app_id is not None else self.next_id(),
                slug=slug,
                name=name or slug,
                owner=owner or self.add_user(f"{slug}-owner", type="Organization"),
                public_key_pem=public_key_pem,
            )
            self.apps[the_app.id] = the_app
            self.users.setdefault(the_app.bot.login, the_app.bot)
            return the_app

    def add_installation(
        self,
        the_app: App,
        account: User,
        *,
        permissions: Mapping[str, str] | None = None,
        installation_id: int | None = None,
    ) -> Installation:
        with self.lock:
            installation = Installation(
                id=installation_id if installation_id is not None else self.next_id(),
                app=the_app,
                account=account,
                permissions=dict(permissions or ACTIONS_PERMISSIONS),
            )
            self.installations[installation.id] = installation
            return installation

    def add_token(
        self,
        token: str,
        *,
        app: App | None = None,
        user: User | None = None,
        permissions: Mapping[str, str] | None = None,
    ) -> Identity:
        """Accept `token`: an installation token of `app` (default GitHub Actions, speaking
        as its bot) or a user's token (`user`). `permissions` default to a workflow's."""
        with self.lock:
            if user is not None and app is None:
                identity = Identity(user=user, app=None, permissions=dict(
                    permissions or ACTIONS_PERMISSIONS))
            else:
                the_app = app or self.actions_app
                identity = Identity(
                    user=self.users[the_app.bot.login],
                    app=the_app,
                    permissions=dict(permissions or ACTIONS_PERMISSIONS),
                )
            self.tokens[token] = identity
            return identity

    # -- repositories and commits ---------------------------------------------------------------

    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        private: bool = False,
        fork_of: Repo | None = None,
        files: Mapping[str, FileContent] | None = None,
        pushed_at: datetime | None = None,
    ) -> Repo:
        """A repository with one commit on `default_branch` holding `files`. A fork
        (`fork_of`) starts with its parent's commits and branches instead."""
        owner_login, _, name = full_name.partition("/")
        if not name or "/" in name:
            raise ValueError(f"repository {full_name!r}: give it as 'owner/name'")
        with self.lock:
            if full_name in self.repos:
                raise ValueError(f"repository {full_name} already exists")
            owner = self.add_user(owner_login)
            repo = Repo(
                id=self.next_id(), owner=owner, name=name,
                default_branch=fork_of.default_branch if fork_of else default_branch,
                private=private, parent=fork_of,
            )
            self.repos[full_name] = repo
            if fork_of is not None:
                repo.commits = dict(fork_of.commits)
                repo.branches = dict(fork_of.branches)
                if files:
                    self.add_commit(repo, files, pushed_at=pushed_at)
            else:
                self.add_commit(
                    repo, files or {"README.md": f"# {name}\n"}, parents=[],
                    message="Initial commit", pushed_at=pushed_at,
                )
            return repo

    def repo(self, full_name: str) -> Repo:
        return self.repos[full_name]

    def add_commit(
        self,
        repo: Repo,
        files: Mapping[str, FileContent | Symlink | None] | None = None,
        *,
        branch: str | None = None,
        parents: Sequence[str] | None = None,
        message: str = "Change",
        author: User | None = None,
        author_date: datetime | None = None,
        committer_date: datetime | None = None,
        sha: str | None = None,
        pushed_at: datetime | None = None,
        push: bool = True,
    ) -> Commit:
        """A commit on `branch` (default: the default branch; created if new) whose tree is
        its first parent's with `files` applied (None deletes a file). With `push` (default)
        the branch moves to it and a `push` activity entry records `pushed_at` (server time).
        Commit dates are whatever the author wrote: default the hub clock."""
        with self.lock:
            branch = branch or repo.default_branch
            if parents is None:
                tip = repo.branches.get(branch) or repo.branches.get(repo.default_branch)
                parents = [tip] if tip else []
            tree: dict[str, bytes] = dict(repo.commits[parents[0]].files) if parents else {}
            links = dict(repo.commits[parents[0]].symlinks) if parents else {}
            for path, content in (files or {}).items():
                links.pop(path, None)
                if content is None:
                    tree.pop(path, None)
                else:
                    tree[path] = _as_bytes(content)
                    if isinstance(content, Symlink):
                        links[path] = content.target
            moment = self.clock()
            commit = Commit(
                sha=sha or self._sha(repo.full_name, branch, message),
                message=message,
                parents=list(parents),
                files=tree,
                author=author or repo.owner,
                author_date=author_date or moment,
                committer_date=committer_date or author_date or moment,
                symlinks=links,
            )
            repo.commits[commit.sha] = commit
            if push:
                self.push(repo, branch, commit.sha, at=pushed_at, actor=author)
            return commit

    def push(
        self,
        repo: Repo,
        branch: str,
        sha: str,
        *,
        at: datetime | None = None,
        force: bool = False,
        actor: User | None = None,
        activity_type: str | None = None,
    ) -> Activity:
        """Move `branch` to `sha` (a commit of the repo) and record the activity entry GitHub
        writes with the time it received the push: `force_push` with `force`, else
        `branch_creation` for a new branch and `push` after; `activity_type` overrides."""
        with self.lock:
            if sha not in repo.commits:
                raise ValueError(f"{sha} is not a commit of {repo.full_name}")
            before = repo.branches.get(branch, "0" * 40)
            repo.branches[branch] = sha
            entry = Activity(
                id=self.next_id(), before=before, after=sha, ref=f"refs/heads/{branch}",
                timestamp=at or self.clock(),
                activity_type=activity_type or ("force_push" if force else (
                    "push" if before != "0" * 40 else "branch_creation")),
                actor=actor or repo.owner,
            )
            repo.activity.append(entry)
            return entry

    def resolve_ref(self, repo: Repo, ref: str) -> str | None:
        """A branch name, `refs/heads/...`, or a full commit SHA of the repository's network
        (a fork's commits are reachable through its parent, as on GitHub) -> the commit SHA."""
        name = ref.removeprefix("refs/heads/")
        if name in repo.branches:
            return repo.branches[name]
        return ref if self.find_commit(repo, ref) is not None else None

    def find_commit(self, repo: Repo, sha: str) -> Commit | None:
        """The commit `sha` in the repository or another of its fork network."""
        if sha in repo.commits:
            return repo.commits[sha]
        root = repo
        while root.parent is not None:
            root = root.parent
        for other in self.repos.values():
            top = other
            while top.parent is not None:
                top = top.parent
            if top is root and sha in other.commits:
                return other.commits[sha]
        return None

    def add_merge_commit(self, the_pull: Pull, *, sha: str | None = None) -> Commit:
        """The test merge commit GitHub makes for a PR (`refs/pull/N/merge`, what a
        `pull_request` workflow checks out): parents base and head, the base tree with the
        PR's changes; recorded as the PR's `merge_commit_sha`. No branch moves."""
        with self.lock:
            repo = the_pull.repo
            head = the_pull.head_repo.commits[the_pull.head_sha]
            base = repo.commits[the_pull.base_sha]
            on_base = self._ancestors(repo, base.sha)
            walk: Commit | None = head
            while walk is not None and walk.sha not in on_base:
                walk = (the_pull.head_repo.commits.get(walk.parents[0])
                        if walk.parents else None)
            changes: dict[str, FileContent | None] = {}
            before = walk.files if walk is not None else {}
            for path in set(head.files) | set(before):
                if head.files.get(path) != before.get(path):
                    changes[path] = head.files.get(path)
            commit = self.add_commit(
                repo, changes, parents=[base.sha, head.sha], push=False, sha=sha,
                message=f"Merge {head.sha} into {base.sha}",
                author=self.add_user("github", type="Organization"),
            )
            the_pull.merge_commit_sha = commit.sha
            return commit

    # -- pull requests --------------------------------------------------------------------------

    def add_pull(
        self,
        repo: Repo,
        *,
        head: str,
        head_repo: Repo | None = None,
        base: str | None = None,
        title: str = "A change",
        body: str | None = None,
        user: User | None = None,
        files: Sequence[ChangedFile | str] | None = None,
        state: str = "open",
        draft: bool = False,
        number: int | None = None,
        created_at: datetime | None = None,
        merge_commit_sha: str | None = None,
        app: App | None = None,
    ) -> Pull:
        """A PR from branch `head` (of `head_repo`, a fork, or `repo`) into `base`. Head and
        base SHAs are the branch tips now; changed files default to the diff between them."""
        with self.lock:
            source = head_repo or repo
            base = base or repo.default_branch
            head_sha, base_sha = source.branches[head], repo.branches[base]
            if files is None:
                changed = self._diff(repo.commits[base_sha], source.commits[head_sha])
            else:
                changed = [f if isinstance(f, ChangedFile) else ChangedFile(f) for f in files]
            moment = created_at or self.clock()
            the_pull = Pull(
                id=self.next_id(), number=number or self._number(repo), repo=repo, title=title,
                body=body, user=user or source.owner, head_repo=source, head_ref=head,
                head_sha=head_sha, base_ref=base, base_sha=base_sha, state=state, draft=draft,
                files=changed, created_at=moment, updated_at=moment,
                merge_commit_sha=merge_commit_sha, app=app,
            )
            self.pulls[(repo.id, the_pull.number)] = the_pull
            return the_pull

    def update_pull_head(self, the_pull: Pull) -> None:
        """Follow the head branch's tip again (after a new push to the PR's branch)."""
        with self.lock:
            the_pull.head_sha = the_pull.head_repo.branches[the_pull.head_ref]
            the_pull.files = self._diff(
                the_pull.repo.commits[the_pull.base_sha],
                the_pull.head_repo.commits[the_pull.head_sha],
            )
            the_pull.updated_at = self.clock()

    def retarget_pull(self, the_pull: Pull, base: str) -> None:
        """Change the PR's base branch (the `edited` event's `changes.base`); runs made
        before keep the base they were made for."""
        with self.lock:
            the_pull.base_ref = base
            the_pull.base_sha = the_pull.repo.branches[base]
            the_pull.events.append((self.next_id(), "base_ref_changed", the_pull.user,
                                    self.clock()))
            the_pull.files = self._diff(
                the_pull.repo.commits[the_pull.base_sha],
                the_pull.head_repo.commits[the_pull.head_sha],
            )
            the_pull.updated_at = self.clock()

    def set_pull_state(self, the_pull: Pull, state: str, *, merged: bool = False) -> None:
        """Close or reopen a PR, recorded on its timeline as GitHub does (`closed`,
        `reopened`, `merged`)."""
        with self.lock:
            event = "reopened" if state == "open" else "merged" if merged else "closed"
            the_pull.state = state
            the_pull.events.append((self.next_id(), event, the_pull.user, self.clock()))
            the_pull.updated_at = self.clock()

    def merge_base(self, repo: Repo, base_sha: str, head_sha: str) -> str | None:
        """The nearest commit of `head_sha`'s history (first parents, then the rest) that is
        also in `base_sha`'s."""
        on_base = self._ancestors(repo, base_sha)
        pending, seen = [head_sha], set()
        while pending:
            sha = pending.pop(0)
            if sha in on_base:
                return sha
            if sha in seen:
                continue
            seen.add(sha)
            commit = self.find_commit(repo, sha)  # a fork's commits are in the network
            pending.extend(commit.parents if commit else [])
        return None

    def commits_between(self, repo: Repo, old: str, new: str) -> list[str]:
        """The commits of `new`'s history not in `old`'s, newest first."""
        kept = self._ancestors(repo, old)
        return [sha for sha in self._history(repo, new) if sha not in kept]

    def _history(self, repo: Repo, sha: str) -> list[str]:
        found, pending = [], [sha]
        while pending:
            current = pending.pop(0)
            commit = self.find_commit(repo, current)
            if current in found or commit is None:
                continue
            found.append(current)
            pending.extend(commit.parents)
        return found

    def diff(self, base: Commit, head: Commit) -> list[ChangedFile]:
        return self._diff(base, head)

    @staticmethod
    def _diff(base: Commit, head: Commit) -> list[ChangedFile]:
        """As GitHub compares two trees: a removed file whose bytes reappear under a new path
        is one `renamed` entry naming its `previous_filename` (exact renames only)."""
        removed = {path: data for path, data in base.files.items() if path not in head.files}
        renamed: dict[str, str] = {}  # new path -> old path
        for path in sorted(set(head.files) - set(base.files)):
            source = next((old for old, data in removed.items()
                           if data == head.files[path] and old not in renamed.values()), None)
            if source is not None:
                renamed[path] = source
        changed = []
        for path in sorted(set(base.files) | set(head.files)):
            before, after = base.files.get(path), head.files.get(path)
            if before == after or path in renamed.values():
                continue  # unchanged, or the old path of a rename (listed under its new one)
            if path in renamed:
                changed.append(ChangedFile(path, "renamed", additions=0, deletions=0,
                                           previous_filename=renamed[path]))
                continue
            status = "added" if before is None else "removed" if after is None else "modified"
            changed.append(ChangedFile(
                path, status,
                additions=len((after or b"").splitlines()),
                deletions=len((before or b"").splitlines()),
            ))
        return changed

    def add_merge_group(
        self, repo: Repo, pulls: Sequence[Pull], *, base: str | None = None,
        pushed_at: datetime | None = None,
    ) -> MergeGroup:
        """What a merge queue makes for `pulls` (in queue order): a commit on
        `gh-readonly-queue/{base}/pr-{last}-{base_sha}` whose tree is the base with each PR's
        changes applied in turn (no conflict detection), pushed by the merge queue."""
        with self.lock:
            base = base or repo.default_branch
            base_sha = repo.branches[base]
            tree: dict[str, FileContent | None] = {}
            for the_pull in pulls:
                head_tree = the_pull.head_repo.commits[the_pull.head_sha].files
                base_tree = repo.commits[the_pull.base_sha].files
                for path in set(head_tree) | set(base_tree):
                    if head_tree.get(path) != base_tree.get(path):
                        tree[path] = head_tree.get(path)  # the PR's change; None deletes
            head_ref = f"gh-readonly-queue/{base}/pr-{pulls[-1].number}-{base_sha}"
            commit = self.add_commit(
                repo, tree, branch=head_ref, parents=[base_sha],
                message="Merge queue: " + ", ".join(f"#{p.number}" for p in pulls),
                author=self.add_user("github-merge-queue[bot]", type="Bot"),
                pushed_at=pushed_at,
            )
            return MergeGroup(repo, tuple(pulls), commit.sha, head_ref, base_sha, base)

    def commits_of_pull(self, the_pull: Pull) -> list[str]:
        """SHAs reachable from the head and not from the base (first parents are enough)."""
        base_side = self._ancestors(the_pull.repo, the_pull.base_sha)
        result, sha = [], the_pull.head_sha
        seen: set[str] = set()
        while sha and sha not in base_side and sha not in seen:
            seen.add(sha)
            result.append(sha)
            commit = the_pull.head_repo.commits.get(sha)
            sha = commit.parents[0] if commit and commit.parents else ""
        return result

    @staticmethod
    def _ancestors(repo: Repo, sha: str) -> set[str]:
        found: set[str] = set()
        pending = [sha]
        while pending:
            current = pending.pop()
            if current in found or current not in repo.commits:
                continue
            found.add(current)
            pending.extend(repo.commits[current].parents)
        return found

    # -- actions --------------------------------------------------------------------------------

    def _suite_for(self, repo: Repo, the_app: App, head_sha: str, head_branch: str | None,
                   at: datetime) -> CheckSuite:
        for suite in self.check_suites.values():
            if suite.repo is repo and suite.app.id == the_app.id and suite.head_sha == head_sha:
                return suite
        suite = CheckSuite(
            id=self.next_id(), repo=repo, app=the_app, head_sha=head_sha,
            head_branch=head_branch, status="queued", conclusion=None, created_at=at,
            updated_at=at,
        )
        self.check_suites[suite.id] = suite
        return suite

    def add_workflow_run(
        self,
        repo: Repo,
        *,
        head_sha: str,
        name: str = "CI",
        path: str = ".github/workflows/ci.yml",
        event: str = "pull_request",
        status: str = "completed",
        conclusion: str | None = "success",
        head_branch: str | None = None,
        head_repo: Repo | None = None,
        pull_requests: Sequence[Pull] = (),
        run_attempt: int = 1,
        created_at: datetime | None = None,
        run_started_at: datetime | None = None,
        updated_at: datetime | None = None,
        actor: User | None = None,
        jobs: Sequence[JobSpec] | None = None,
        artifacts: Sequence[ArtifactSpec] = (),
        workflow_id: int | None = None,
        display_title: str | None = None,
    ) -> WorkflowRun:
        """A workflow run of `path` on `head_sha`, with jobs (default: one `test` job with the
        run's conclusion), their GitHub Actions check runs and check suite, and artifacts.
        Times default to the hub clock: created <= run_started <= updated."""
        with self.lock:
            source = head_repo or repo
            if head_sha not in source.commits:
                raise ValueError(f"{head_sha} is not a commit of {source.full_name}")
            created = created_at or self.clock()
            started = run_started_at or created
            updated = updated_at or max(started, self.clock())
            same_workflow = [r for r in self.runs.values() if r.repo is repo and r.path == path]
            the_workflow_id = workflow_id or (
                same_workflow[0].workflow_id if same_workflow else self.next_id())
            if head_branch is None:
                head_branch = next(
                    (b for b, s in source.branches.items() if s == head_sha), None)
            # Each workflow run has its own check suite (GitHub Actions app).
            suite = CheckSuite(
                id=self.next_id(), repo=repo, app=self.actions_app, head_sha=head_sha,
                head_branch=head_branch, status=status, conclusion=conclusion,
                created_at=created, updated_at=updated,
            )
            self.check_suites[suite.id] = suite
            run = WorkflowRun(
                id=self.next_id(), repo=repo, head_repo=source, name=name, path=path,
                workflow_id=the_workflow_id, head_sha=head_sha, head_branch=head_branch,
                event=event, status=status, conclusion=conclusion,
                run_number=len(same_workflow) + 1, run_attempt=run_attempt,
                run_started_at=started, created_at=created, updated_at=updated,
                actor=actor or source.owner, pull_requests=list(pull_requests),
                check_suite_id=suite.id, display_title=display_title or name,
                pull_bases={p.number: (p.base_ref, p.base_sha) for p in pull_requests},
            )
            self.runs[run.id] = run
            specs = [JobSpec(conclusion=conclusion, status=status)] if jobs is None else jobs
            self._add_jobs(run, specs, suite)
            for spec in artifacts:
                self.add_artifact(run, spec)
            return run

    def _add_jobs(self, run: WorkflowRun, specs: Iterable[JobSpec], suite: CheckSuite) -> None:
        for spec in specs:
            started = spec.started_at or run.run_started_at
            completed = spec.completed_at or (
                run.updated_at if spec.status == "completed" else None)
            the_job = Job(
                id=self.next_id(), run_id=run.id, run_attempt=run.run_attempt, name=spec.name,
                status=spec.status, conclusion=spec.conclusion, created_at=run.created_at,
                started_at=started, completed_at=completed, steps=list(spec.steps),
                labels=list(spec.labels),
            )
            run.jobs.append(the_job)
            # GitHub Actions shows each job as a check run of its suite, with the job's id.
            self.check_run_records[the_job.id] = CheckRun(
                id=the_job.id, repo=run.repo, suite=suite, name=spec.name,
                head_sha=run.head_sha, status=spec.status, conclusion=spec.conclusion,
                started_at=started, completed_at=completed, external_id=None,
                details_url=None, title=None, summary=None, text=None,
            )

    def add_artifact(self, run: WorkflowRun, spec: ArtifactSpec) -> Artifact:
        with self.lock:
            created = spec.created_at or run.updated_at
            the_artifact = Artifact(
                id=self.next_id(), repo=run.repo, run_id=run.id, name=spec.name, data=spec.data,
                expired=spec.expired, created_at=created,
                expires_at=spec.expires_at or created + timedelta(days=90),
            )
            run.artifacts.append(the_artifact)
            self.artifacts[the_artifact.id] = the_artifact
            return the_artifact

    def rerun(
        self,
        run: WorkflowRun,
        *,
        status: str = "completed",
        conclusion: str | None = "success",
        run_started_at: datetime | None = None,
        updated_at: datetime | None = None,
        jobs: Sequence[JobSpec] | None = None,
        artifacts: Sequence[ArtifactSpec] = (),
    ) -> WorkflowRun:
        """A new attempt of `run`: listings then show it; `attempts/{n}` keep older ones."""
        with self.lock:
            run.previous_attempts.append(RunAttempt(
                run.run_attempt, run.status, run.conclusion, run.run_started_at, run.updated_at))
            run.run_attempt += 1
            run.status, run.conclusion = status, conclusion
            run.run_started_at = run_started_at or self.clock()
            run.updated_at = updated_at or max(run.run_started_at, self.clock())
            suite = self.check_suites[run.check_suite_id]
            suite.status, suite.conclusion, suite.updated_at = status, conclusion, run.updated_at
            specs = [JobSpec(conclusion=conclusion, status=status)] if jobs is None else jobs
            self._add_jobs(run, specs, suite)
            for spec in artifacts:
                self.add_artifact(run, spec)
            return run

    # -- checks, statuses, deployments, comments ------------------------------------------------

    def add_check_run(
        self,
        repo: Repo,
        *,
        head_sha: str,
        name: str,
        app: App | None = None,
        status: str = "completed",
        conclusion: str | None = "success",
        started_at: datetime | None = None,
        completed_at: datetime | None = None,
        title: str | None = None,
        summary: str | None = None,
        text: str | None = None,
        details_url: str | None = None,
        external_id: str | None = None,
    ) -> CheckRun:
        """A check run posted by `app` (default GitHub Actions) in its suite for the SHA."""
        with self.lock:
            the_app = app or self.actions_app
            started = started_at or self.clock()
            suite = self._suite_for(repo, the_app, head_sha, None, started)
            run = CheckRun(
                id=self.next_id(), repo=repo, suite=suite, name=name, head_sha=head_sha,
                status=status, conclusion=conclusion, started_at=started,
                completed_at=completed_at or (started if status == "completed" else None),
                external_id=external_id, details_url=details_url, title=title,
                summary=summary, text=text,
            )
            self.check_run_records[run.id] = run
            return run

    def add_status(
        self,
        repo: Repo,
        *,
        sha: str,
        state: str,
        context: str,
        creator: User | None = None,
        description: str | None = None,
        target_url: str | None = None,
        created_at: datetime | None = None,
    ) -> Status:
        with self.lock:
            moment = created_at or self.clock()
            entry = Status(
                id=self.next_id(), repo=repo, sha=sha, state=state, context=context,
                description=description, target_url=target_url,
                creator=creator or repo.owner, created_at=moment, updated_at=moment,
            )
            self.statuses.append(entry)
            return entry

    def add_deployment(
        self,
        repo: Repo,
        *,
        sha: str,
        environment: str = "production",
        ref: str | None = None,
        task: str = "deploy",
        creator: User | None = None,
        app: App | None = None,
        description: str | None = None,
        created_at: datetime | None = None,
        statuses: Sequence[DeploymentStatusSpec] = (),
    ) -> Deployment:
        """A deployment of `sha` with its statuses (oldest first, as given)."""
        with self.lock:
            the_deployment = Deployment(
                id=self.next_id(), repo=repo, sha=sha, ref=ref or sha, task=task,
                environment=environment,
                creator=creator or (self.users[app.bot.login] if app else repo.owner),
                description=description, created_at=created_at or self.clock(), app=app,
            )
            self.deployments[the_deployment.id] = the_deployment
            for spec in statuses:
                self.add_deployment_status(the_deployment, spec)
            return the_deployment

    def add_deployment_status(
        self, the_deployment: Deployment, spec: DeploymentStatusSpec
    ) -> DeploymentStatus:
        with self.lock:
            entry = DeploymentStatus(
                id=self.next_id(), state=spec.state,
                creator=spec.creator or the_deployment.creator,
                description=spec.description, environment=the_deployment.environment,
                target_url=spec.target_url, created_at=spec.created_at or self.clock(),
                app=spec.app, environment_url=spec.environment_url,
            )
            the_deployment.statuses.append(entry)
            return entry

    def add_comment(
        self,
        repo: Repo,
        issue_number: int,
        body: str,
        *,
        user: User | None = None,
        created_at: datetime | None = None,
    ) -> Comment:
        with self.lock:
            moment = created_at or self.clock()
            the_comment = Comment(
                id=self.next_id(), repo=repo, issue_number=issue_number, body=body,
                user=user or repo.owner, created_at=moment, updated_at=moment,
            )
            self.comment_records[the_comment.id] = the_comment
            return the_comment

    def add_review(
        self,
        pull: Pull,
        user: User,
        body: str,
        *,
        state: str = "APPROVED",
        commit_id: str | None = None,
        submitted_at: datetime | None = None,
    ) -> Review:
        """A submitted review of `pull`, on `commit_id` (default: the PR's head now)."""
        with self.lock:
            the_review = Review(
                id=self.next_id(), repo=pull.repo, pull_number=pull.number, user=user,
                state=state, body=body, commit_id=commit_id or pull.head_sha,
                submitted_at=submitted_at or self.clock(),
            )
            self.review_records[the_review.id] = the_review
            return the_review

    def set_permission(self, repo: Repo, user: User, level: str) -> None:
        """`level`: admin, maintain, write, triage, read or none."""
        with self.lock:
            self.permissions[(repo.id, user.login)] = level

    def permission_of(self, repo: Repo, user: User) -> str:
        with self.lock:
            default = "admin" if user.login == repo.owner.login else "read"
            return self.permissions.get((repo.id, user.login), default)

    # -- reading state in assertions ------------------------------------------------------------

    def check_runs(
        self, *, head_sha: str | None = None, name: str | None = None, app: App | None = None
    ) -> list[CheckRun]:
        with self.lock:
            return [
                run for run in self.check_run_records.values()
                if (head_sha is None or run.head_sha == head_sha)
                and (name is None or run.name == name)
                and (app is None or run.app.id == app.id)
            ]

    def comments(self, repo: Repo, issue_number: int) -> list[Comment]:
        with self.lock:
            return [
                c for c in self.comment_records.values()
                if c.repo is repo and c.issue_number == issue_number
            ]

    def take_violations(self) -> list[Violation]:
        """The violations so far, cleared (for tests that provoke one on purpose)."""
        with self.lock:
            found, self.violations = self.violations, []
            return found

    # -- faults ---------------------------------------------------------------------------------

    def fail(self, endpoint: str = "*", *, times: int = 1, status: int = 502) -> Fault:
        """Answer the next `times` calls of `endpoint` (e.g. "GET /repos/{owner}/{repo}") with
        `status` before serving normally."""
        return self._add_fault(Fault(endpoint, times, status=status, message="Server Error"))

    def rate_limit(
        self,
        endpoint: str = "*",
        *,
        times: int = 1,
        status: int = 403,
        retry_after: int | None = 1,
        primary: bool = False,
    ) -> Fault:
        """Answer with a rate limit: secondary (403/429 with `Retry-After`) or, with `primary`,
        403 with `x-ratelimit-remaining: 0` and a `x-ratelimit-reset` `retry_after` s away."""
        reset = int(self.wall_clock()) + (retry_after or 0)
        headers = {
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": "0" if primary else "4999",
            "x-ratelimit-used": "5000" if primary else "1",
            "x-ratelimit-reset": str(reset),
            "x-ratelimit-resource": "core",
        }
        if retry_after is not None and not primary:
            headers["Retry-After"] = str(retry_after)
        message = (
            "API rate limit exceeded for installation." if primary
            else "You have exceeded a secondary rate limit. Please wait a few minutes before "
            "you try again."
        )
        return self._add_fault(Fault(endpoint, times, status=status, headers=headers,
                                     message=message))

    def when_called(self, endpoint: str, action: Callable[[], None], *, after: int = 0) -> None:
        """Run `action` (e.g. a push) just before the stand-in answers the call of `endpoint`
        that follows `after` answered ones: the world moving between two of the gate's reads."""
        if endpoint not in {route.endpoint for route in self.routes}:
            raise ValueError(f"no endpoint {endpoint!r}")
        with self.lock:
            self.hooks.setdefault(endpoint, []).append((self.calls[endpoint] + after, action))

    def _run_hooks(self, endpoint: str) -> None:
        due = [(n, a) for n, a in self.hooks.get(endpoint, []) if n == self.calls[endpoint] - 1]
        for entry in due:
            self.hooks[endpoint].remove(entry)
            entry[1]()

    def delay(self, endpoint: str = "*", *, seconds: float, times: int = 1) -> Fault:
        """Wait `seconds` before answering the next `times` calls (past a client's timeout)."""
        return self._add_fault(Fault(endpoint, times, status=200, delay=seconds))

    def _add_fault(self, fault: Fault) -> Fault:
        known = {route.endpoint for route in self.routes}
        if fault.endpoint != "*" and fault.endpoint not in known:
            raise ValueError(f"no endpoint {fault.endpoint!r}; served: {sorted(known)}")
        with self.lock:
            self.faults.append(fault)
        return fault

    def _take_fault(self, endpoint: str) -> Fault | None:
        for fault in self.faults:
            if fault.times > 0 and fault.endpoint in ("*", endpoint):
                fault.times -= 1
                return fault
        return None

    # -- artifact storage -----------------------------------------------------------------------

    def blob_url(self, the_artifact: Artifact) -> str:
        """A fresh short-lived URL on the storage host for the artifact's bytes."""
        key = secrets.token_urlsafe(16)
        self.blobs[key] = _Blob(the_artifact.data, the_artifact.id)
        return f"{self.storage_url}/blobs/{key}?sig={secrets.token_hex(8)}"

    def serve_blob(self, target: str, authorization: str | None) -> tuple[int, bytes]:
        if self.latency:
            self._stopping.wait(self.latency)
        with self.lock:
            path = urlsplit(target).path
            blob = self.blobs.get(path.removeprefix("/blobs/"))
            if blob is None:
                status, payload = 404, b"BlobNotFound"
            elif authorization is not None and self.storage_rejects_authorization:
                # Storage signed by the URL refuses a second credential, as S3 and Azure do.
                status, payload = 400, b"Only one auth mechanism allowed"
            else:
                status, payload = 200, blob.data
            self.storage_requests.append(StorageRequest(path, authorization, status))
            return status, payload

    # -- identity of a request ------------------------------------------------------------------

    def identify(self, headers: Mapping[str, str]) -> tuple[str | None, Identity | None]:
        value = headers.get("authorization", "")
        scheme, _, token = value.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token:
            return None, None
        return token, self.tokens.get(token)

    # -- dispatch -------------------------------------------------------------------------------

    def dispatch(
        self, method: str, target: str, headers: dict[str, str], raw_body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Answer one API request: (status, headers, body)."""
        if self.latency:
            self._stopping.wait(self.latency)
        path, query_list = split_target(target)
        query = dict(query_list)
        relative = path.removeprefix(self.base_path) if path.startswith(
            self.base_path + "/") else None
        found = match(self.routes, method, relative) if relative is not None else None
        if found is None:
            with self.lock:
                self.violations.append(Violation(
                    "request", f"{method} ?", path, None,
                    "the stand-in serves no such endpoint (outside GitHub's description as "
                    "trimmed, or outside the base path)"))
                self.calls[f"{method} ?"] += 1
                return self._finish(method, path, None, query, headers, raw_body,
                                    404, {}, error_body("Not Found"))
        route, params = found
        endpoint = route.endpoint
        check_path = validator_path(route, params)
        # Checked before any fault: a faulted request is still the client's request.
        problems = self.api.check_request(
            method, route.template, check_path, query_list, headers, raw_body or None)
        with self.lock:
            self.calls[endpoint] += 1
            for problem in problems:
                self.violations.append(Violation("request", endpoint, path, None, problem))
            fault = self._take_fault(endpoint)
            self._run_hooks(endpoint)
        if fault is not None and fault.delay:
            self._stopping.wait(fault.delay)
        with self.lock:
            if fault is not None and not fault.delay:
                return self._finish(method, path, endpoint, query, headers, raw_body,
                                    fault.status, fault.headers, error_body(fault.message))
            try:
                if problems:
                    raise HttpError(422, "Validation Failed: " + "; ".join(problems))
                body = json.loads(raw_body) if raw_body else None
                token, identity = self.identify(headers)
                if not route.anonymous and identity is None:
                    raise HttpError(401, "Bad credentials" if token else "Requires authentication")
                call = Call(method, endpoint, params, query, headers, body, identity, token)
                reply = paginate(route.handler(self, call), query,
                                 f"{self.api_url}{relative}")
            except HttpError as error:
                reply = Reply(error.status, error_body(error.message), error.headers)
            except Exception as error:  # a bug of the stand-in must fail the test
                self.violations.append(Violation(
                    "response", endpoint, path, 500,
                    f"the stand-in itself failed: {type(error).__name__}: {error}"))
                reply = Reply(500, error_body("Server Error"))
            return self._respond(route, method, path, check_path, query, query_list, headers,
                                 raw_body, reply)

    def _respond(
        self, route: Route, method: str, path: str, check_path: str, query: dict[str, str],
        query_list: list[tuple[str, str]], headers: dict[str, str], raw_body: bytes,
        reply: Reply,
    ) -> tuple[int, dict[str, str], bytes]:
        body = reply.body
        declared = self.api.declares(method, route.template, reply.status)
        if body is not None and declared:
            schema = self.api.response_schema(method, route.template, reply.status)
            if schema is not None:
                filler = Filler(self.api.resolve, self.api_url, iso(self.clock()) or "")
                body = filler.fill(schema, body)
        status, out_headers, payload = self._finish(
            method, path, route.endpoint, query, headers, raw_body, reply.status,
            reply.headers, body)
        # GitHub answers errors its description does not list (a 404 or 403 on most
        # operations); only declared answers can be checked.
        if declared or reply.status < 400:
            for problem in self.api.check_response(
                method, check_path, query_list, status, out_headers, payload
            ):
                self.violations.append(Violation("response", route.endpoint, path, status,
                                                 problem))
        return status, out_headers, payload

    def _finish(
        self, method: str, path: str, endpoint: str | None, query: dict[str, str],
        headers: dict[str, str], raw_body: bytes, status: int, reply_headers: dict[str, str],
        body: Any,
    ) -> tuple[int, dict[str, str], bytes]:
        used = sum(self.calls.values())
        out_headers = {
            "X-GitHub-Api-Version-Selected": "2022-11-28",
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(max(0, 5000 - used)),
            "x-ratelimit-used": str(used),
            "x-ratelimit-reset": str(int(self.wall_clock()) + 3600),
            "x-ratelimit-resource": "core",
            **reply_headers,
        }
        payload = b""
        if body is not None:
            payload = encode(body)
            out_headers.setdefault("Content-Type", "application/json; charset=utf-8")
        self.requests.append(RecordedRequest(
            method, path, endpoint, query, dict(headers), raw_body, status))
        return status, out_headers, payload
