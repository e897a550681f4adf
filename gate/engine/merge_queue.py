"""The merge queue: a group's commit passes only if its PR's own gate check passed.

A merge group's commit is new (the base with the queued PRs applied), so no claim was ever
decided on it. The group's PR is named by its `head_ref`
(`gh-readonly-queue/{base}/pr-{number}-{base_sha}`, as GitHub documents; each PR ahead in
the queue has its own group and its own check). The group passes only if that PR's latest
check of the gate's name on the head the queue holds was posted by the same App as this
run's token (learnt from the check run this run opens on the group), was decided for that PR
and for the base it targets now, which is the base the queue merges into (the check's
`external_id`), and concluded `success`. Anything else - no check, a check from another App
under the same name, a check on an older head, one decided for another PR or another base,
a neutral or failed one - fails, naming the PR.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from gate.claim.github_facts import CheckRunInfo, PullRequestRef
from gate.claim.timefmt import format_rfc3339
from gate.engine.bases import decided_for


@dataclass(frozen=True)
class GroupDecision:
    passed: bool
    title: str
    summary: str


def _judge_pull(
    pull: PullRequestRef, checks: Sequence[CheckRunInfo], name: str, app_id: int | None,
    app_slug: str, group_base: str | None = None,
) -> str | None:
    """None when the PR's gate check on its head passed; else why not, for a reviewer."""
    ours = [c for c in checks if c.name == name and c.app_id == app_id]
    others = [c for c in checks if c.name == name and c.app_id != app_id]
    ignored = ""
    if others:
        ignored = " (a check of the same name from " + ", ".join(
            sorted({c.app_slug or "another app" for c in others})
        ) + " is ignored: only the gate's own App counts)"
    if not ours:
        return f"PR #{pull.number} has no {name!r} check from {app_slug} on its head" \
            f" {pull.head_sha[:12]}{ignored}"
    mine = [c for c in ours if (decided_for(c.external_id) or (0, ""))[0] == pull.number]
    if not mine:
        return f"PR #{pull.number}'s {name!r} checks on its head {pull.head_sha[:12]} do not" \
            f" say they were decided for PR #{pull.number} and its base{ignored}"
    latest = max(mine, key=lambda c: c.id)
    base = (decided_for(latest.external_id) or (0, ""))[1]
    if base != pull.base_ref or (group_base is not None and base != group_base):
        into = f" and the queue merges into {group_base!r}" if group_base else ""
        return f"PR #{pull.number}'s {name!r} check was decided for the base {base!r}, but" \
            f" the PR targets {pull.base_ref!r}{into}: a check decided for another base" \
            " (its policy and workflows) says nothing about this one"
    if latest.status != "completed" or latest.conclusion != "success":
        state = latest.conclusion or latest.status
        return f"PR #{pull.number}'s {name!r} check on its head {pull.head_sha[:12]} is" \
            f" {state}, not verified{ignored}"
    return None


def judge_group(
    group_sha: str,
    pulls: Sequence[tuple[PullRequestRef, Sequence[CheckRunInfo]]],
    name: str,
    app_id: int | None,
    app_slug: str,
    when: datetime,
    group_base_ref: str | None = None,
) -> GroupDecision:
    """Every PR of the group must have a passing gate check from this App on its head,
    decided for it and for the base the queue merges into."""
    problems = []
    verified = []
    group_base = group_base_ref.removeprefix("refs/heads/") if group_base_ref else None
    for pull, checks in pulls:
        problem = _judge_pull(pull, checks, name, app_id, app_slug, group_base)
        if problem:
            problems.append(problem)
        else:
            verified.append(f"PR #{pull.number} at {pull.head_sha[:12]}")
    group = group_sha[:12]
    decided = format_rfc3339(when)
    if problems or not pulls:
        problems = problems or ["the merge group names no pull request"]
        return GroupDecision(
            False, f"merge group {group}: not every PR is verified",
            "The merge group cannot pass: " + "; ".join(problems) + f". Decided at {decided}.\n",
        )
    return GroupDecision(
        True, f"merge group {group}: every PR is verified",
        "Every PR in the merge group has a verified completion claim on the head the queue"
        f" holds ({', '.join(verified)}), posted by {app_slug}. Decided at {decided}.\n",
    )
