"""Deployment statuses for the head commit, as the gate reads them.

A `failure`/`error` status is the pipeline reporting that the deploy did not happen: a
contradiction for the claim's `deploy` mutation of that environment. A `success` status is
the pipeline's own account of the deploy; it is recorded, but by itself it does not count
(a live request against the deployed thing does, see the probes).

Anyone with write access (any workflow's token) can post a deployment status, so a status
counts only when its creator is one the owner's policy names (`deployment_creators`); with
none named, no deployment status counts, in either direction. A named creator's `success`
satisfies endpoint_health only when the policy opts in (`deployment_success_counts: true`).
"""

from __future__ import annotations

from collections.abc import Sequence

from gate import __version__
from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.github_facts import Deployment, DeploymentStatus
from gate.claim.model import CheckType, Claim, Evidence, Verifier, VerifierKind

VERIFIER_ID = f"claim-gate/github-deployments@{__version__}"
_FAILED = {"failure", "error"}


def deployment_evidence(
    claim: Claim, deployments: Sequence[Deployment], creators: Sequence[str] = (),
    success_counts: bool = False,
) -> list[EvidenceItem]:
    """`success_counts` (opt-in): a named creator's success satisfies endpoint_health."""
    items = []
    for deployment in deployments:
        status = deployment.latest_status
        if status is None or status.state not in _FAILED | {"success"}:
            continue
        covers = tuple(
            m.id for m in claim.mutations
            if m.kind == "deploy" and (m.target is None or m.target == deployment.environment)
        )
        evidence = Evidence(
            check_type=CheckType.ENDPOINT_HEALTH,
            at=status.created_at,
            verifier=Verifier(VERIFIER_ID, VerifierKind.INDEPENDENT),
            covers=covers,
            target=deployment.environment,
            expected={"deployment_state": "success"},
            observed_value={
                "deployment_state": status.state,
                "environment": deployment.environment,
                "status_creator": status.creator,
                "environment_url": status.environment_url,
            },
            has_observed_value=True,
            extensions={"x-deployment": {"id": deployment.id, "sha": deployment.sha,
                                         "creator": deployment.creator}},
        )
        label = f"deployment {deployment.id} to {deployment.environment!r}"
        disqualified = None
        if status.creator not in creators:
            named = ", ".join(creators) if creators else "none: deployment_creators is not set"
            disqualified = Disqualification(
                "untrusted_creator",
                f"{label} reports {status.state!r}, but that status was posted by"
                f" {status.creator or 'an unknown account'}, not by a creator the policy trusts"
                f" ({named}); anyone with write access can post a deployment status",
            )
        elif status.state == "success" and not success_counts:
            disqualified = Disqualification(
                "pipeline_account",
                f"{label} reports success, which is the pipeline's own account of the deploy;"
                " a live check against the deployed thing is needed",
            )
        items.append(EvidenceItem(evidence, Origin.GATE, label, disqualified))
    return items


def deployed_urls(deployments: Sequence[Deployment]) -> dict[str, str]:
    """Environment -> URL from the latest `success` status of each environment's deployment
    for the head commit: where the probes look (they still check the policy's allowed hosts)."""
    latest: dict[str, DeploymentStatus] = {}
    for deployment in deployments:
        status = deployment.latest_status
        if status is None or status.state != "success" or not status.environment_url:
            continue
        seen = latest.get(deployment.environment)
        if seen is None or seen.created_at < status.created_at:
            latest[deployment.environment] = status
    return {env: status.environment_url for env, status in latest.items()
            if status.environment_url}
