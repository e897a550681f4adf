"""State records -> the fields of GitHub's JSON that the stand-in writes itself.

Each function returns a partial object; `schema_fill.Filler` completes it from the response
schema. Every `url` points at the stand-in (PyGithub asserts the host of urls it follows).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tests.github_standin.model import (
    Activity,
    Annotation,
    App,
    Artifact,
    ChangedFile,
    CheckRun,
    CheckSuite,
    Comment,
    Commit,
    Deployment,
    DeploymentStatus,
    Installation,
    Job,
    Pull,
    Repo,
    Review,
    RunAttempt,
    Status,
    User,
    WorkflowRun,
    iso,
)

JSON = Any


@dataclass(frozen=True)
class Urls:
    api: str  # e.g. http://127.0.0.1:5000/api/v3
    web: str  # e.g. http://127.0.0.1:5000

    def repo(self, repo: Repo) -> str:
        return f"{self.api}/repos/{repo.full_name}"

    def html(self, repo: Repo) -> str:
        return f"{self.web}/{repo.full_name}"


def node_id(kind: str, ident: int | str) -> str:
    return base64.b64encode(f"{kind}:{ident}".encode()).decode()


def user(urls: Urls, who: User) -> JSON:
    return {
        "login": who.login,
        "id": who.id,
        "node_id": node_id("User", who.id),
        "type": who.type,
        "site_admin": False,
        "url": f"{urls.api}/users/{who.login}",
        "html_url": f"{urls.web}/{who.login}",
        "avatar_url": f"{urls.web}/avatars/{who.id}",
        "gravatar_id": "",
    }


def app(urls: Urls, the_app: App) -> JSON:
    return {
        "id": the_app.id,
        "slug": the_app.slug,
        "node_id": node_id("App", the_app.id),
        "name": the_app.name,
        "owner": user(urls, the_app.owner),
        "description": None,
        "external_url": f"{urls.web}/apps/{the_app.slug}",
        "html_url": f"{urls.web}/apps/{the_app.slug}",
        "permissions": {"checks": "write", "contents": "read", "metadata": "read"},
        "events": [],
    }


def repo(urls: Urls, the_repo: Repo, *, full: bool = False) -> JSON:
    base = urls.repo(the_repo)
    data: JSON = {
        "id": the_repo.id,
        "node_id": node_id("Repository", the_repo.id),
        "name": the_repo.name,
        "full_name": the_repo.full_name,
        "owner": user(urls, the_repo.owner),
        "private": the_repo.private,
        "fork": the_repo.parent is not None,
        "default_branch": the_repo.default_branch,
        "url": base,
        "html_url": urls.html(the_repo),
        "pulls_url": f"{base}/pulls{{/number}}",
        "statuses_url": f"{base}/statuses/{{sha}}",
        "deployments_url": f"{base}/deployments",
        "visibility": "private" if the_repo.private else "public",
    }
    if full:
        data["permissions"] = {
            "admin": False, "maintain": False, "push": True, "triage": True, "pull": True,
        }
        if the_repo.parent is not None:
            data["parent"] = repo(urls, the_repo.parent)
            root = the_repo.parent
            while root.parent is not None:
                root = root.parent
            data["source"] = repo(urls, root)
    return data


def commit(urls: Urls, the_repo: Repo, the_commit: Commit) -> JSON:
    base = urls.repo(the_repo)
    person = {
        "name": the_commit.author.login if the_commit.author else "someone",
        "email": "someone@example.invalid",
    }
    return {
        "sha": the_commit.sha,
        "node_id": node_id("Commit", the_commit.sha),
        "url": f"{base}/commits/{the_commit.sha}",
        "html_url": f"{urls.html(the_repo)}/commit/{the_commit.sha}",
        "comments_url": f"{base}/commits/{the_commit.sha}/comments",
        "commit": {
            "url": f"{base}/git/commits/{the_commit.sha}",
            "message": the_commit.message,
            "author": {**person, "date": iso(the_commit.author_date)},
            "committer": {**person, "date": iso(the_commit.committer_date)},
            "tree": {"sha": hashlib.sha1(the_commit.sha.encode()).hexdigest(),  # noqa: S324
                     "url": f"{base}/git/trees/{the_commit.sha}"},
            "comment_count": 0,
        },
        "author": user(urls, the_commit.author) if the_commit.author else None,
        "committer": user(urls, the_commit.author) if the_commit.author else None,
        "parents": [
            {"sha": parent, "url": f"{base}/commits/{parent}",
             "html_url": f"{urls.html(the_repo)}/commit/{parent}"}
            for parent in the_commit.parents
        ],
    }


def simple_commit(the_commit: Commit) -> JSON:
    person = {
        "name": the_commit.author.login if the_commit.author else "someone",
        "email": "someone@example.invalid",
    }
    return {
        "id": the_commit.sha,
        "tree_id": hashlib.sha1(the_commit.sha.encode()).hexdigest(),  # noqa: S324
        "message": the_commit.message,
        "timestamp": iso(the_commit.committer_date),
        "author": person,
        "committer": person,
    }


def _pull_end(urls: Urls, the_repo: Repo, ref: str, sha: str, owner: User) -> JSON:
    return {
        "label": f"{the_repo.owner.login}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user(urls, owner),
        "repo": repo(urls, the_repo),
    }


def issue(urls: Urls, the_pull: Pull) -> JSON:
    """A PR as the issues API shows it: the same number, plus who performed it (an app)."""
    base = urls.repo(the_pull.repo)
    url = f"{base}/issues/{the_pull.number}"
    html = f"{urls.html(the_pull.repo)}/pull/{the_pull.number}"
    return {
        "id": the_pull.id,
        "node_id": node_id("Issue", the_pull.id),
        "number": the_pull.number,
        "url": url,
        "repository_url": base,
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": html,
        "title": the_pull.title,
        "body": the_pull.body,
        "user": user(urls, the_pull.user),
        "labels": [],
        "state": the_pull.state,
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": 0,
        "created_at": iso(the_pull.created_at),
        "updated_at": iso(the_pull.updated_at),
        "closed_at": None,
        "author_association": "CONTRIBUTOR",
        "pull_request": {"url": f"{base}/pulls/{the_pull.number}", "html_url": html,
                         "diff_url": f"{html}.diff", "patch_url": f"{html}.patch",
                         "merged_at": None},
        "performed_via_github_app": app(urls, the_pull.app) if the_pull.app else None,
    }


def pull(urls: Urls, the_pull: Pull, *, full: bool, commit_count: int = 1) -> JSON:
    base = f"{urls.repo(the_pull.repo)}"
    url = f"{base}/pulls/{the_pull.number}"
    data: JSON = {
        "id": the_pull.id,
        "node_id": node_id("PullRequest", the_pull.id),
        "number": the_pull.number,
        "url": url,
        "html_url": f"{urls.html(the_pull.repo)}/pull/{the_pull.number}",
        "issue_url": f"{base}/issues/{the_pull.number}",
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": f"{base}/pulls/comments{{/number}}",
        "comments_url": f"{base}/issues/{the_pull.number}/comments",
        "statuses_url": f"{base}/statuses/{the_pull.head_sha}",
        "diff_url": f"{urls.html(the_pull.repo)}/pull/{the_pull.number}.diff",
        "patch_url": f"{urls.html(the_pull.repo)}/pull/{the_pull.number}.patch",
        "state": the_pull.state,
        "locked": False,
        "title": the_pull.title,
        "body": the_pull.body,
        "user": user(urls, the_pull.user),
        "draft": the_pull.draft,
        "created_at": iso(the_pull.created_at),
        "updated_at": iso(the_pull.updated_at),
        "closed_at": None,
        "merged_at": None,
        "merge_commit_sha": the_pull.merge_commit_sha,
        "head": _pull_end(
            urls, the_pull.head_repo, the_pull.head_ref, the_pull.head_sha,
            the_pull.head_repo.owner,
        ),
        "base": _pull_end(
            urls, the_pull.repo, the_pull.base_ref, the_pull.base_sha, the_pull.repo.owner
        ),
        "author_association": "CONTRIBUTOR",
        "labels": [],
        "assignees": [],
        "requested_reviewers": [],
        "requested_teams": [],
        "_links": {
            key: {"href": href}
            for key, href in {
                "self": url, "html": f"{urls.html(the_pull.repo)}/pull/{the_pull.number}",
                "issue": f"{base}/issues/{the_pull.number}",
                "comments": f"{base}/issues/{the_pull.number}/comments",
                "review_comments": f"{url}/comments",
                "review_comment": f"{base}/pulls/comments{{/number}}",
                "commits": f"{url}/commits",
                "statuses": f"{base}/statuses/{the_pull.head_sha}",
            }.items()
        },
    }
    if full:
        data.update(
            merged=False,
            mergeable=None,
            rebaseable=None,
            mergeable_state="unknown",
            merged_by=None,
            comments=0,
            review_comments=0,
            maintainer_can_modify=False,
            commits=commit_count,
            additions=sum(f.additions for f in the_pull.files),
            deletions=sum(f.deletions for f in the_pull.files),
            changed_files=len(the_pull.files),
        )
    return data


def pull_minimal(urls: Urls, the_pull: Pull, base: tuple[str, str] | None = None) -> JSON:
    """`base`: (ref, sha) the PR had when a workflow run was made for it (default: now)."""
    base_ref, base_sha = base or (the_pull.base_ref, the_pull.base_sha)

    def end(the_repo: Repo, ref: str, sha: str) -> JSON:
        return {
            "ref": ref,
            "sha": sha,
            "repo": {"id": the_repo.id, "url": urls.repo(the_repo), "name": the_repo.name},
        }

    return {
        "id": the_pull.id,
        "number": the_pull.number,
        "url": f"{urls.repo(the_pull.repo)}/pulls/{the_pull.number}",
        "head": end(the_pull.head_repo, the_pull.head_ref, the_pull.head_sha),
        "base": end(the_pull.repo, base_ref, base_sha),
    }


def diff_entry(urls: Urls, the_pull: Pull, index: int) -> JSON:
    changed = the_pull.files[index]
    head = the_pull.head_repo.commits.get(the_pull.head_sha)
    content = head.files.get(changed.filename, b"") if head else b""
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324
    data: JSON = {
        "sha": blob,
        "filename": changed.filename,
        "status": changed.status,
        "additions": changed.additions,
        "deletions": changed.deletions,
        "changes": changed.additions + changed.deletions,
        "blob_url": f"{urls.html(the_pull.head_repo)}/blob/{the_pull.head_sha}/{changed.filename}",
        "raw_url": f"{urls.html(the_pull.head_repo)}/raw/{the_pull.head_sha}/{changed.filename}",
        "contents_url": (
            f"{urls.repo(the_pull.head_repo)}/contents/{changed.filename}?ref={the_pull.head_sha}"
        ),
    }
    if changed.previous_filename is not None:
        data["previous_filename"] = changed.previous_filename
    return data


def file_entry(urls: Urls, the_repo: Repo, head: Commit, changed: ChangedFile) -> JSON:
    """One entry of a comparison's `files` (the `diff-entry` shape, as a PR's files)."""
    content = head.files.get(changed.filename, b"")
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324
    data: JSON = {
        "sha": blob, "filename": changed.filename, "status": changed.status,
        "additions": changed.additions, "deletions": changed.deletions,
        "changes": changed.additions + changed.deletions,
        "blob_url": f"{urls.html(the_repo)}/blob/{head.sha}/{changed.filename}",
        "raw_url": f"{urls.html(the_repo)}/raw/{head.sha}/{changed.filename}",
        "contents_url": f"{urls.repo(the_repo)}/contents/{changed.filename}?ref={head.sha}",
    }
    if changed.previous_filename is not None:
        data["previous_filename"] = changed.previous_filename
    return data


def comparison(urls: Urls, the_repo: Repo, base: Commit, merge_base: Commit, head: Commit,
               ahead: Sequence[Commit], behind: int, files: Sequence[ChangedFile]) -> JSON:
    """`GET compare/{base}...{head}`: the commits from the merge base to the head, and at most
    300 changed files for the whole comparison (GitHub's cap)."""
    spec = f"{base.sha}...{head.sha}"
    status = ("identical" if not ahead and not behind else "ahead" if not behind
              else "behind" if not ahead else "diverged")
    return {
        "url": f"{urls.repo(the_repo)}/compare/{spec}",
        "html_url": f"{urls.html(the_repo)}/compare/{spec}",
        "permalink_url": f"{urls.html(the_repo)}/compare/{spec}",
        "diff_url": f"{urls.html(the_repo)}/compare/{spec}.diff",
        "patch_url": f"{urls.html(the_repo)}/compare/{spec}.patch",
        "base_commit": commit(urls, the_repo, base),
        "merge_base_commit": commit(urls, the_repo, merge_base),
        "status": status, "ahead_by": len(ahead), "behind_by": behind,
        "total_commits": len(ahead),
        "commits": [commit(urls, the_repo, c) for c in ahead],
        "files": [file_entry(urls, the_repo, head, f) for f in files[:300]],
    }


def timeline_event(urls: Urls, the_pull: Pull, ident: int, event: str, actor: User,
                   at: datetime) -> JSON:
    """A state change on a PR's timeline (`state-change-issue-event`)."""
    return {
        "id": ident, "node_id": node_id("IssueEvent", ident),
        "url": f"{urls.repo(the_pull.repo)}/issues/events/{ident}",
        "actor": user(urls, actor), "event": event, "commit_id": None, "commit_url": None,
        "created_at": iso(at), "performed_via_github_app": None,
    }


def content_file(urls: Urls, the_repo: Repo, path: str, content: bytes, ref: str) -> JSON:
    blob = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324
    url = f"{urls.repo(the_repo)}/contents/{path}?ref={ref}"
    html = f"{urls.html(the_repo)}/blob/{ref}/{path}"
    git = f"{urls.repo(the_repo)}/git/blobs/{blob}"
    encoded = base64.encodebytes(content).decode("ascii")
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(content),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": encoded,
        "sha": blob,
        "url": url,
        "git_url": git,
        "html_url": html,
        "download_url": f"{urls.web}/raw/{the_repo.full_name}/{ref}/{path}",
        "_links": {"self": url, "git": git, "html": html},
    }


