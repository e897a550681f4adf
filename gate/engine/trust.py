"""Who counts as independent: decided by where evidence came from, not by its label.

The agent writes the claim, so evidence inside the claim file is self-attested unless its
verifier id matches a pattern the operator trusts. The gate's own ids are never trusted
inside a claim: anyone can type `claim-gate/junit@0.1.0`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase

from gate.claim.facts import EvidenceItem, Origin
from gate.claim.model import VerifierKind

GATE_ID_PREFIX = "claim-gate/"


@dataclass(frozen=True)
class TrustJudgement:
    independent: bool
    code: str | None = None
    message: str | None = None


def judge(item: EvidenceItem, trusted_patterns: Iterable[str]) -> TrustJudgement:
    """Is this item independent evidence? If not, say why in a reviewer's words."""
    verifier = item.evidence.verifier
    if verifier.kind is VerifierKind.SELF_ATTESTED:
        return TrustJudgement(
            False, "self_attested_only", f"{verifier.id!r} labels itself self-attested"
        )
    if item.origin is not Origin.CLAIM:
        return TrustJudgement(True)
    if verifier.id.startswith(GATE_ID_PREFIX):
        return TrustJudgement(
            False,
            "untrusted_verifier",
            f"it sits in the claim file under the gate's own id {verifier.id!r}, which the agent"
            " can type; the gate's own evidence never comes from the claim",
        )
    patterns = list(trusted_patterns)
    if any(fnmatchcase(verifier.id, pattern) for pattern in patterns):
        return TrustJudgement(True)
    trusted = ", ".join(repr(p) for p in patterns) if patterns else "none configured"
    return TrustJudgement(
        False,
        "untrusted_verifier",
        f"it is self-attested: it sits in the claim file the agent wrote, and its verifier"
        f" {verifier.id!r} matches no trusted verifier pattern ({trusted}; see"
        " --trusted-verifier)",
    )


def judge_once(trusted_patterns: Iterable[str]) -> Callable[[EvidenceItem], TrustJudgement]:
    """`judge`, worked out once per verifier id, kind and origin (all it reads of an item):
    a claim of many records from one verifier is judged once, not once per record."""
    patterns = tuple(trusted_patterns)
    known: dict[tuple[str, VerifierKind, Origin], TrustJudgement] = {}

    def judged(item: EvidenceItem) -> TrustJudgement:
        verifier = item.evidence.verifier
        key = (verifier.id, verifier.kind, item.origin)
        found = known.get(key)
        if found is None:
            found = known[key] = judge(item, patterns)
        return found

    return judged
