"""Probe evidence as records on disk, and back: `claim-gate probe --output` → `--evidence`.

A record of a probe that got no observation keeps its `expected` and has no
`observed_value`, so even a reader that ignores the `x-probe` error counts it as absent
(the engine's `no_observation`); this gate reads the error back as a disqualification so
the reason names it.
"""

from __future__ import annotations

from collections.abc import Iterable

from gate.claim.codec import dump_evidence
from gate.claim.facts import Disqualification, EvidenceItem
from gate.claim.model import JSON, Evidence

PROBE_VERIFIER_PREFIX = "claim-gate/probe@"
#: Where a probe's record keeps what the probe saw (attempts, an error, the claim probed).
#: Named here, not in `observe`: reading records back must not load the probes (issue 23).
PROBE_EXTENSION = "x-probe"
#: A probe that got no usable answer.
FAILED = "probe_failed"
OTHER_CLAIM = "probe_other_claim"


def probe_records(items: Iterable[EvidenceItem]) -> list[dict[str, JSON]]:
    """Evidence records (`#/$defs/evidence`) for the probes' items, failures included."""
    return [dump_evidence(item.evidence) for item in items]


def recorded_disqualification(
    evidence: Evidence, claim_sha256: str | None = None
) -> Disqualification | None:
    """Why a probe's own record does not count: it got no observation, or it was made for
    another claim document (its expectation came from that claim, not this one)."""
    if not evidence.verifier.id.startswith(PROBE_VERIFIER_PREFIX):
        return None
    info = evidence.extensions.get(PROBE_EXTENSION)
    if not isinstance(info, dict):
        return None
    made_for = info.get("claim_sha256")
    if claim_sha256 is not None and isinstance(made_for, str) and made_for != claim_sha256:
        return Disqualification(
            OTHER_CLAIM,
            f"this probe record was made for another claim document (sha256 {made_for[:12]}…,"
            f" this one is {claim_sha256[:12]}…); its expectation is that claim's, so probe"
            " again for this one",
        )
    if not isinstance(info.get("error"), str):
        return None
    code = info.get("code")
    return Disqualification(code if isinstance(code, str) else FAILED, info["error"])