def content_directory(urls: Urls, the_repo: Repo, entries: list[str], ref: str) -> JSON:
    items = []
    for entry in entries:
        url = f"{urls.repo(the_repo)}/contents/{entry}?ref={ref}"
        items.append({
            "type": "dir" if entry.endswith("/") else "file",
            "size": 0,
            "name": entry.rstrip("/").rsplit("/", 1)[-1],
            "path": entry.rstrip("/"),
            "sha": hashlib.sha1(entry.encode()).hexdigest(),  # noqa: S324
            "url": url,
            "git_url": None,
            "html_url": None,
            "download_url": None,
            "_links": {"self": url, "git": None, "html": None},
        })
    return items


def activity(urls: Urls, entry: Activity) -> JSON:
    return {
        "id": entry.id,
        "node_id": node_id("RepositoryActivity", entry.id),
        "before": entry.before,
        "after": entry.after,
        "ref": entry.ref,
        "timestamp": iso(entry.timestamp),
        "activity_type": entry.activity_type,
        "actor": user(urls, entry.actor),
    }


def workflow_run(urls: Urls, run: WorkflowRun, attempt: RunAttempt | None = None) -> JSON:
    base = f"{urls.repo(run.repo)}/actions/runs/{run.id}"
    head = run.head_repo.commits.get(run.head_sha)
    status, conclusion = run.status, run.conclusion
    number, started, updated = run.run_attempt, run.run_started_at, run.updated_at
    if attempt is not None:
        status, conclusion = attempt.status, attempt.conclusion
        number, started, updated = attempt.run_attempt, attempt.run_started_at, attempt.updated_at
    return {
        "id": run.id,
        "name": run.name,
        "node_id": node_id("WorkflowRun", run.id),
        "check_suite_id": run.check_suite_id,
        "check_suite_node_id": node_id("CheckSuite", run.check_suite_id),
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "path": run.path,
        "display_title": run.display_title,
        "run_number": run.run_number,
        "run_attempt": number,
        "event": run.event,
        "status": status,
        "conclusion": conclusion,
        "workflow_id": run.workflow_id,
        "url": base,
        "html_url": f"{urls.html(run.repo)}/actions/runs/{run.id}",
        "pull_requests": [pull_minimal(urls, p, run.pull_bases.get(p.number))
                          for p in run.pull_requests],
        "created_at": iso(run.created_at),
        "updated_at": iso(updated),
        "run_started_at": iso(started),
        "actor": user(urls, run.actor),
        "triggering_actor": user(urls, run.actor),
        "jobs_url": f"{base}/jobs",
        "logs_url": f"{base}/logs",
        "check_suite_url": f"{urls.repo(run.repo)}/check-suites/{run.check_suite_id}",
        "artifacts_url": f"{base}/artifacts",
        "cancel_url": f"{base}/cancel",
        "rerun_url": f"{base}/rerun",
        "previous_attempt_url": (
            f"{base}/attempts/{number - 1}" if number > 1 else None
        ),
        "workflow_url": f"{urls.repo(run.repo)}/actions/workflows/{run.workflow_id}",
        "head_commit": simple_commit(head) if head else None,
        "repository": repo(urls, run.repo),
        "head_repository": repo(urls, run.head_repo),
        "head_repository_id": run.head_repo.id,
    }


