"""What one decision is about, and what each fact it uses is bound to.

A decision has a subject: the repository, the PR, its head SHA, the PR's base ref and base SHA,
the claim's sha256 and the gate's own workflow. A fact counts only when what it is bound to
(commit, PR, base, ref, workflow, attempt, actor, time) matches that subject; "looks like a run
on main" is not "a run of the base commit pushed to refs/heads/main". Collectors record a
`Binding` as their source observed it; the engine (`gate/engine/binding.py`) compares it with the
`Subject` the face built once. Nothing here reads anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Subject:
    """The one thing being decided. None: this face cannot know it (a bare checkout has no PR);
    a fact bound to a field the subject leaves open is judged on the fields it does have."""

    repository: str | None = None  # owner/name
    pull_number: int | None = None
    head_sha: str | None = None
    base_ref: str | None = None  # the PR's base branch name (never a tag)
    base_sha: str | None = None  # the base commit the change is measured against
    claim_sha256: str | None = None  # the digest of the claim being decided
    #: The gate's own workflow file (from GITHUB_WORKFLOW_REF): its runs are never CI evidence.
    gate_workflow: str | None = None


@dataclass(frozen=True)
class Binding:
    """What a fact is bound to, as the gate observed it (never as the agent said it).
    None means the source does not say; the engine decides whether that is acceptable."""

    commit: str | None = None
    pull_number: int | None = None
    base_ref: str | None = None
    #: The full ref a run came from (`refs/heads/main`); a tag or another branch is not it.
    ref: str | None = None
    event: str | None = None  # push, pull_request, workflow_dispatch, ...
    workflow_path: str | None = None
    run_attempt: int | None = None
    actor: str | None = None
    #: When the gate's source recorded it (server time, never a clock the agent controls).
    observed_at: datetime | None = None
    claim_sha256: str | None = None
    #: The run's working tree was clean at `commit` (True only when its source says so).
    tree_clean: bool | None = None
