"""The probe room's entry: a policy and a claim in, evidence items (or records) out.

`verify --probe` adds these items to the operator's evidence before the engine decides;
`claim-gate probe` writes them as records for a later `verify --evidence`, for systems a CI
job can reach but the gate cannot. The GitHub Action (`gate/github/gate_run.py`) calls the
same function with the environment URLs from the deployment statuses.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from gate.claim.errors import InvalidInput
from gate.claim.facts import EvidenceItem
from gate.claim.loader import LoadedClaim
from gate.claim.model import Claim
from gate.claim.policy import Policy
from gate.claim.probe_settings import SECTION, ProbeSettings
from gate.evidence.interface import Collected
from gate.evidence.probe.context import ProbeContext
from gate.evidence.probe.observe import ProbeIO, ProbeRunner


def probe_settings(policy: Policy) -> ProbeSettings:
    settings = policy.probes
    if settings is None:
        raise InvalidInput(
            policy.source, None, f"the policy has no `{SECTION}` section, so there is nothing to"
            " probe", "add one (docs/probes.md) or run without --probe",
        )
    if settings.ca_bundle is not None and not Path(settings.ca_bundle).is_file():
        raise InvalidInput(
            policy.source, None, f"/{SECTION}/ca_bundle: {settings.ca_bundle} is not a file",
            "give the path of a PEM file with the CA certificates to trust",
        )
    if settings.ca_bundle is not None:
        import ssl  # only a policy with a CA bundle needs it; not at every start (issue 23)

        try:
            ssl.create_default_context(cafile=settings.ca_bundle)
        except (ssl.SSLError, OSError) as exc:
            raise InvalidInput(
                policy.source, None, f"/{SECTION}/ca_bundle: {settings.ca_bundle} holds no CA"
                f" certificate the gate can load ({type(exc).__name__})",
                "give the path of a PEM file with the CA certificates to trust",
            ) from None
    return settings


def probe_evidence(
    claim: Claim, policy: Policy, context: ProbeContext, io: ProbeIO
) -> list[EvidenceItem]:
    """Run every probe of the policy that applies to the claim; one item per probe."""
    runner = ProbeRunner(probe_settings(policy), io, replace(context, policy_source=policy.source))
    return runner.collect(claim, policy.tightened_by(claim.policy).requires)


@dataclass(frozen=True)
class Probes:
    """The policy's live probes, bound to this claim file (its sha256) and `context`."""

    context: ProbeContext
    io: ProbeIO

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        context = replace(self.context, claim_sha256=loaded.document.sha256)
        return Collected(items=tuple(probe_evidence(loaded.claim, policy, context, self.io)))
