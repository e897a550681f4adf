"""Which pull request and commit an event is about, from the payload at GITHUB_EVENT_PATH.

Only the fields the gate needs are read, and every one is checked: a payload is input like
any other. The PR's details (head SHA, author, body) are fetched through the API later when
the event does not carry them (workflow_run, workflow_dispatch, merge_group).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.claim.commit import COMMIT_SHA_FORMAT, normalise_sha
from gate.claim.errors import InvalidInput
from gate.claim.github_facts import PullRequestRef

PULL_REQUEST_ACTIONS = frozenset(
    {"opened", "synchronize", "reopened", "ready_for_review", "edited"}
)
#: A review can accept an unverified claim (`/claim-gate accept`), and dismissing it withdraws
#: the acceptance: each re-decides the PR's head.
REVIEW_ACTIONS = frozenset({"submitted", "edited", "dismissed"})
_QUEUE_REF = re.compile(r"/pr-(?P<number>\d+)-[0-9a-f]{40}$")


@dataclass(frozen=True)
class Trigger:
    """What the gate must decide: a PR (known or to fetch) and, for a queue, its group."""

    event: str
    action: str | None
    repository: str
    pull: PullRequestRef | None = None
    pull_number: int | None = None
    head_sha: str | None = None
    merge_group_sha: str | None = None
    merge_group_base_ref: str | None = None
    ignore_reason: str | None = None
    #: Every PR the event names (a workflow_run can name several sharing one head).
    pull_numbers: tuple[int, ...] = ()
    #: The head before a `synchronize` (its `before`): where the claim's history starts.
    before: str | None = None
    #: `pull` was read through the API by this run (`scan`), not taken from a payload: it
    #: is already the PR as it is now, and is not read again.
    pull_read_now: bool = False


class UnsupportedEvent(InvalidInput):
    """The workflow runs the gate on an event it cannot decide anything for."""


def _get(payload: Mapping[str, Any], source: str, *path: str) -> Any:
    value: Any = payload
    for index, key in enumerate(path):
        if not isinstance(value, Mapping) or key not in value:
            where = "/" + "/".join(path[: index + 1])
            raise InvalidInput(source, None, f"the event payload has no {where}")
        value = value[key]
    return value


def _sha(value: Any, source: str, where: str) -> str:
    sha = normalise_sha(value)
    if sha is None:
        raise InvalidInput(source, None, f"{where} is not {COMMIT_SHA_FORMAT}: {value!r}")
    return sha


def _number(value: Any, source: str, where: str) -> int:
    """A PR number as GitHub writes it (a positive integer); anything else is invalid input."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidInput(source, None, f"{where} is not a pull request number: {value!r}")
    try:
        number = int(value)
    except ValueError:
        raise InvalidInput(source, None,
                           f"{where} is not a pull request number: {value!r}") from None
    if number < 1:
        raise InvalidInput(source, None, f"{where} is not a pull request number: {value!r}")
    return number


def pull_request_ref(pull: Mapping[str, Any], source: str) -> PullRequestRef:
    """A PR object as the REST API and pull_request events both shape it."""
    head_repo = _get(pull, source, "head", "repo")
    return PullRequestRef(
        number=_number(_get(pull, source, "number"), source, "/pull_request/number"),
        head_sha=_sha(_get(pull, source, "head", "sha"), source, "/pull_request/head/sha"),
        head_ref=str(_get(pull, source, "head", "ref")),
        # A deleted fork leaves head.repo null; it is then certainly not the base repository.
        head_repo=str(head_repo["full_name"]) if isinstance(head_repo, Mapping) else "(deleted)",
        base_ref=str(_get(pull, source, "base", "ref")),
        base_repo=str(_get(pull, source, "base", "repo", "full_name")),
        author=str(_get(pull, source, "user", "login")),
        body=str(pull.get("body") or ""),
        default_branch=_default_branch(pull),
        author_id=_account_id(pull.get("user")),
        author_type=str((pull.get("user") or {}).get("type") or ""),
        changed_files=_count(pull.get("changed_files")),
        base_sha=_optional_sha(pull.get("base")),
    )


def _optional_sha(base: Any) -> str | None:
    value = base.get("sha") if isinstance(base, Mapping) else None
    return value.lower() if isinstance(value, str) and len(value) == 40 else None


def _default_branch(pull: Mapping[str, Any]) -> str | None:
    """The base repository's default branch, as the API's repository object says."""
    base = pull.get("base")
    repo = base.get("repo") if isinstance(base, Mapping) else None
    value = repo.get("default_branch") if isinstance(repo, Mapping) else None
    return value if isinstance(value, str) and value else None



