"""A verdict that can be checked later: what was decided, about what, from which inputs.

In the manner of a verification summary (SLSA VSA): the resource (repository, PR, head
SHA), the decision time, the verifier and its version, the policy and its digest, and the
sha256 of every input the verdict read (the claim file, each JUnit file of each artifact).
A new push is a new head SHA and a new check: nothing here carries over between heads.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from gate import GATE_ID, __version__
from gate.claim.github_facts import Arrival, PullRequestRef, TestSetComparison
from gate.claim.model import JSON
from gate.claim.timefmt import format_rfc3339
from gate.engine.results import Verdict


def verification_summary(
    *,
    repository: str,
    pull: PullRequestRef,
    verdict: Verdict,
    claim_label: str,
    claim_bytes: bytes,
    inputs: Sequence[tuple[str, str]],
    arrival: Arrival,
    comparisons: Sequence[TestSetComparison],
) -> dict[str, JSON]:
    digests: list[JSON] = [{"name": f"claim {claim_label}",
                            "sha256": hashlib.sha256(claim_bytes).hexdigest()}]
    digests += [{"name": name, "sha256": digest} for name, digest in inputs]
    digests += [{"name": name, "sha256": digest} for c in comparisons for name, digest in c.inputs]
    return {
        "resource": {
            "repository": repository,
            "pull_request": pull.number,
            "head_sha": pull.head_sha,
            "head_ref": pull.head_ref,
            "head_repository": pull.head_repo,
            "base_ref": pull.base_ref,
        },
        "decided_at": format_rfc3339(verdict.decided_at),
        "verifier": {"id": GATE_ID, "version": __version__},
        "policy": {"id": verdict.policy.id, "sha256": verdict.policy.digest,
                   "source": verdict.policy.source},
        "result": str(verdict.state),
        "inputs": digests,
        "head_arrival": arrival.as_json(),
        "removed_tests": [
            {
                "workflow_path": c.workflow_path,
                "baseline_run": c.baseline.id if c.baseline else None,
                "compared": c.comparable and c.baseline is not None and c.note is None,
                "removed": [t.describe() for t in c.removed],
                **({"note": c.note} if c.note else {}),
            }
            for c in comparisons
        ],
    }