def job(urls: Urls, run: WorkflowRun, the_job: Job) -> JSON:
    base = urls.repo(run.repo)
    return {
        "id": the_job.id,
        "run_id": run.id,
        "run_url": f"{base}/actions/runs/{run.id}",
        "run_attempt": the_job.run_attempt,
        "node_id": node_id("Job", the_job.id),
        "head_sha": run.head_sha,
        "head_branch": run.head_branch,
        "workflow_name": run.name,
        "url": f"{base}/actions/jobs/{the_job.id}",
        "html_url": f"{urls.html(run.repo)}/actions/runs/{run.id}/job/{the_job.id}",
        "status": the_job.status,
        "conclusion": the_job.conclusion,
        "created_at": iso(the_job.created_at),
        "started_at": iso(the_job.started_at),
        "completed_at": iso(the_job.completed_at),
        "name": the_job.name,
        "steps": [
            {"name": s.name, "number": s.number, "status": s.status, "conclusion": s.conclusion,
             "started_at": iso(the_job.started_at), "completed_at": iso(the_job.completed_at)}
            for s in the_job.steps
        ],
        "check_run_url": f"{base}/check-runs/{the_job.id}",
        "labels": the_job.labels,
        "runner_id": 1,
        "runner_name": "GitHub Actions 1",
        "runner_group_id": 1,
        "runner_group_name": "GitHub Actions",
    }