def _account_id(user: Any) -> int | None:
    value = user.get("id") if isinstance(user, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None




def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _queue_run(repository: str, action: str | None, group_sha: str, branch: str) -> Trigger:
    """A `workflow_run` of a `merge_group` workflow: the group is judged from a workflow the
    default branch holds (where the App key can live), not from the group commit's copy of it
    (which the PR can edit). GitHub names the run's branch
    `gh-readonly-queue/<base>/pr-<n>-<sha>`."""
    match = _QUEUE_REF.search(branch) if branch.startswith("gh-readonly-queue/") else None
    base = branch.removeprefix("gh-readonly-queue/").rsplit("/", 1)[0] if match else None
    return Trigger(
        "workflow_run", action, repository,
        pull_number=int(match["number"]) if match else None,
        merge_group_sha=group_sha,
        merge_group_base_ref=f"refs/heads/{base}" if base else None,
    )


def parse_event(name: str, payload: Any, source: str, dispatch_pr: int | None = None) -> Trigger:
    """Turn an event into a Trigger; UnsupportedEvent for events the gate cannot serve."""
    if not isinstance(payload, Mapping):
        raise InvalidInput(source, None, "the event payload is not a JSON object")
    repository = str(_get(payload, source, "repository", "full_name"))
    action = payload.get("action")
    action = str(action) if action is not None else None
    if name in ("pull_request", "pull_request_target", "pull_request_review"):
        actions = REVIEW_ACTIONS if name == "pull_request_review" else PULL_REQUEST_ACTIONS
        if action not in actions:
            return Trigger(name, action, repository,
                           ignore_reason=f"nothing to decide for {name}.{action}")
        pull = pull_request_ref(_get(payload, source, "pull_request"), source)
        return Trigger(name, action, repository, pull=pull, pull_number=pull.number,
                       head_sha=pull.head_sha, before=normalise_sha(payload.get("before"))
                       if action == "synchronize" else None)
    if name == "workflow_run":
        if action != "completed":
            return Trigger(name, action, repository,
                           ignore_reason=f"nothing to decide until the run completes ({action})")
        run = _get(payload, source, "workflow_run")
        head_sha = _sha(_get(run, source, "head_sha"), source, "/workflow_run/head_sha")
        if run.get("event") == "merge_group":
            return _queue_run(repository, action, head_sha, str(run.get("head_branch") or ""))
        pulls = run.get("pull_requests") or []
        if not isinstance(pulls, list):
            raise InvalidInput(source, None, "/workflow_run/pull_requests is not a list")
        numbers = tuple(dict.fromkeys(
            _number(_get(p, source, "number"), source, f"/workflow_run/pull_requests/{i}/number")
            for i, p in enumerate(pulls)))
        return Trigger(name, action, repository, pull_number=numbers[0] if numbers else None,
                       head_sha=head_sha, pull_numbers=numbers)
    if name == "workflow_dispatch":
        inputs = payload.get("inputs") or {}
        if not isinstance(inputs, Mapping):
            raise InvalidInput(source, None, "/inputs is not an object")
        raw: Any = dispatch_pr
        if raw is None:
            raw = inputs.get("pr") or inputs.get("pull")
        try:
            number = int(raw)
        except (TypeError, ValueError):
            raise InvalidInput(
                source, None, "workflow_dispatch needs the pull request number",
                "give the action the `pr` input or a workflow input named `pr`",
            ) from None
        return Trigger(name, action, repository, pull_number=number)
    if name == "merge_group":
        if action != "checks_requested":
            return Trigger(name, action, repository,
                           ignore_reason=f"nothing to decide for merge_group.{action}")
        group = _get(payload, source, "merge_group")
        head_ref = str(_get(group, source, "head_ref"))
        match = _QUEUE_REF.search(head_ref)
        return Trigger(
            name, action, repository,
            pull_number=int(match["number"]) if match else None,
            merge_group_sha=_sha(_get(group, source, "head_sha"), source, "/merge_group/head_sha"),
            merge_group_base_ref=str(_get(group, source, "base_ref")),
        )
    raise UnsupportedEvent(
        source, None, f"claim-gate does not run on {name!r} events",
        "run it on pull_request, pull_request_target, pull_request_review, workflow_run"
        " (completed), merge_group or workflow_dispatch with a PR number",
    )
