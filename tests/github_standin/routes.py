"""The endpoints the stand-in serves: one small function per operation of GitHub's API.

Each route reads the hub's state and returns the fields it knows; the dispatcher fills the
rest from the response schema, paginates, and validates. Behaviour follows GitHub's docs
where a gate depends on it: latest attempt in listings, `filter=latest` check runs per name,
newest-first statuses and deployments, 302 then 410 for artifacts, app-only check runs.
"""

from __future__ import annotations

import posixpath
import secrets
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import jwt

from tests.github_standin import render
from tests.github_standin.model import (
    Annotation,
    App,
    CheckRun,
    Pull,
    Repo,
    Status,
    WorkflowRun,
    iso,
)
from tests.github_standin.openapi import Violation
from tests.github_standin.server import Call, HttpError, Paged, Reply, Route

if TYPE_CHECKING:
    from tests.github_standin.hub import Hub

JSON = Any
R = "/repos/{owner}/{repo}"


def _repo(hub: Hub, call: Call) -> Repo:
    repo = hub.repos.get(f"{call.params['owner']}/{call.params['repo']}")
    if repo is None:
        raise HttpError(404, "Not Found")
    return repo


def _reject(hub: Hub, call: Call, problem: str) -> HttpError:
    """A request GitHub refuses although the schema allows it: recorded, answered 422."""
    hub.violations.append(Violation("request", call.endpoint, call.endpoint, None, problem))
    return HttpError(422, f"Validation Failed: {problem}")


def _require(call: Call, permission: str, level: str = "read") -> None:
    if call.identity is None or not call.identity.may(permission, level):
        raise HttpError(403, "Resource not accessible by integration")


def _sha_of(hub: Hub, repo: Repo, ref: str) -> str:
    sha = hub.resolve_ref(repo, ref)
    if sha is None:
        raise HttpError(422, f"No commit found for SHA: {ref}")
    return sha


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# -- repositories ---------------------------------------------------------------------------


def get_repo(hub: Hub, call: Call) -> Reply:
    return Reply(body=render.repo(hub.urls, _repo(hub, call), full=True))


ACTIVITY_PERIODS = {"day": 1, "week": 7, "month": 30, "quarter": 91, "year": 365}


def list_activity(hub: Hub, call: Call) -> Reply:
    """Filtered, newest first by default, paged by cursors (`before`/`after`), as GitHub."""
    repo = _repo(hub, call)
    q = call.query
    entries = list(repo.activity)
    ref = q.get("ref")
    if ref:
        full_ref = ref if ref.startswith("refs/") else f"refs/heads/{ref}"
        entries = [e for e in entries if e.ref == full_ref]
    if "activity_type" in q:
        entries = [e for e in entries if e.activity_type == q["activity_type"]]
    if "actor" in q:
        entries = [e for e in entries if e.actor.login == q["actor"]]
    if "time_period" in q:
        since = hub.clock() - timedelta(days=ACTIVITY_PERIODS[q["time_period"]])
        entries = [e for e in entries if e.timestamp >= since]
    entries.sort(key=lambda e: (e.timestamp, e.id), reverse=q.get("direction", "desc") == "desc")
    try:
        per_page = max(1, min(100, int(q.get("per_page", "30"))))
        start = int(q["after"]) if "after" in q else 0
        stop = int(q["before"]) if "before" in q else start + per_page
    except ValueError:
        raise _reject(hub, call, "activity cursors are the stand-in's own") from None
    start = max(0, stop - per_page) if "before" in q else start
    page = entries[start:stop]
    others = "".join(
        f"{k}={quote(v, safe='')}&" for k, v in q.items() if k not in ("after", "before"))
    url = f"{hub.api_url}/repos/{repo.full_name}/activity?{others}"
    links = []
    if stop < len(entries):
        links.append(f'<{url}after={stop}>; rel="next"')
    if start > 0:
        links.append(f'<{url}before={start}>; rel="prev"')
    headers = {"Link": ", ".join(links)} if links else {}
    return Reply(body=[render.activity(hub.urls, e) for e in page], headers=headers)


