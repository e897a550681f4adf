"""When the head commit arrived on GitHub, by GitHub's clock, never by the commit's dates.

A commit's author and committer dates are written by whoever made it: an agent can backdate
a commit, or force-push back to an older SHA whose green runs already exist. What the agent
cannot write is the server's record of the push. So the arrival of the head is:

1. the newest `push`, `force_push` or `branch_creation` entry of the head branch's
   repository activity whose `after` is the head SHA (a fork PR's pushes are recorded on
   the fork, so the fork is asked); the newest, because a force-push back to an old SHA
   makes it arrive again, and runs from its earlier visit say nothing about this one;
2. else the earliest `created_at` of the head SHA's check suites and workflow runs, which
   GitHub creates only after the commit reached it: an upper bound on the arrival (a run
   started before it cannot exist, so the bound can only make the gate stricter), said so
   in the record.

A CI run counts only if it started after the arrival (`before_arrival`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.claim.errors import CouldNotDecide
from gate.claim.github_facts import Arrival, PullRequestRef, WorkflowRun
from gate.evidence.github.api import GitHubApi

ARRIVAL_TYPES = frozenset({"push", "force_push", "branch_creation"})
#: Activity entries read before falling back (newest first, so the match is normally early).
MAX_ACTIVITY_ENTRIES = 1000


def head_arrival(api: GitHubApi, pull: PullRequestRef,
                 runs: Sequence[WorkflowRun] = ()) -> Arrival:
    """The head commit's arrival; `runs` are the head SHA's workflow runs already listed."""
    sha = pull.head_sha
    repository = pull.head_repo if pull.from_fork and pull.head_repo != "(deleted)" \
        else pull.base_repo
    why = "no activity entry"
    try:
        if pull.head_repo != "(deleted)":
            for count, entry in enumerate(api.activity(repository, pull.head_ref)):
                if count >= MAX_ACTIVITY_ENTRIES:
                    break
                if entry.after == sha and entry.activity_type in ARRIVAL_TYPES:
                    return Arrival(sha, entry.timestamp,
                                   f"the {entry.activity_type} of {sha[:12]} to {entry.ref} in"
                                   f" {repository}'s activity (by {entry.actor or 'unknown'})")
    except CouldNotDecide as exc:  # e.g. a private fork the token cannot read
        why = f"the activity could not be read: {exc}"
    created = [run.created_at for run in runs if run.head_sha == sha]
    created += [suite.created_at for suite in api.check_suites(sha)]
    if not created:
        return Arrival(sha, None, f"{why}, and no check suite or workflow run for it")
    return Arrival(sha, min(created),
                   f"the earliest check suite or workflow run created for it ({why})",
                   upper_bound=True)
