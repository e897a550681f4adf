"""The merge queue's face: open the group's check, collect its PRs' checks, judge, complete.

The judgement is the engine's (`gate/engine/merge_queue.py`); this only reads and posts.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from gate.claim.errors import CouldNotDecide
from gate.claim.github_facts import CheckRunInfo, PullRequestRef
from gate.claim.timefmt import format_rfc3339
from gate.engine.merge_queue import GroupDecision, judge_group
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.event import Trigger
from gate.report.check_run import Mode


def group_pulls(
    api: GitHubApi, trigger: Trigger, name: str
) -> list[tuple[PullRequestRef, list[CheckRunInfo]]]:
    """The group's PRs and the checks of the gate's name on each head; CouldNotDecide when
    the group names none."""
    numbers: list[int] = []
    if trigger.pull_number is not None:
        numbers.append(trigger.pull_number)
    if not numbers:
        raise CouldNotDecide(
            "the merge group's head_ref names no pull request (expected"
            " gh-readonly-queue/<base>/pr-<number>-<sha>)"
        )
    found = []
    for number in numbers:
        pull = api.pull(number)
        found.append((pull, api.check_runs(pull.head_sha, name, latest=False)))
    return found


def run_merge_group(
    api: GitHubApi, trigger: Trigger, name: str, mode: Mode, clock: Callable[[], datetime],
) -> GroupDecision:
    """Open the group's check (which tells whose App this run is), judge, then complete it."""
    assert trigger.merge_group_sha is not None
    opened = api.create_check_run({
        "name": name, "head_sha": trigger.merge_group_sha, "status": "in_progress",
        "started_at": format_rfc3339(clock()),
    })
    try:
        pulls = group_pulls(api, trigger, name)
        decision = judge_group(trigger.merge_group_sha, pulls, name, opened.app_id,
                               opened.app_slug or "this App", clock(),
                               trigger.merge_group_base_ref)
    except CouldNotDecide as exc:
        decision = GroupDecision(False, "merge group: could not decide",
                                 f"claim-gate could not decide: {exc}\n")
    conclusion = "success" if decision.passed else "failure"
    if mode is Mode.OBSERVE and not decision.passed:
        conclusion = "neutral"
    api.update_check_run(opened.id, {
        "status": "completed", "conclusion": conclusion,
        "completed_at": format_rfc3339(clock()),
        "output": {"title": decision.title, "summary": decision.summary},
    })
    return decision
