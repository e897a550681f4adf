"""Deployment statuses for the head commit, as the gate reads them.

A `failure`/`error` status is the pipeline reporting that the deploy did not happen: a
contradiction for the claim's `deploy` mutation of that environment. A `success` status is
the pipeline's own account of the deploy; it is recorded, but by itself it does not count
(a live request against the deployed thing does, see the probes).

Anyone with write access (any workflow's token) can post a deployment status, so a status
counts only when its creator is one the owner's policy names (`deployment_creators`); with
none named, no deployment status counts, in either direction. A deployment counts only when
a named creator made it, and only the statuses named creators posted on it; the whole
history is read, so another account's later status hides nothing (a named creator's
`failure` stays a contradiction until a named creator posts a newer `success`). A named
creator's `success` satisfies endpoint_health only when the policy opts in
(`deployment_success_counts: true`). The environment URL the probes use comes from the same
trusted statuses only: nobody else can point a probe at a host they control. A deploy
mutation is covered only by deployments to the environment it names: one naming none is
covered by none (the engine says to name it), never by whichever environment deployed.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate import __version__
from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.github_facts import Deployment, DeploymentStatus
from gate.claim.model import CheckType, Claim, Evidence, Verifier, VerifierKind
from gate.claim.subject import Binding

VERIFIER_ID = f"claim-gate/github-deployments@{__version__}"
_FAILED = {"failure", "error"}
_READ = _FAILED | {"success"}


def _trusted(deployment: Deployment, creators: Sequence[str]) -> list[DeploymentStatus]:
    """The statuses that count: posted by a named creator on a deployment a named creator
    made, in the order they were posted."""
    if deployment.creator not in creators:
        return []
    return [s for s in deployment.statuses if s.creator in creators and s.state in _READ]


def _latest(statuses: Sequence[DeploymentStatus]) -> DeploymentStatus | None:
    return max(statuses, key=lambda status: status.created_at, default=None)


def deployment_evidence(
    claim: Claim, deployments: Sequence[Deployment], creators: Sequence[str] = (),
    success_counts: bool = False,
) -> list[EvidenceItem]:
    """One item for the latest status a trusted creator posted on each deployment (the whole
    history is read, so a later status from anyone else hides nothing), and one, disqualified,
    for the latest status from anyone else. `success_counts` (opt-in): a named creator's
    success satisfies endpoint_health."""
    items = []
    for deployment in deployments:
        trusted = _latest(_trusted(deployment, creators))
        others = _latest([s for s in deployment.statuses if s.state in _READ
                          and (deployment.creator not in creators or s.creator not in creators)])
        for status in (trusted, others):
            if status is not None:
                items.append(_item(claim, deployment, status, status is trusted, creators,
                                   success_counts))
    return items


def _item(
    claim: Claim, deployment: Deployment, status: DeploymentStatus, trusted: bool,
    creators: Sequence[str], success_counts: bool,
) -> EvidenceItem:
    covers = tuple(
        m.id for m in claim.mutations
        if m.kind == "deploy" and m.target == deployment.environment  # never an unnamed one
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
    named = ", ".join(creators) if creators else "none: deployment_creators is not set"
    disqualified = None
    if not trusted and deployment.creator not in creators:
        disqualified = Disqualification(
            "untrusted_creator",
            f"{label} reports {status.state!r}, but the deployment was created by"
            f" {deployment.creator or 'an unknown account'} and that status posted by"
            f" {status.creator or 'an unknown account'}, not by a creator the policy trusts"
            f" ({named}); anyone with write access can create a deployment and post a status",
        )
    elif not trusted:
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
    # Bound to the deployment's commit and the status's creator and time, as GitHub says.
    bound = Binding(commit=deployment.sha, actor=status.creator, observed_at=status.created_at)
    return EvidenceItem(evidence, Origin.GATE, label, disqualified, binding=bound)


def deployed_urls(deployments: Sequence[Deployment], creators: Sequence[str]) -> dict[str, str]:
    """Environment -> URL from the latest `success` status a trusted creator posted on a
    deployment a trusted creator made for the head commit: where the probes look (they still
    check the policy's allowed hosts). Nobody else's status can point a probe anywhere."""
    latest: dict[str, DeploymentStatus] = {}
    for deployment in deployments:
        for status in _trusted(deployment, creators):
            if status.state != "success" or not status.environment_url:
                continue
            seen = latest.get(deployment.environment)
            if seen is None or seen.created_at < status.created_at:
                latest[deployment.environment] = status
    return {env: status.environment_url for env, status in latest.items()
            if status.environment_url}