def _jwt_app(hub: Hub, call: Call) -> App:
    """The app whose JWT authenticates this request (RS256-verified when a key is known)."""
    scheme, _, token = call.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token:
        raise HttpError(401, "A JSON web token could not be decoded")
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
        the_app = hub.apps.get(int(claims["iss"]))
        if the_app is None:
            raise HttpError(401, "Integration not found")
        if the_app.public_key_pem is not None:
            jwt.decode(token, the_app.public_key_pem, algorithms=["RS256"],
                       options={"verify_exp": False, "verify_iat": False})
        now = hub.wall_clock()
        if not int(claims["iat"]) - 60 <= now <= int(claims["exp"]):
            raise HttpError(401, "'Expiration time' claim ('exp') must be a numeric value "
                                 "representing the future time at which the assertion expires")
    except (jwt.PyJWTError, KeyError, ValueError, TypeError) as error:
        raise HttpError(401, f"A JSON web token could not be decoded: {error}") from None
    return the_app


def get_repo_installation(hub: Hub, call: Call) -> Reply:
    the_app = _jwt_app(hub, call)
    repo = _repo(hub, call)
    for installation in hub.installations.values():
        if installation.app.id == the_app.id and installation.account.id == repo.owner.id:
            return Reply(body=render.installation(hub.urls, installation))
    raise HttpError(404, "Not Found")


def create_installation_token(hub: Hub, call: Call) -> Reply:
    the_app = _jwt_app(hub, call)
    installation = hub.installations.get(call.int_param("installation_id"))
    if installation is None or installation.app.id != the_app.id:
        raise HttpError(404, "Not Found")
    wanted = (call.body or {}).get("permissions") or installation.permissions
    for name, level in wanted.items():
        held = installation.permissions.get(name)
        if held is None or (held == "read" and level == "write"):
            raise HttpError(422, f"The permissions requested are not granted to this "
                                 f"installation: {name}:{level}")
    token = "ghs_" + secrets.token_hex(18)
    hub.add_token(token, app=the_app, permissions=wanted)
    expires = datetime.fromtimestamp(hub.wall_clock(), tz=UTC) + timedelta(hours=1)
    return Reply(201, {
        "token": token,
        "expires_at": iso(expires),
        "permissions": wanted,
        "repository_selection": "all",
    })


# -- pull requests and commits -------------------------------------------------------------


def _pulls_of(hub: Hub, repo: Repo) -> list[Pull]:
    return sorted((p for (rid, _), p in hub.pulls.items() if rid == repo.id),
                  key=lambda p: p.number, reverse=True)