def artifact(urls: Urls, run: WorkflowRun, the_artifact: Artifact) -> JSON:
    base = f"{urls.repo(the_artifact.repo)}/actions/artifacts/{the_artifact.id}"
    return {
        "id": the_artifact.id,
        "node_id": node_id("Artifact", the_artifact.id),
        "name": the_artifact.name,
        "size_in_bytes": len(the_artifact.data),
        "url": base,
        "archive_download_url": f"{base}/zip",
        "expired": the_artifact.expired,
        "created_at": iso(the_artifact.created_at),
        "updated_at": iso(the_artifact.created_at),
        "expires_at": iso(the_artifact.expires_at),
        "digest": "sha256:" + hashlib.sha256(the_artifact.data).hexdigest(),
        "workflow_run": {
            "id": run.id,
            "repository_id": run.repo.id,
            "head_repository_id": run.head_repo.id,
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
        },
    }


def check_suite(urls: Urls, suite: CheckSuite, runs_count: int) -> JSON:
    commit_record = suite.repo.commits.get(suite.head_sha)
    return {
        "id": suite.id,
        "node_id": node_id("CheckSuite", suite.id),
        "head_branch": suite.head_branch,
        "head_sha": suite.head_sha,
        "status": suite.status,
        "conclusion": suite.conclusion,
        "url": f"{urls.repo(suite.repo)}/check-suites/{suite.id}",
        "before": None,
        "after": suite.head_sha,
        "pull_requests": [],
        "app": app(urls, suite.app),
        "repository": repo(urls, suite.repo),
        "created_at": iso(suite.created_at),
        "updated_at": iso(suite.updated_at),
        "head_commit": simple_commit(commit_record) if commit_record else None,
        "latest_check_runs_count": runs_count,
        "check_runs_url": f"{urls.repo(suite.repo)}/check-suites/{suite.id}/check-runs",
        "rerequestable": True,
        "runs_rerequestable": True,
    }


