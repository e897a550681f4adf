"""The subject of one decision on GitHub, from what the gate itself read of the PR.

Built once per claim from the PR as the API returned it (never from an event payload the
agent's push shaped), the claim's bytes and the gate's own workflow; read again at the end so
a new head or another base branch meanwhile supersedes the decision (`gate/engine/binding.py`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from gate.claim.github_facts import PullRequestRef
from gate.claim.subject import Subject
from gate.evidence.github.api import GitHubApi


def pull_subject(repository: str, pull: PullRequestRef, claim: bytes | None,
                 gate_workflow: str | None) -> Subject:
    return Subject(
        repository=repository, pull_number=pull.number, head_sha=pull.head_sha,
        base_ref=pull.base_ref, base_sha=pull.base_sha,
        claim_sha256=hashlib.sha256(claim).hexdigest() if claim is not None else None,
        gate_workflow=gate_workflow,
    )


def rereader(api: GitHubApi, subject: Subject) -> Callable[[], Subject]:
    """Read the PR again (one call) and keep everything else of the subject."""
    number = subject.pull_number

    def reread() -> Subject:
        if number is None:
            return subject
        now = api.pull(number)
        return Subject(subject.repository, number, now.head_sha, now.base_ref, now.base_sha,
                       subject.claim_sha256, subject.gate_workflow)

    return reread
