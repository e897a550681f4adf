"""The GitHub REST calls the gate makes, through PyGithub's requester, nothing more.

Raw JSON comes in here and leaves as frozen records, so the rest of the gate never sees a
dict of unknown shape. Retries (5xx, rate limits, honouring Retry-After) and timeouts are
chosen on purpose in `connect`; every list is read to its last page with per_page=100.
Artifact downloads follow GitHub's 302 with a plain client that never sends the token.
"""

from __future__ import annotations

import functools
import inspect
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar, cast

from github import Auth, Github, GithubException, GithubRetry
from github.Requester import Requester
from requests.exceptions import ConnectionError as RequestsConnectionError
from requests.exceptions import RequestException

from gate.claim.errors import CouldNotDecide
from gate.claim.github_facts import (
    ActivityEntry,
    Artifact,
    ChangedFile,
    CheckRunInfo,
    ContentEntry,
    Deployment,
    DeploymentStatus,
    PostedCheckRun,
    PullRequestRef,
    WorkflowRun,
)
from gate.claim.review_facts import Review
from gate.claim.timefmt import TimestampError, parse_rfc3339
from gate.evidence.github.event import pull_request_ref
from gate.evidence.github.permissions import permission_for
from gate.evidence.github.reads import Reads

PER_PAGE = 100
#: GitHub lists at most this many files of a comparison; a list that long may be cut short.
MAX_COMPARED_FILES = 300


@dataclass(frozen=True)
class Comparison:
    files: tuple[ChangedFile, ...]
    merge_base: str
    listed_in_full: bool  # False: GitHub's 300-file cap was reached (or no list came)
_NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')


@dataclass(frozen=True)
class RetryPolicy:
    """How hard to try before the gate says it could not decide (exit 4 / failure)."""

    total: int = 5
    backoff_factor: float = 1.0
    timeout_s: int = 30
    max_rate_limit_wait_s: float = 120.0
    #: Retries of a connection that could not be made (name or route): none by default, a
    #: host that does not resolve or refuses will not on the next try either.
    connect: int = 0