def check_run(urls: Urls, run: CheckRun) -> JSON:
    base = f"{urls.repo(run.repo)}/check-runs/{run.id}"
    return {
        "id": run.id,
        "head_sha": run.head_sha,
        "node_id": node_id("CheckRun", run.id),
        "external_id": run.external_id,
        "url": base,
        "html_url": f"{urls.html(run.repo)}/runs/{run.id}",
        "details_url": run.details_url,
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": iso(run.started_at),
        "completed_at": iso(run.completed_at),
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": len(run.annotations),
            "annotations_url": f"{base}/annotations",
        },
        "name": run.name,
        "check_suite": {"id": run.suite.id},
        "app": app(urls, run.app),
        "pull_requests": [],
    }


def annotation(urls: Urls, run: CheckRun, note: Annotation) -> JSON:
    return {
        "path": note.path,
        "start_line": note.start_line,
        "end_line": note.end_line,
        "start_column": note.start_column,
        "end_column": note.end_column,
        "annotation_level": note.annotation_level,
        "title": note.title,
        "message": note.message,
        "raw_details": note.raw_details,
        "blob_href": f"{urls.html(run.repo)}/blob/{run.head_sha}/{note.path}",
    }


def status(urls: Urls, the_status: Status) -> JSON:
    return {
        "url": f"{urls.repo(the_status.repo)}/statuses/{the_status.sha}",
        "avatar_url": f"{urls.web}/avatars/{the_status.creator.id}",
        "id": the_status.id,
        "node_id": node_id("StatusContext", the_status.id),
        "state": the_status.state,
        "description": the_status.description,
        "target_url": the_status.target_url,
        "context": the_status.context,
        "created_at": iso(the_status.created_at),
        "updated_at": iso(the_status.updated_at),
        "creator": user(urls, the_status.creator),
    }


