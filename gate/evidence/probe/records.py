"""Probe evidence as records on disk, and back: `claim-gate probe --output` → `--evidence`.

A record of a probe that got no observation keeps its `expected` and has no
`observed_value`, so even a reader that ignores the `x-probe` error counts it as absent
(the engine's `no_observation`); this gate reads the error back as a disqualification so
the reason names it.
"""

from __future__ import annotations

from collections.abc import Iterable

from gate.claim.codec import dump_evidence
from gate.claim.model import JSON, Evidence
from gate.evidence.interface import Disqualification, EvidenceItem
from gate.evidence.probe.observe import FAILED, PROBE_EXTENSION

PROBE_VERIFIER_PREFIX = "claim-gate/probe@"


def probe_records(items: Iterable[EvidenceItem]) -> list[dict[str, JSON]]:
    """Evidence records (`#/$defs/evidence`) for the probes' items, failures included."""
    return [dump_evidence(item.evidence) for item in items]


def recorded_disqualification(evidence: Evidence) -> Disqualification | None:
    """The disqualification a probe wrote into its record, if it got no observation."""
    if not evidence.verifier.id.startswith(PROBE_VERIFIER_PREFIX):
        return None
    info = evidence.extensions.get(PROBE_EXTENSION)
    if not isinstance(info, dict) or not isinstance(info.get("error"), str):
        return None
    code = info.get("code")
    return Disqualification(code if isinstance(code, str) else FAILED, info["error"])