def list_pulls(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    state = call.query.get("state", "open")
    pulls = [p for p in _pulls_of(hub, repo) if state == "all" or p.state == state]
    if "head" in call.query:
        owner, _, ref = call.query["head"].partition(":")
        pulls = [p for p in pulls if p.head_repo.owner.login == owner and p.head_ref == ref]
    if "base" in call.query:
        pulls = [p for p in pulls if p.base_ref == call.query["base"]]
    sort = call.query.get("sort", "created")
    if sort not in ("created", "updated"):
        raise _reject(hub, call, f"the stand-in does not sort pulls by {sort}")
    pulls.sort(key=lambda p: (p.created_at if sort == "created" else p.updated_at, p.number),
               reverse=call.query.get("direction", "desc") == "desc")
    return Reply(body=Paged([render.pull(hub.urls, p, full=False) for p in pulls]))


def _pull(hub: Hub, call: Call) -> Pull:
    the_pull = hub.pulls.get((_repo(hub, call).id, call.int_param("pull_number")))
    if the_pull is None:
        raise HttpError(404, "Not Found")
    return the_pull


def get_pull(hub: Hub, call: Call) -> Reply:
    the_pull = _pull(hub, call)
    return Reply(body=render.pull(hub.urls, the_pull, full=True,
                                  commit_count=len(hub.commits_of_pull(the_pull))))


def get_issue(hub: Hub, call: Call) -> Reply:
    """Only PRs are issues here (the stand-in has no plain issues)."""
    the_pull = hub.pulls.get((_repo(hub, call).id, call.int_param("issue_number")))
    if the_pull is None:
        raise HttpError(404, "Not Found")
    return Reply(body=render.issue(hub.urls, the_pull))


def list_pull_files(hub: Hub, call: Call) -> Reply:
    the_pull = _pull(hub, call)
    return Reply(body=Paged([  # GitHub lists at most 3,000 files of a PR
        render.diff_entry(hub.urls, the_pull, i) for i in range(min(len(the_pull.files), 3000))
    ]))


def get_commit(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    sha = _sha_of(hub, repo, call.params["ref"])
    found = hub.find_commit(repo, sha)
    assert found is not None
    return Reply(body=render.commit(hub.urls, repo, found))


def list_pulls_for_commit(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    sha = call.params["commit_sha"]
    pulls = [p for p in _pulls_of(hub, repo) if sha in hub.commits_of_pull(p)]
    return Reply(body=Paged([render.pull(hub.urls, p, full=False) for p in pulls]))


def compare_commits(hub: Hub, call: Call) -> Reply:
    """`BASE...HEAD` of two commits of this repository (SHAs or branch names)."""
    repo = _repo(hub, call)
    base_ref, dots, head_ref = call.params["basehead"].partition("...")
    if not dots:
        raise HttpError(404, "Not Found")
    base_sha, head_sha = hub.resolve_ref(repo, base_ref), hub.resolve_ref(repo, head_ref)
    base = hub.find_commit(repo, base_sha) if base_sha else None
    head = hub.find_commit(repo, head_sha) if head_sha else None
    fork = hub.merge_base(repo, base.sha, head.sha) if base and head else None
    if base is None or head is None or fork is None:
        raise HttpError(404, "Not Found")
    merge_base = hub.find_commit(repo, fork)
    assert merge_base is not None
    ahead = [hub.find_commit(repo, sha) for sha in reversed(hub.commits_between(repo, fork,
                                                                                 head.sha))]
    behind = len(hub.commits_between(repo, fork, base.sha))
    return Reply(body=render.comparison(hub.urls, repo, base, merge_base, head,
                                        [c for c in ahead if c is not None], behind,
                                        hub.diff(merge_base, head)))


def list_timeline(hub: Hub, call: Call) -> Reply:
    the_pull = hub.pulls.get((_repo(hub, call).id, call.int_param("issue_number")))
    if the_pull is None:
        raise HttpError(404, "Not Found")
    return Reply(body=Paged([render.timeline_event(hub.urls, the_pull, *event)
                             for event in the_pull.events]))


def get_content(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    ref = call.query.get("ref") or repo.default_branch
    sha = hub.resolve_ref(repo, ref)
    if sha is None:
        raise HttpError(404, f"No commit found for the ref {ref}")
    found = hub.find_commit(repo, sha)
    assert found is not None
    tree = found.files
    path = call.params["path"].strip("/")
    link = found.symlinks.get(path)
    if link is not None:  # GitHub answers with the target file when it is one, else the link
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), link))
        if target in tree and target not in found.symlinks:
            return Reply(body=render.content_file(hub.urls, repo, target, tree[target], ref))
        return Reply(body=render.content_symlink(hub.urls, repo, path, link, ref))
    if path in tree:
        return Reply(body=render.content_file(hub.urls, repo, path, tree[path], ref))
    prefix = path + "/"
    entries = sorted({
        prefix + rest.split("/", 1)[0] + ("/" if "/" in rest else "")
        for name in tree if name.startswith(prefix)
        for rest in [name[len(prefix):]]
    })
    if entries:
        return Reply(body=render.content_directory(hub.urls, repo, entries, ref))
    raise HttpError(404, "Not Found")


def list_reviews(hub: Hub, call: Call) -> Reply:
    the_pull = _pull(hub, call)
    found = sorted((r for r in hub.review_records.values()
                    if r.repo is the_pull.repo and r.pull_number == the_pull.number),
                   key=lambda r: r.id)
    return Reply(body=Paged([render.review(hub.urls, r) for r in found]))


def get_collaborator_permission(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    who = hub.users.get(call.params["username"])
    if who is None:
        raise HttpError(404, "Not Found")
    return Reply(body=render.collaborator_permission(hub.urls, who, hub.permission_of(repo, who)))


# -- actions -----------------------------------------------------------------------------------


def _moment(hub: Hub, call: Call, text: str, *, end: bool) -> datetime:
    """A date or date-time of GitHub's search syntax; a bare date spans its whole day."""
    try:
        if "T" in text:
            return _parse_time(text)
        day = datetime.fromisoformat(text).replace(tzinfo=UTC)
    except ValueError:
        raise _reject(hub, call, f"created={text!r} is not a date or date-time") from None
    return day + timedelta(days=1) - timedelta(microseconds=1) if end else day


def _created_matches(hub: Hub, call: Call, query: str, created: datetime) -> bool:
    """GitHub's `created` filter: DATE, >DATE, >=DATE, <DATE, <=DATE or DATE..DATE."""
    if ".." in query:
        low, high = query.split("..", 1)
        return (low == "*" or created >= _moment(hub, call, low, end=False)) and (
            high == "*" or created <= _moment(hub, call, high, end=True))
    for operator in (">=", "<=", ">", "<"):
        if query.startswith(operator):
            rest = query[len(operator):]
            if operator == ">=":
                return created >= _moment(hub, call, rest, end=False)
            if operator == "<=":
                return created <= _moment(hub, call, rest, end=True)
            if operator == ">":
                return created > _moment(hub, call, rest, end=True)
            return created < _moment(hub, call, rest, end=False)
    return _moment(hub, call, query, end=False) <= created <= _moment(hub, call, query, end=True)


def _runs_matching(hub: Hub, call: Call, repo: Repo) -> list[WorkflowRun]:
    runs = [r for r in hub.runs.values() if r.repo is repo]
    q = call.query
    if "actor" in q:
        runs = [r for r in runs if r.actor.login == q["actor"]]
    if "branch" in q:
        runs = [r for r in runs if r.head_branch == q["branch"]]
    if "event" in q:
        runs = [r for r in runs if r.event == q["event"]]
    if "status" in q:
        runs = [r for r in runs if q["status"] in (r.status, r.conclusion)]
    if "head_sha" in q:
        runs = [r for r in runs if r.head_sha == q["head_sha"]]
    if "check_suite_id" in q:
        runs = [r for r in runs if str(r.check_suite_id) == q["check_suite_id"]]
    if "created" in q:
        runs = [r for r in runs if _created_matches(hub, call, q["created"], r.created_at)]
    runs.sort(key=lambda r: (r.created_at, r.id), reverse=True)
    return runs


def _run_page(hub: Hub, call: Call, runs: list[WorkflowRun]) -> Reply:
    bodies = [_without_pulls(call, render.workflow_run(hub.urls, run)) for run in runs]
    return Reply(body=Paged(bodies, "workflow_runs"))


RUN_FILTERS = ("actor", "branch", "event", "status", "head_sha", "created", "check_suite_id")


def list_runs(hub: Hub, call: Call) -> Reply:
    _require(call, "actions")
    repo = _repo(hub, call)
    runs = _runs_matching(hub, call, repo)
    if any(key in call.query for key in RUN_FILTERS):
        runs = runs[:1000]  # GitHub returns at most 1,000 runs of a filtered listing
    return _run_page(hub, call, runs)


def list_workflow_runs(hub: Hub, call: Call) -> Reply:
    _require(call, "actions")
    repo = _repo(hub, call)
    workflow = call.params["workflow_id"]
    runs = [
        r for r in _runs_matching(hub, call, repo)
        if str(r.workflow_id) == workflow or r.path.rsplit("/", 1)[-1] == workflow
    ]
    if not runs and not any(
        str(r.workflow_id) == workflow or r.path.rsplit("/", 1)[-1] == workflow
        for r in hub.runs.values() if r.repo is repo
    ):
        raise HttpError(404, "Not Found")
    if any(key in call.query for key in RUN_FILTERS):
        runs = runs[:1000]
    return _run_page(hub, call, runs)


def _run(hub: Hub, call: Call) -> WorkflowRun:
    _require(call, "actions")
    run = hub.runs.get(call.int_param("run_id"))
    if run is None or run.repo is not _repo(hub, call):
        raise HttpError(404, "Not Found")
    return run


def _without_pulls(call: Call, body: JSON) -> JSON:
    if call.query.get("exclude_pull_requests") == "true":
        body["pull_requests"] = []
    return body


def get_run(hub: Hub, call: Call) -> Reply:
    return Reply(body=_without_pulls(call, render.workflow_run(hub.urls, _run(hub, call))))


def get_run_attempt(hub: Hub, call: Call) -> Reply:
    run = _run(hub, call)
    number = call.int_param("attempt_number")
    if number == run.run_attempt:
        return Reply(body=_without_pulls(call, render.workflow_run(hub.urls, run)))
    for attempt in run.previous_attempts:
        if attempt.run_attempt == number:
            return Reply(body=_without_pulls(call, render.workflow_run(hub.urls, run, attempt)))
    raise HttpError(404, "Not Found")


def list_jobs(hub: Hub, call: Call) -> Reply:
    run = _run(hub, call)
    wanted = call.query.get("filter", "latest")
    jobs = run.jobs if wanted == "all" else [j for j in run.jobs
                                             if j.run_attempt == run.run_attempt]
    return Reply(body=Paged([render.job(hub.urls, run, j) for j in jobs], "jobs"))


def list_attempt_jobs(hub: Hub, call: Call) -> Reply:
    run = _run(hub, call)
    number = call.int_param("attempt_number")
    if not 1 <= number <= run.run_attempt:
        raise HttpError(404, "Not Found")
    jobs = [j for j in run.jobs if j.run_attempt == number]
    return Reply(body=Paged([render.job(hub.urls, run, j) for j in jobs], "jobs"))


def list_run_artifacts(hub: Hub, call: Call) -> Reply:
    run = _run(hub, call)
    artifacts = sorted((a for a in run.artifacts
                        if "name" not in call.query or a.name == call.query["name"]),
                       key=lambda a: (a.created_at, a.id),
                       reverse=call.query.get("direction", "desc") == "desc")
    return Reply(body=Paged([render.artifact(hub.urls, run, a) for a in artifacts],
                            "artifacts"))


def _artifact(hub: Hub, call: Call) -> tuple[WorkflowRun, Any]:
    _require(call, "actions")
    the_artifact = hub.artifacts.get(call.int_param("artifact_id"))
    if the_artifact is None or the_artifact.repo is not _repo(hub, call):
        raise HttpError(404, "Not Found")
    return hub.runs[the_artifact.run_id], the_artifact


def get_artifact(hub: Hub, call: Call) -> Reply:
    run, the_artifact = _artifact(hub, call)
    return Reply(body=render.artifact(hub.urls, run, the_artifact))


def download_artifact(hub: Hub, call: Call) -> Reply:
    _, the_artifact = _artifact(hub, call)
    if call.params["archive_format"] != "zip":
        raise HttpError(404, "Not Found")
    if the_artifact.expired:
        return Reply(410, {"message": "Artifact has expired",
                           "documentation_url": "https://docs.github.com/rest"})
    return Reply(302, None, {"Location": hub.blob_url(the_artifact)})


# -- checks ------------------------------------------------------------------------------------


def list_suites_for_ref(hub: Hub, call: Call) -> Reply:
    _require(call, "checks")
    repo = _repo(hub, call)
    sha = _sha_of(hub, repo, call.params["ref"])
    suites = [s for s in hub.check_suites.values() if s.repo is repo and s.head_sha == sha]
    if "app_id" in call.query:
        suites = [s for s in suites if str(s.app.id) == call.query["app_id"]]
    if "check_name" in call.query:
        names = {r.suite.id for r in hub.check_run_records.values()
                 if r.name == call.query["check_name"]}
        suites = [s for s in suites if s.id in names]
    return Reply(body=Paged([
        render.check_suite(hub.urls, s, sum(1 for r in hub.check_run_records.values()
                                            if r.suite is s))
        for s in suites
    ], "check_suites"))


def get_suite(hub: Hub, call: Call) -> Reply:
    _require(call, "checks")
    suite = hub.check_suites.get(call.int_param("check_suite_id"))
    if suite is None or suite.repo is not _repo(hub, call):
        raise HttpError(404, "Not Found")
    count = sum(1 for r in hub.check_run_records.values() if r.suite is suite)
    return Reply(body=render.check_suite(hub.urls, suite, count))


def _known_sha(hub: Hub, repo: Repo, sha: str) -> bool:
    """A commit of the repository's fork network (a fork PR's head is checked on the base)."""
    return hub.find_commit(repo, sha) is not None


def _apply_check_body(hub: Hub, call: Call, run: CheckRun, body: JSON) -> None:
    for key in ("name", "details_url", "external_id"):
        if key in body:
            setattr(run, key, body[key])
    if "status" in body:
        run.status = body["status"]
    if "started_at" in body:
        run.started_at = _parse_time(body["started_at"])
    if "conclusion" in body:
        run.conclusion = body["conclusion"]
        run.status = "completed"
    if "completed_at" in body:
        run.completed_at = _parse_time(body["completed_at"])
    if run.status == "completed":
        if run.conclusion is None:
            raise _reject(hub, call, "a completed check run needs a conclusion")
        run.completed_at = run.completed_at or hub.clock()
    output = body.get("output")
    if output is not None:
        run.title = output.get("title", run.title)
        run.summary = output.get("summary", run.summary)
        run.text = output.get("text", run.text)
        notes = output.get("annotations", [])
        if len(notes) > 50:
            raise _reject(hub, call, f"{len(notes)} annotations in one request (at most 50)")
        run.annotations.extend(Annotation.from_json(n) for n in notes)
    if "actions" in body:
        run.actions = list(body["actions"])


def _check_writer(call: Call) -> App:
    _require(call, "checks", "write")
    assert call.identity is not None
    if call.identity.app is None:
        raise HttpError(403, "You must authenticate via a GitHub App.")
    return call.identity.app


def create_check_run(hub: Hub, call: Call) -> Reply:
    the_app = _check_writer(call)
    repo = _repo(hub, call)
    body = call.body or {}
    if not _known_sha(hub, repo, body["head_sha"]):
        raise HttpError(422, "No commit found for SHA: " + body["head_sha"])
    now = hub.clock()
    run = CheckRun(
        id=hub.next_id(), repo=repo, suite=hub._suite_for(
            repo, the_app, body["head_sha"], None, now),
        name=body["name"], head_sha=body["head_sha"], status="queued", conclusion=None,
        started_at=now, completed_at=None, external_id=None, details_url=None, title=None,
        summary=None, text=None,
    )
    _apply_check_body(hub, call, run, body)
    hub.check_run_records[run.id] = run
    return Reply(201, render.check_run(hub.urls, run))


def _check_run(hub: Hub, call: Call) -> CheckRun:
    run = hub.check_run_records.get(call.int_param("check_run_id"))
    if run is None or run.repo is not _repo(hub, call):
        raise HttpError(404, "Not Found")
    return run


def get_check_run(hub: Hub, call: Call) -> Reply:
    _require(call, "checks")
    return Reply(body=render.check_run(hub.urls, _check_run(hub, call)))


def update_check_run(hub: Hub, call: Call) -> Reply:
    the_app = _check_writer(call)
    run = _check_run(hub, call)
    if run.app.id != the_app.id:
        raise HttpError(403, f"Invalid app_id `{the_app.id}` - check run can only be modified "
                             "by the GitHub App that created it.")
    _apply_check_body(hub, call, run, call.body or {})
    return Reply(body=render.check_run(hub.urls, run))


def list_annotations(hub: Hub, call: Call) -> Reply:
    _require(call, "checks")
    run = _check_run(hub, call)
    return Reply(body=Paged([render.annotation(hub.urls, run, n) for n in run.annotations]))


def list_check_runs_for_ref(hub: Hub, call: Call) -> Reply:
    _require(call, "checks")
    repo = _repo(hub, call)
    sha = _sha_of(hub, repo, call.params["ref"])
    runs = sorted((r for r in hub.check_run_records.values()
                   if r.repo is repo and r.head_sha == sha), key=lambda r: r.id, reverse=True)
    q = call.query
    if "check_name" in q:
        runs = [r for r in runs if r.name == q["check_name"]]
    if "status" in q:
        runs = [r for r in runs if r.status == q["status"]]
    if "app_id" in q:
        runs = [r for r in runs if str(r.app.id) == q["app_id"]]
    if q.get("filter", "latest") == "latest":
        seen: set[tuple[int, str]] = set()
        latest = []
        for run in runs:
            if (run.app.id, run.name) not in seen:
                seen.add((run.app.id, run.name))
                latest.append(run)
        runs = latest
    return Reply(body=Paged([render.check_run(hub.urls, r) for r in runs], "check_runs"))


# -- statuses ----------------------------------------------------------------------------------


def _statuses_for(hub: Hub, repo: Repo, sha: str) -> list[Status]:
    return sorted((s for s in hub.statuses if s.repo is repo and s.sha == sha),
                  key=lambda s: (s.created_at, s.id), reverse=True)


def list_statuses(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    sha = _sha_of(hub, repo, call.params["ref"])
    return Reply(body=Paged([render.status(hub.urls, s) for s in _statuses_for(hub, repo, sha)]))


def combined_status(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    sha = _sha_of(hub, repo, call.params["ref"])
    latest: dict[str, Status] = {}
    for entry in _statuses_for(hub, repo, sha):
        latest.setdefault(entry.context, entry)
    states = {s.state for s in latest.values()}
    state = ("failure" if states & {"failure", "error"} else
             "pending" if not states or "pending" in states else "success")
    statuses = [
        {k: v for k, v in render.status(hub.urls, s).items() if k != "creator"}
        for s in latest.values()
    ]
    return Reply(body={
        "state": state,
        "statuses": statuses,
        "sha": sha,
        "total_count": len(statuses),
        "repository": render.repo(hub.urls, repo),
        "commit_url": f"{hub.urls.repo(repo)}/commits/{sha}",
        "url": f"{hub.urls.repo(repo)}/commits/{sha}/status",
    })


def create_status(hub: Hub, call: Call) -> Reply:
    _require(call, "statuses", "write")
    assert call.identity is not None
    repo = _repo(hub, call)
    sha = call.params["sha"]
    if not _known_sha(hub, repo, sha):
        raise HttpError(422, f"No commit found for SHA: {sha}")
    body = call.body or {}
    entry = hub.add_status(
        repo, sha=sha, state=body["state"], context=body.get("context", "default"),
        creator=call.identity.user, description=body.get("description"),
        target_url=body.get("target_url"),
    )
    return Reply(201, render.status(hub.urls, entry))


# -- deployments -------------------------------------------------------------------------------


def list_deployments(hub: Hub, call: Call) -> Reply:
    _require(call, "deployments")
    repo = _repo(hub, call)
    found = [d for d in hub.deployments.values() if d.repo is repo]
    for key in ("sha", "ref", "task", "environment"):
        if key in call.query:
            found = [d for d in found if getattr(d, key) == call.query[key]]
    found.sort(key=lambda d: (d.created_at, d.id), reverse=True)
    return Reply(body=Paged([render.deployment(hub.urls, d) for d in found]))


def _deployment(hub: Hub, call: Call) -> Any:
    _require(call, "deployments")
    found = hub.deployments.get(call.int_param("deployment_id"))
    if found is None or found.repo is not _repo(hub, call):
        raise HttpError(404, "Not Found")
    return found


def get_deployment(hub: Hub, call: Call) -> Reply:
    return Reply(body=render.deployment(hub.urls, _deployment(hub, call)))


def list_deployment_statuses(hub: Hub, call: Call) -> Reply:
    found = _deployment(hub, call)
    entries = sorted(found.statuses, key=lambda s: (s.created_at, s.id), reverse=True)
    return Reply(body=Paged([render.deployment_status(hub.urls, found, s) for s in entries]))


# -- comments ----------------------------------------------------------------------------------


def list_comments(hub: Hub, call: Call) -> Reply:
    repo = _repo(hub, call)
    found = sorted(hub.comments(repo, call.int_param("issue_number")), key=lambda c: c.id)
    if "since" in call.query:
        since = _parse_time(call.query["since"])
        found = [c for c in found if c.updated_at >= since]
    return Reply(body=Paged([render.comment(hub.urls, c) for c in found]))


def create_comment(hub: Hub, call: Call) -> Reply:
    _require(call, "pull_requests", "write")
    assert call.identity is not None
    repo = _repo(hub, call)
    number = call.int_param("issue_number")
    if (repo.id, number) not in hub.pulls:
        raise HttpError(404, "Not Found")
    entry = hub.add_comment(repo, number, (call.body or {})["body"], user=call.identity.user)
    return Reply(201, render.comment(hub.urls, entry))


def update_comment(hub: Hub, call: Call) -> Reply:
    _require(call, "pull_requests", "write")
    assert call.identity is not None
    entry = hub.comment_records.get(call.int_param("comment_id"))
    if entry is None or entry.repo is not _repo(hub, call):
        raise HttpError(404, "Not Found")
    if entry.user.id != call.identity.user.id:
        raise HttpError(403, "Resource not accessible by integration")
    entry.body = (call.body or {})["body"]
    entry.updated_at = hub.clock()
    return Reply(body=render.comment(hub.urls, entry))


ROUTES: list[Route] = [
    Route.make("GET", R, get_repo),
    Route.make("GET", f"{R}/activity", list_activity),
    Route.make("GET", f"{R}/installation", get_repo_installation, anonymous=True),
    Route.make("GET", f"{R}/pulls", list_pulls),
    Route.make("GET", f"{R}/pulls/{{pull_number}}", get_pull),
    Route.make("GET", f"{R}/pulls/{{pull_number}}/files", list_pull_files),
    Route.make("GET", f"{R}/pulls/{{pull_number}}/reviews", list_reviews),
    Route.make("GET", f"{R}/collaborators/{{username}}/permission", get_collaborator_permission),
    Route.make("GET", f"{R}/commits/{{commit_sha}}/pulls", list_pulls_for_commit),
    Route.make("GET", f"{R}/compare/{{basehead}}", compare_commits),
    Route.make("GET", f"{R}/commits/{{ref}}/check-suites", list_suites_for_ref),
    Route.make("GET", f"{R}/commits/{{ref}}/check-runs", list_check_runs_for_ref),
    Route.make("GET", f"{R}/commits/{{ref}}/statuses", list_statuses),
    Route.make("GET", f"{R}/commits/{{ref}}/status", combined_status),
    Route.make("GET", f"{R}/commits/{{ref}}", get_commit),
    Route.make("GET", f"{R}/contents/{{path}}", get_content),
    Route.make("GET", f"{R}/actions/runs", list_runs),
    Route.make("GET", f"{R}/actions/workflows/{{workflow_id}}/runs", list_workflow_runs),
    Route.make("GET", f"{R}/actions/runs/{{run_id}}", get_run),
    Route.make("GET", f"{R}/actions/runs/{{run_id}}/attempts/{{attempt_number}}",
               get_run_attempt),
    Route.make("GET", f"{R}/actions/runs/{{run_id}}/jobs", list_jobs),
    Route.make("GET", f"{R}/actions/runs/{{run_id}}/attempts/{{attempt_number}}/jobs",
               list_attempt_jobs),
    Route.make("GET", f"{R}/actions/runs/{{run_id}}/artifacts", list_run_artifacts),
    Route.make("GET", f"{R}/actions/artifacts/{{artifact_id}}", get_artifact),
    Route.make("GET", f"{R}/actions/artifacts/{{artifact_id}}/{{archive_format}}",
               download_artifact),
    Route.make("GET", f"{R}/check-suites/{{check_suite_id}}", get_suite),
    Route.make("POST", f"{R}/check-runs", create_check_run),
    Route.make("GET", f"{R}/check-runs/{{check_run_id}}", get_check_run),
    Route.make("PATCH", f"{R}/check-runs/{{check_run_id}}", update_check_run),
    Route.make("GET", f"{R}/check-runs/{{check_run_id}}/annotations", list_annotations),
    Route.make("POST", f"{R}/statuses/{{sha}}", create_status),
    Route.make("GET", f"{R}/deployments", list_deployments),
    Route.make("GET", f"{R}/deployments/{{deployment_id}}", get_deployment),
    Route.make("GET", f"{R}/deployments/{{deployment_id}}/statuses", list_deployment_statuses),
    Route.make("GET", f"{R}/issues/{{issue_number}}", get_issue),
    Route.make("GET", f"{R}/issues/{{issue_number}}/comments", list_comments),
    Route.make("GET", f"{R}/issues/{{issue_number}}/timeline", list_timeline),
    Route.make("POST", f"{R}/issues/{{issue_number}}/comments", create_comment),
    Route.make("PATCH", f"{R}/issues/comments/{{comment_id}}", update_comment),
    Route.make("POST", "/app/installations/{installation_id}/access_tokens",
               create_installation_token, anonymous=True),
]