def deployment(urls: Urls, the_deployment: Deployment) -> JSON:
    base = f"{urls.repo(the_deployment.repo)}/deployments/{the_deployment.id}"
    return {
        "url": base,
        "id": the_deployment.id,
        "node_id": node_id("Deployment", the_deployment.id),
        "sha": the_deployment.sha,
        "ref": the_deployment.ref,
        "task": the_deployment.task,
        "payload": {},
        "original_environment": the_deployment.environment,
        "environment": the_deployment.environment,
        "description": the_deployment.description,
        "creator": user(urls, the_deployment.creator),
        "created_at": iso(the_deployment.created_at),
        "updated_at": iso(the_deployment.created_at),
        "statuses_url": f"{base}/statuses",
        "repository_url": urls.repo(the_deployment.repo),
        "transient_environment": False,
        "production_environment": the_deployment.environment == "production",
        "performed_via_github_app": (
            app(urls, the_deployment.app) if the_deployment.app else None
        ),
    }


def deployment_status(urls: Urls, the_deployment: Deployment, entry: DeploymentStatus) -> JSON:
    base = f"{urls.repo(the_deployment.repo)}/deployments/{the_deployment.id}"
    return {
        "url": f"{base}/statuses/{entry.id}",
        "id": entry.id,
        "node_id": node_id("DeploymentStatus", entry.id),
        "state": entry.state,
        "creator": user(urls, entry.creator),
        "description": entry.description,
        "environment": entry.environment,
        "target_url": entry.target_url,
        "log_url": entry.target_url,
        "environment_url": entry.environment_url,
        "created_at": iso(entry.created_at),
        "updated_at": iso(entry.created_at),
        "deployment_url": base,
        "repository_url": urls.repo(the_deployment.repo),
        "performed_via_github_app": app(urls, entry.app) if entry.app else None,
    }


