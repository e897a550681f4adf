"""When the head commit arrived on GitHub, by GitHub's clock, never by the commit's dates.

A commit's author and committer dates are written by whoever made it: an agent can backdate
a commit, or force-push back to an older SHA whose green runs already exist. What the agent
cannot write is the server's record of the push. So the arrival of the head is the newest
`push`, `force_push` or `branch_creation` entry of the head branch's repository activity
whose `after` is the head SHA (a fork PR's pushes are recorded on the fork, so the fork is
asked); the newest, because a force-push back to an old SHA makes it arrive again, and runs
from its earlier visit say nothing about this one.

When the activity cannot be read (404, 5xx, a private fork, a deleted head repository) or
holds no entry for the head, the arrival is *unknown* and recorded so; the engine keeps the
claim unverified (`arrival_unknown`). There is no fallback to the head's check suites: the
earliest suite of an old SHA pushed again is from its first visit, so that fallback let a
force-push back to an old green SHA reuse the old runs.

A CI run counts only if it started after the arrival (`before_arrival`).
"""

from __future__ import annotations

from gate.claim.errors import CouldNotDecide
from gate.claim.github_facts import Arrival, PullRequestRef
from gate.evidence.github.api import GitHubApi

ARRIVAL_TYPES = frozenset({"push", "force_push", "branch_creation"})
#: Activity entries read before giving up (newest first, so the match is normally early).
MAX_ACTIVITY_ENTRIES = 1000


def head_arrival(api: GitHubApi, pull: PullRequestRef) -> Arrival:
    """The head commit's arrival, or an unknown arrival saying why."""
    sha = pull.head_sha
    if pull.head_repo == "(deleted)":
        return Arrival(sha, None, "the head repository was deleted, so its activity cannot"
                       " be read")
    repository = pull.head_repo if pull.from_fork else pull.base_repo
    try:
        for count, entry in enumerate(api.activity(repository, pull.head_ref)):
            if count >= MAX_ACTIVITY_ENTRIES:
                return Arrival(sha, None, f"no push of it among the newest"
                               f" {MAX_ACTIVITY_ENTRIES} activity entries of {repository}")
            if entry.after == sha and entry.activity_type in ARRIVAL_TYPES:
                return Arrival(sha, entry.timestamp,
                               f"the {entry.activity_type} of {sha[:12]} to {entry.ref} in"
                               f" {repository}'s activity (by {entry.actor or 'unknown'})")
    except CouldNotDecide as exc:  # e.g. a private fork the token cannot read
        return Arrival(sha, None, f"{repository}'s activity could not be read: {exc}")
    return Arrival(sha, None, f"{repository}'s activity has no push of it to {pull.head_ref}")