def _why_unreachable(exc: BaseException) -> str:
    """The root cause of a failed connection in a few words, not urllib3's page of text."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, socket.gaierror):
            return f"the name does not resolve ({seen.strerror or seen})"
        if isinstance(seen, ConnectionRefusedError):
            return "the connection was refused"
        if isinstance(seen, TimeoutError | socket.timeout):
            return "no answer in time"
        nested = [a for a in getattr(seen, "args", ()) if isinstance(a, BaseException)]
        seen = getattr(seen, "reason", None) or (nested[0] if nested else None) \
            or seen.__cause__ or seen.__context__
    text = str(exc).rsplit(": ", 1)[-1].rstrip(")")
    return text[:200] or type(exc).__name__


class Unreachable(CouldNotDecide):
    """The API host cannot be resolved or connected: one line, no retry storm."""

    def __init__(self, host: str, exc: BaseException) -> None:
        super().__init__(f"cannot reach {host}: {_why_unreachable(exc)}")


class CheckRunForbidden(CouldNotDecide):
    """The token may not create check runs (a fork's pull_request token)."""


class RatePause:
    """A rate limit answered to one read holds back every read of the run, not only the one
    that met it: with reads in flight together, the others would keep asking GitHub while
    it said to wait (its secondary limits punish exactly that). Belongs to one client."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._clock, self._sleep = clock, sleep
        self._until = 0.0
        self._lock = threading.Lock()

    def hold(self, seconds: float) -> None:
        with self._lock:
            self._until = max(self._until, self._clock() + seconds)

    def wait(self) -> None:
        """Before a request: wait out what GitHub last asked for, if anything."""
        with self._lock:
            left = self._until - self._clock()
        if left > 0:
            self._sleep(left)


class _PausingRetry(GithubRetry):
    """PyGithub's retry (Retry-After, rate-limit resets, 5xx backoff), which also tells the
    run's `RatePause` how long GitHub asked it to wait."""

    pause: RatePause

    def new(self, **kw: Any) -> _PausingRetry:
        made: _PausingRetry = super().new(**kw)
        made.pause = self.pause
        return made

    def increment(self, method: str | None = None, url: str | None = None,
                  response: Any = None, error: Exception | None = None, _pool: Any = None,
                  _stacktrace: Any = None) -> Any:
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        if response is not None and response.status in (403, 429):
            asked = retry.get_retry_after(response) if retry.respect_retry_after_header else None
            self.pause.hold(max(asked or 0.0, retry.get_backoff_time()))
        return retry


def connect(api_url: str, token: str, retry: RetryPolicy,
            pause: RatePause | None = None) -> Github:
    """A client for `api_url`; an empty token reads anonymously (`claim-gate scan`).
    `pause`: shared by every thread reading through this client (a new one without)."""
    retrying = _PausingRetry(
        total=retry.total,
        connect=retry.connect,  # 5xx and rate limits keep their retries
        backoff_factor=retry.backoff_factor,
        status_forcelist=[403, 429, 500, 502, 503, 504],
        respect_retry_after_header=True,
        max_rate_limit_wait=retry.max_rate_limit_wait_s,
    )
    retrying.pause = pause or RatePause()
    return Github(
        base_url=api_url.rstrip("/"),
        auth=Auth.Token(token) if token else None,  # no token: anonymous (public repos)
        timeout=retry.timeout_s,
        per_page=PER_PAGE,
        retry=retrying,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


def _time(value: Any, what: str) -> datetime:
    try:
        return parse_rfc3339(str(value))
    except TimestampError as exc:
        raise CouldNotDecide(f"GitHub returned an unreadable time for {what}: {exc}") from None


def _optional_time(value: Any, what: str) -> datetime | None:
    return None if value is None else _time(value, what)


def _account_id(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


#: What reading a field of an answer raises when GitHub (or a proxy) sent another shape.
_MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)
_Method = TypeVar("_Method", bound=Callable[..., Any])
_Class = TypeVar("_Class")
#: The REST operation behind each reading method, for the message (others show their name).
_ENDPOINTS = {
    "pull": "GET /repos/{owner}/{repo}/pulls/{number}",
    "pulls_for_commit": "GET /repos/{owner}/{repo}/commits/{sha}/pulls",
    "workflow_runs": "GET /repos/{owner}/{repo}/actions/runs",
    "changed_files": "GET /repos/{owner}/{repo}/pulls/{number}/files",
    "compare": "GET /repos/{owner}/{repo}/compare/{base}...{head}",
    "pulls_with_commit": "GET /repos/{owner}/{repo}/commits/{sha}/pulls",
    "rebinding_events": "GET /repos/{owner}/{repo}/issues/{number}/timeline",
    "activity": "GET /repos/{owner}/{repo}/activity",
    "check_runs": "GET /repos/{owner}/{repo}/commits/{sha}/check-runs",
    "artifacts": "GET /repos/{owner}/{repo}/actions/runs/{id}/artifacts",
    "deployments": "GET /repos/{owner}/{repo}/deployments (and their statuses)",
    "create_check_run": "POST /repos/{owner}/{repo}/check-runs",
}


def _malformed(endpoint: str, exc: Exception) -> CouldNotDecide:
    field = f" (field {exc.args[0]!r} missing)" if isinstance(exc, KeyError) else ""
    return CouldNotDecide(
        f"GitHub's answer to {endpoint} is not shaped as documented{field}:"
        f" {type(exc).__name__}: {exc}; the gate cannot read it, so it cannot decide"
    )


def _guarded(name: str, method: _Method) -> _Method:
    """`method`, with a malformed answer (a missing `id`, a string for a number) turned into
    CouldNotDecide naming the endpoint, also while a returned generator is consumed."""

    def iterate(items: Iterator[Any]) -> Iterator[Any]:
        try:
            yield from items
        except _MALFORMED as exc:
            raise _malformed(name, exc) from None

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            result = method(*args, **kwargs)
        except _MALFORMED as exc:
            raise _malformed(name, exc) from None
        return iterate(result) if inspect.isgenerator(result) else result

    return cast(_Method, wrapper)


def _every_read_guarded(cls: type[_Class]) -> type[_Class]:
    """Guard every public method, so one added later cannot forget to."""
    for name, member in list(vars(cls).items()):
        if inspect.isfunction(member) and not name.startswith("_"):
            setattr(cls, name, _guarded(_ENDPOINTS.get(name, f"{cls.__name__}.{name}"), member))
    return cls


@_every_read_guarded
class GitHubApi:
    """The gate's view of one repository on one GitHub (or GitHub Enterprise) server."""

    def __init__(
        self, *, github: Github, repository: str, download_timeout_s: float = 60.0,
        reads: Reads | None = None,
    ) -> None:
        self._github = github
        self._main_requester = github.requester
        self._owner = threading.get_ident()
        self._local = threading.local()
        self._readers: list[Requester] = []
        self._readers_lock = threading.Lock()
        retrying = github.requester.kwargs.get("retry")
        self._pause = retrying.pause if isinstance(retrying, _PausingRetry) else RatePause()
        self.repository = repository
        #: Where independent reads run (`gate/evidence/github/reads.py`): the run's pool.
        self.reads = reads or Reads()
        self._download_timeout_s = download_timeout_s
        self._host = urllib.parse.urlsplit(str(github.requester.base_url)).netloc or "GitHub"

    @property
    def _requester(self) -> Requester:
        """PyGithub's connection keeps the request it is about to send on itself, so two
        threads sharing one would swap requests: each reading thread gets its own requester
        (same token, timeout and retry policy) on first use."""
        if threading.get_ident() == self._owner:
            return self._main_requester
        mine: Requester | None = getattr(self._local, "requester", None)
        if mine is None:
            mine = Requester(**self._main_requester.kwargs)
            self._local.requester = mine
            with self._readers_lock:
                self._readers.append(mine)
        return mine

    def close_readers(self) -> None:
        """Close the reading threads' connections (the run's own stays the face's)."""
        with self._readers_lock:
            readers, self._readers = self._readers, []
        for reader in readers:
            reader.close()

    def _request(
        self, verb: str, path: str, params: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> tuple[dict[str, Any], Any]:
        self._pause.wait()
        try:
            return self._requester.requestJsonAndCheck(
                verb, path, parameters=dict(params) if params else None,
                input=dict(body) if body is not None else None,
            )
        except GithubException as exc:
            message = exc.data.get("message") if isinstance(exc.data, dict) else exc.data
            text = f"GitHub answered {exc.status} to {verb} {path}: {message}"
            needed = permission_for(path) if exc.status == 403 and verb == "GET" else None
            if needed and "rate limit" not in text.lower():
                text += f" (the token needs `{needed}` on {self.repository})"
            raise _ApiError(exc.status, text) from None
        except RequestsConnectionError as exc:
            raise Unreachable(self._host, exc) from None
        except RequestException as exc:
            raise CouldNotDecide(f"GitHub could not be reached for {verb} {path}: {exc}") from None

    def _pages(self, path: str, params: Mapping[str, Any], key: str | None) -> Iterator[Any]:
        url: str | None = path
        query: Mapping[str, Any] | None = {**params, "per_page": PER_PAGE}
        while url is not None:
            headers, data = self._request("GET", url, query)
            items = data.get(key, []) if key is not None else data
            yield from items
            match = _NEXT.search(headers.get("link", ""))
            url, query = (match.group(1), None) if match else (None, None)

    @property
    def _repo(self) -> str:
        return f"/repos/{self.repository}"

    def pull(self, number: int) -> PullRequestRef:
        _, data = self._request("GET", f"{self._repo}/pulls/{number}")
        return pull_request_ref(data, f"GitHub PR #{number}")

    def pull_app(self, number: int) -> str | None:
        """The slug of the GitHub App that opened PR `number` on a user's behalf (the issue's
        `performed_via_github_app`), or None when a person or a bot account opened it."""
        _, data = self._request("GET", f"{self._repo}/issues/{number}")
        if not isinstance(data, dict) or "performed_via_github_app" not in data:
            raise CouldNotDecide(f"GitHub's issue #{number} does not say whether an App opened"
                                 " it (no performed_via_github_app)")
        app = data["performed_via_github_app"]
        if app is None:
            return None
        if not isinstance(app, dict) or not isinstance(app.get("slug"), str) or not app["slug"]:
            raise CouldNotDecide(f"GitHub names an App that opened issue #{number} without a"
                                 " slug to tell which")
        return str(app["slug"])

    def pulls_for_commit(self, sha: str) -> list[int]:
        return [int(p["number"]) for p in self._pages(f"{self._repo}/commits/{sha}/pulls", {}, None)
                if p.get("state") == "open"]

    def pulls_with_commit(self, sha: str) -> list[tuple[int, str, str]]:
        """(number, head repository, head branch) of every PR, open, closed or merged (forks'
        too), whose commits hold `sha`."""
        return [(int(p["number"]), _full_name((p.get("head") or {}).get("repo")) or "(deleted)",
                 str((p.get("head") or {}).get("ref") or ""))
                for p in self._pages(f"{self._repo}/commits/{sha}/pulls", {}, None)]

    def compare(self, base_sha: str, head_sha: str) -> Comparison:
        """The change from the merge base of two commits to the head, pinned by SHA. GitHub
        lists at most 300 files of a comparison, on its first page only."""
        _, data = self._request("GET", f"{self._repo}/compare/{base_sha}...{head_sha}",
                                {"per_page": 1})
        raw = data.get("files")
        files = tuple(
            ChangedFile(filename=str(f["filename"]), status=str(f.get("status") or ""),
                        previous_filename=f.get("previous_filename") or None)
            for f in (raw if isinstance(raw, list) else []))
        return Comparison(files, str(data["merge_base_commit"]["sha"]),
                          listed_in_full=isinstance(raw, list) and len(files) < MAX_COMPARED_FILES)

    def rebinding_events(self, number: int) -> list[tuple[str, datetime]]:
        """(event, time) of each base change and reopening on PR `number`'s timeline."""
        return [(str(raw["event"]), _time(raw["created_at"], f"PR #{number}'s timeline"))
                for raw in self._pages(f"{self._repo}/issues/{number}/timeline", {}, None)
                if raw.get("event") in ("base_ref_changed", "reopened")]

    def file_at(self, path: str, ref: str) -> bytes | None:
        """A file's bytes at a commit, or None when it does not exist there."""
        quoted = urllib.parse.quote(path)
        try:
            _, data = self._request("GET", f"{self._repo}/contents/{quoted}", {"ref": ref})
        except _ApiError as exc:
            if exc.status == 404:
                return None
            raise
        if not isinstance(data, dict) or data.get("type") != "file":
            return None
        import base64

        if data.get("encoding") != "base64":
            raise CouldNotDecide(f"{path} at {ref} is too large for the contents API")
        return base64.b64decode(data.get("content", ""))

    def entry_at(self, path: str, ref: str) -> ContentEntry | None:
        """What `path` is at a commit (file, dir, symlink, submodule), or None when absent."""
        try:
            _, data = self._request("GET", f"{self._repo}/contents/{urllib.parse.quote(path)}",
                                    {"ref": ref})
        except _ApiError as exc:
            if exc.status == 404:
                return None
            raise
        if isinstance(data, list):
            return ContentEntry("dir", path)
        kind, answered = str(data.get("type") or ""), str(data.get("path") or path)
        if kind != "file":
            return ContentEntry(kind, answered)
        if data.get("encoding") != "base64":
            raise CouldNotDecide(f"{path} at {ref} is too large for the contents API")
        import base64

        return ContentEntry("file", answered, base64.b64decode(data.get("content", "")))

    def commit_parents(self, sha: str) -> list[str]:
        _, data = self._request("GET", f"{self._repo}/commits/{sha}")
        return [str(parent["sha"]) for parent in data.get("parents", [])]

    def workflow_runs(self, head_sha: str) -> list[WorkflowRun]:
        return [_workflow_run(raw) for raw in self._pages(
            f"{self._repo}/actions/runs", {"head_sha": head_sha}, "workflow_runs")]

    def changed_files(self, number: int) -> list[ChangedFile]:
        """The PR's changed files (GitHub lists at most 3,000; `complete` says if all came)."""
        return [
            ChangedFile(
                filename=str(raw["filename"]),
                status=str(raw.get("status") or ""),
                previous_filename=raw.get("previous_filename") or None,
            )
            for raw in self._pages(f"{self._repo}/pulls/{number}/files", {}, None)
        ]

    def reviews(self, number: int) -> list[Review]:
        """The PR's reviews, oldest first, each with the commit it was made on."""
        return [
            Review(
                id=int(raw["id"]),
                login=str((raw.get("user") or {}).get("login") or ""),
                state=str(raw.get("state") or ""),
                body=str(raw.get("body") or ""),
                commit_id=str(raw.get("commit_id") or ""),
                submitted_at=_optional_time(raw.get("submitted_at"), f"review {raw['id']}"),
                user_id=_account_id((raw.get("user") or {}).get("id")),
            )
            for raw in self._pages(f"{self._repo}/pulls/{number}/reviews", {}, None)
        ]

    def permission(self, login: str) -> str:
        """A person's permission on the repository now: admin, maintain, write, triage, read
        or none (`role_name` names maintain and triage, which `permission` folds away)."""
        _, data = self._request(
            "GET", f"{self._repo}/collaborators/{urllib.parse.quote(login, safe='')}/permission")
        role = str(data.get("role_name") or "")
        return role if role in ("admin", "maintain", "write", "triage", "read") else str(
            data.get("permission") or "none")

    def activity(self, repository: str, ref: str) -> Iterator[ActivityEntry]:
        """Pushes to a branch, newest first, as the server recorded them (paged by cursor)."""
        for raw in self._pages(f"/repos/{repository}/activity", {"ref": ref, "direction": "desc"},
                               None):
            yield ActivityEntry(
                activity_type=str(raw.get("activity_type") or ""),
                ref=str(raw.get("ref") or ""),
                before=str(raw.get("before") or ""),
                after=str(raw.get("after") or ""),
                timestamp=_time(raw["timestamp"], f"activity {raw.get('id')}"),
                actor=str((raw.get("actor") or {}).get("login") or ""),
            )

    def check_runs(self, sha: str, name: str, latest: bool = True) -> list[CheckRunInfo]:
        """The latest check run of each app with this name on a commit (`latest=False`:
        every one, e.g. one per PR sharing the commit)."""
        found = []
        for raw in self._pages(f"{self._repo}/commits/{sha}/check-runs",
                               {"check_name": name, "filter": "latest" if latest else "all"},
                               "check_runs"):
            app = raw.get("app") or {}
            found.append(CheckRunInfo(
                id=int(raw["id"]),
                name=str(raw.get("name") or ""),
                head_sha=str(raw.get("head_sha") or ""),
                status=str(raw.get("status") or ""),
                conclusion=raw.get("conclusion"),
                app_id=int(app["id"]) if app.get("id") is not None else None,
                app_slug=str(app.get("slug") or ""),
                completed_at=_optional_time(raw.get("completed_at"), f"check run {raw['id']}"),
                html_url=raw.get("html_url"),
                external_id=raw.get("external_id") or None,
                text=_text((raw.get("output") or {}).get("text")),
                title=_text((raw.get("output") or {}).get("title")),
            ))
        return found

    def artifacts(self, run_id: int) -> list[Artifact]:
        return [
            Artifact(
                id=int(raw["id"]),
                name=str(raw["name"]),
                size_in_bytes=int(raw.get("size_in_bytes") or 0),
                expired=bool(raw.get("expired")),
                run_id=(raw.get("workflow_run") or {}).get("id"),
            )
            for raw in self._pages(f"{self._repo}/actions/runs/{run_id}/artifacts", {},
                                   "artifacts")
        ]

    def download_artifact(self, artifact: Artifact, max_bytes: int) -> bytes:
        """Ask for the 302 without following it, then fetch the storage URL without the token."""
        path = f"{self._repo}/actions/artifacts/{artifact.id}/zip"
        self._pause.wait()
        try:
            status, headers, _ = self._requester.requestJson("GET", path)
        except RequestException as exc:
            raise CouldNotDecide(f"GitHub could not be reached for GET {path}: {exc}") from None
        if status == 410:
            raise ArtifactGone(f"artifact {artifact.name!r} ({artifact.id}) has expired")
        location = headers.get("location")
        if status != 302 or not location:
            raise CouldNotDecide(f"GET {path} answered {status} without a download location")
        request = urllib.request.Request(location, method="GET")  # noqa: S310 - https or loopback
        try:
            with urllib.request.urlopen(request, timeout=self._download_timeout_s) as response:  # noqa: S310
                data: bytes = response.read(max_bytes + 1)
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            message = f"artifact {artifact.name!r} could not be downloaded: {exc}"
            raise CouldNotDecide(message) from None
        if len(data) > max_bytes:
            raise CouldNotDecide(
                f"artifact {artifact.name!r} is over the {max_bytes}-byte download limit"
            )
        return data

    def deployments(self, sha: str) -> list[Deployment]:
        """The head's deployments, each with its whole status history (every page)."""
        listed = list(self._pages(f"{self._repo}/deployments", {"sha": sha}, None))
        found = []
        for raw, statuses in zip(listed, self.reads.each(self._statuses, listed), strict=True):
            found.append(Deployment(
                id=int(raw["id"]),
                sha=str(raw["sha"]),
                environment=str(raw.get("environment") or ""),
                creator=str((raw.get("creator") or {}).get("login") or ""),
                created_at=_time(raw["created_at"], f"deployment {raw['id']}"),
                statuses=tuple(sorted(statuses, key=lambda status: status.created_at)),
            ))
        return found

    def _statuses(self, raw: Mapping[str, Any]) -> list[DeploymentStatus]:
        """One deployment's whole status history (every page)."""
        return [
            DeploymentStatus(
                state=str(status.get("state")),
                creator=str((status.get("creator") or {}).get("login") or ""),
                environment_url=status.get("environment_url") or None,
                created_at=_time(status["created_at"], f"deployment {raw['id']} status"),
            )
            for status in self._pages(f"{self._repo}/deployments/{raw['id']}/statuses", {},
                                      None)
        ]

    def status_contexts(self, sha: str) -> list[tuple[str, str, str]]:
        """(context, state, creator login) of the commit statuses on a commit."""
        return [
            (str(raw.get("context") or ""), str(raw.get("state") or ""),
             str((raw.get("creator") or {}).get("login") or ""))
            for raw in self._pages(f"{self._repo}/commits/{sha}/statuses", {}, None)
        ]

    def create_check_run(self, payload: Mapping[str, Any]) -> PostedCheckRun:
        try:
            _, data = self._request("POST", f"{self._repo}/check-runs", body=payload)
        except _ApiError as exc:
            # A rate limit that outlasted the retries is a fault, not a token without rights.
            if exc.status in (403, 404) and "rate limit" not in str(exc).lower():
                raise CheckRunForbidden(str(exc)) from None
            raise
        app = data.get("app") or {}
        return PostedCheckRun(int(data["id"]), data.get("html_url"),
                              int(app["id"]) if app.get("id") is not None else None,
                              app.get("slug"))

    def update_check_run(self, check_run_id: int, payload: Mapping[str, Any]) -> None:
        self._request("PATCH", f"{self._repo}/check-runs/{check_run_id}", body=payload)


def _text(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"a check run's output field is {type(value).__name__}, not a string")
    return value


def _workflow_run(raw: Mapping[str, Any]) -> WorkflowRun:
    return WorkflowRun(
        id=int(raw["id"]),
        name=str(raw.get("name") or ""),
        path=str(raw.get("path") or ""),
        event=str(raw.get("event") or ""),
        head_sha=str(raw["head_sha"]),
        status=str(raw.get("status") or ""),
        conclusion=raw.get("conclusion"),
        run_attempt=int(raw.get("run_attempt") or 1),
        created_at=_time(raw["created_at"], f"run {raw['id']} created_at"),
        run_started_at=_optional_time(raw.get("run_started_at"),
                                      f"run {raw['id']} run_started_at"),
        updated_at=_time(raw["updated_at"], f"run {raw['id']} updated_at"),
        html_url=str(raw.get("html_url") or ""),
        pull_numbers=tuple(int(p["number"]) for p in raw.get("pull_requests") or []),
        head_branch=raw.get("head_branch"),
        pull_bases=tuple(
            (int(p["number"]), str(p["base"]["ref"])) for p in raw.get("pull_requests") or []
            if isinstance(p.get("base"), dict) and p["base"].get("ref")
        ),
        actor=_login(raw.get("triggering_actor")) or _login(raw.get("actor")),
        head_repo=_full_name(raw.get("head_repository")),
    )


def _full_name(repo: Any) -> str | None:
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    return name if isinstance(name, str) and name else None


def _login(user: Any) -> str | None:
    login = user.get("login") if isinstance(user, Mapping) else None
    return login if isinstance(login, str) and login else None


class _ApiError(CouldNotDecide):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ArtifactGone(CouldNotDecide):
    """The artifact expired (410): its evidence is absent, not a fault of the gate."""


ApiError = _ApiError  # its public name, for faces that explain a status (`claim-gate scan`)