def comment(urls: Urls, the_comment: Comment) -> JSON:
    base = urls.repo(the_comment.repo)
    return {
        "id": the_comment.id,
        "node_id": node_id("IssueComment", the_comment.id),
        "url": f"{base}/issues/comments/{the_comment.id}",
        "html_url": (
            f"{urls.html(the_comment.repo)}/pull/{the_comment.issue_number}"
            f"#issuecomment-{the_comment.id}"
        ),
        "issue_url": f"{base}/issues/{the_comment.issue_number}",
        "body": the_comment.body,
        "user": user(urls, the_comment.user),
        "created_at": iso(the_comment.created_at),
        "updated_at": iso(the_comment.updated_at),
        "author_association": "CONTRIBUTOR",
    }


def installation(urls: Urls, the_installation: Installation) -> JSON:
    return {
        "id": the_installation.id,
        "account": user(urls, the_installation.account),
        "repository_selection": "all",
        "access_tokens_url": f"{urls.api}/app/installations/{the_installation.id}/access_tokens",
        "repositories_url": f"{urls.api}/installation/repositories",
        "html_url": f"{urls.web}/settings/installations/{the_installation.id}",
        "app_id": the_installation.app.id,
        "app_slug": the_installation.app.slug,
        "target_id": the_installation.account.id,
        "target_type": the_installation.account.type,
        "permissions": the_installation.permissions,
        "events": [],
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "single_file_name": None,
    }


def content_symlink(urls: Urls, the_repo: Repo, path: str, target: str, ref: str) -> JSON:
    """A symlink whose target is not a file of the repository (GitHub follows the others)."""
    data = target.encode()
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # noqa: S324
    url = f"{urls.repo(the_repo)}/contents/{path}?ref={ref}"
    html = f"{urls.html(the_repo)}/blob/{ref}/{path}"
    git = f"{urls.repo(the_repo)}/git/blobs/{blob}"
    return {
        "type": "symlink", "target": target, "size": len(data),
        "name": path.rsplit("/", 1)[-1], "path": path, "sha": blob, "url": url,
        "git_url": git, "html_url": html,
        "download_url": f"{urls.web}/raw/{the_repo.full_name}/{ref}/{path}",
        "_links": {"self": url, "git": git, "html": html},
    }


def review(urls: Urls, the_review: Review) -> JSON:
    base = urls.repo(the_review.repo)
    html = f"{urls.html(the_review.repo)}/pull/{the_review.pull_number}" \
        f"#pullrequestreview-{the_review.id}"
    return {
        "id": the_review.id,
        "node_id": node_id("PullRequestReview", the_review.id),
        "user": user(urls, the_review.user),
        "body": the_review.body,
        "state": the_review.state,
        "html_url": html,
        "pull_request_url": f"{base}/pulls/{the_review.pull_number}",
        "_links": {"html": {"href": html},
                   "pull_request": {"href": f"{base}/pulls/{the_review.pull_number}"}},
        "submitted_at": iso(the_review.submitted_at),
        "commit_id": the_review.commit_id,
        "author_association": "COLLABORATOR",
    }


def collaborator_permission(urls: Urls, who: User, level: str) -> JSON:
    """GitHub folds maintain into write and triage into read; `role_name` keeps them."""
    folded = {"maintain": "write", "triage": "read"}.get(level, level)
    return {"permission": folded, "role_name": level,
            "user": {**user(urls, who), "permissions": {
                "admin": level == "admin", "maintain": level in ("admin", "maintain"),
                "push": folded in ("admin", "write"), "triage": level != "none" and level != "read",
                "pull": level != "none"},
                "role_name": level}}
