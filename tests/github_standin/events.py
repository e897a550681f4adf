"""Event payloads for a scenario: a real example payload with the scenario's values written in.

Why: the Action reads `GITHUB_EVENT_PATH`; tests start from GitHub's own example payloads
(tests/data/webhooks/) so unexpected real-world fields stay, and overwrite what identifies the
scenario (repository, PR, SHAs, run) so the payload agrees with the stand-in's state.
"""

from __future__ import annotations

from typing import Any

from tests.github_standin import render
from tests.github_standin.hub import Hub, MergeGroup
from tests.github_standin.model import (
    Activity,
    Deployment,
    DeploymentStatus,
    Pull,
    Repo,
    Review,
    User,
    WorkflowRun,
    iso,
)
from tests.github_standin.webhooks import WEBHOOKS, load_webhook

JSON = Any


def merged(base: JSON, ours: JSON) -> JSON:
    """`ours` written over `base`, recursively for objects; lists and scalars are replaced."""
    if isinstance(base, dict) and isinstance(ours, dict):
        result = dict(base)
        for key, value in ours.items():
            result[key] = merged(base.get(key), value) if key in base else value
        return result
    return ours


def _example(event: str, action: str, example: str | None) -> JSON:
    name = example or f"{event}.{action}.1"
    if not (WEBHOOKS / f"{name}.json").is_file():
        name = f"{event}.{'completed' if event == 'workflow_run' else 'opened'}.1"
    return load_webhook(name)


def _common(hub: Hub, payload: JSON, repo: Repo, sender: User) -> JSON:
    payload["repository"] = merged(payload.get("repository", {}),
                                   render.repo(hub.urls, repo, full=True))
    payload["sender"] = merged(payload.get("sender", {}), render.user(hub.urls, sender))
    return payload


def pull_request_event(
    hub: Hub, pull: Pull, *, action: str = "opened", example: str | None = None,
    before: str | None = None,
) -> JSON:
    """`pull_request` (or, same shape, `pull_request_target`) for `pull`; `synchronize`
    carries `before` (default: the head's first parent) and `after` (the head)."""
    payload = _example("pull_request", action, example)
    payload["action"] = action
    payload["number"] = pull.number
    payload["pull_request"] = merged(payload["pull_request"], render.pull(
        hub.urls, pull, full=True, commit_count=len(hub.commits_of_pull(pull))))
    if action == "synchronize":
        head = pull.head_repo.commits[pull.head_sha]
        payload["before"] = before or (head.parents[0] if head.parents else "0" * 40)
        payload["after"] = pull.head_sha
    return _common(hub, payload, pull.repo, pull.user)


def pull_request_review_event(hub: Hub, pull: Pull, review: Review, *,
                              action: str = "submitted") -> JSON:
    """`pull_request_review` for `review` of `pull`: the PR object as such a payload carries
    it (no `changed_files`: a review payload's PR is the short form)."""
    payload = load_webhook("pull_request_review.submitted.1")
    payload["action"] = action
    payload["review"] = merged(payload["review"], render.review(hub.urls, review))
    short = render.pull(hub.urls, pull, full=False)
    payload["pull_request"] = merged(payload["pull_request"], short)
    payload["pull_request"].pop("changed_files", None)
    return _common(hub, payload, pull.repo, review.user)


def workflow_run_event(
    hub: Hub, run: WorkflowRun, *, action: str = "completed", example: str | None = None
) -> JSON:
    """`workflow_run` for `run` (as the `workflow_run`-triggered workflow sees it)."""
    payload = _example("workflow_run", action, example)
    payload["action"] = action
    payload["workflow_run"] = merged(payload["workflow_run"], render.workflow_run(hub.urls, run))
    payload["workflow"] = merged(payload.get("workflow", {}), {
        "id": run.workflow_id, "name": run.name, "path": run.path,
        "url": f"{hub.urls.repo(run.repo)}/actions/workflows/{run.workflow_id}",
    })
    return _common(hub, payload, run.repo, run.actor)


def merge_group_event(hub: Hub, group: MergeGroup, *, example: str | None = None) -> JSON:
    payload = load_webhook(example or "merge_group.checks_requested.1")
    head = group.repo.commits[group.head_sha]
    payload["merge_group"] = merged(payload["merge_group"], {
        "head_sha": group.head_sha,
        "head_ref": f"refs/heads/{group.head_ref}",
        "base_sha": group.base_sha,
        "base_ref": f"refs/heads/{group.base_ref}",
        "head_commit": render.simple_commit(head),
    })
    return _common(hub, payload, group.repo, group.repo.owner)


def deployment_status_event(
    hub: Hub, deployment: Deployment, status: DeploymentStatus, *, example: str | None = None
) -> JSON:
    payload = load_webhook(example or "deployment_status.created.1")
    payload["deployment"] = merged(payload["deployment"],
                                   render.deployment(hub.urls, deployment))
    payload["deployment_status"] = merged(
        payload["deployment_status"], render.deployment_status(hub.urls, deployment, status))
    return _common(hub, payload, deployment.repo, status.creator)


def push_event(hub: Hub, repo: Repo, activity: Activity, *, example: str | None = None) -> JSON:
    """`push` for an activity entry (from `add_commit` or `push`). `head_commit.timestamp` is
    the committer's date, which the pusher controls - not the server's `activity.timestamp`."""
    payload = load_webhook(example or "push.none.1")
    head = repo.commits[activity.after]
    payload.update(
        ref=activity.ref, before=activity.before, after=activity.after,
        created=activity.activity_type == "branch_creation",
        deleted=False, forced=activity.activity_type == "force_push",
        compare=f"{hub.urls.html(repo)}/compare/{activity.before[:12]}...{activity.after[:12]}",
    )
    commit = {**render.simple_commit(head), "url": f"{hub.urls.html(repo)}/commit/{head.sha}",
              "distinct": True, "added": [], "removed": [], "modified": []}
    payload["head_commit"] = merged(payload.get("head_commit") or {}, commit)
    payload["commits"] = [payload["head_commit"]]
    payload["pusher"] = {"name": activity.actor.login, "email": None}
    payload = _common(hub, payload, repo, activity.actor)
    payload["repository"]["pushed_at"] = iso(activity.timestamp)
    return payload
