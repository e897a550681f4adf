"""How `decide` scales: claims of 1k, 10k and 100k mutations with 5 evidence each.

Run: python3 -m bench.decide_bench
Reports wall time per size (best of 3) and the ratio per 10x; growth should be ~10x (linear).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta

from gate.claim.facts import EvidenceItem, Facts, Origin
from gate.claim.model import CheckType, Claim, Evidence, Mutation, Task, Verifier, VerifierKind
from gate.claim.policy import Policy
from gate.engine.decide import decide

T0 = datetime(2026, 8, 27, 18, 0, tzinfo=UTC)
EVIDENCE_PER_MUTATION = 5


def build(size: int) -> tuple[Claim, list[EvidenceItem]]:
    mutations = tuple(
        Mutation(id=f"m{i}", kind="state_write", at=T0, target=f"accounts/{i}")
        for i in range(size)
    )
    claim = Claim("0.1", Task("bench", "bench"), "done", mutations)
    items = [
        EvidenceItem(
            Evidence(
                check_type=CheckType.STATE_READBACK,
                at=T0 + timedelta(seconds=1 + j),
                verifier=Verifier("records-reader/1", VerifierKind.INDEPENDENT),
                covers=(f"m{i}",),
                expected={"zip": "94107"},
                observed_value={"zip": "94107"},
                has_observed_value=True,
            ),
            Origin.OPERATOR,
            "bench",
        )
        for i in range(size)
        for j in range(EVIDENCE_PER_MUTATION)
    ]
    return claim, items


def measure(size: int) -> float:
    claim, items = build(size)
    policy = Policy(id="bench", requires=(CheckType.STATE_READBACK,))
    now = T0 + timedelta(seconds=60)
    best = float("inf")
    for _ in range(3 if size <= 10_000 else 1):
        started = time.perf_counter()
        verdict = decide(claim, Facts.of(items), policy, now)
        best = min(best, time.perf_counter() - started)
        assert verdict.state.value == "verified"
    return best


def main() -> int:
    previous = None
    for size in (1_000, 10_000, 100_000):
        seconds = measure(size)
        ratio = f"  x{seconds / previous:.1f} per 10x" if previous else ""
        count = size * EVIDENCE_PER_MUTATION
        print(f"{size:>7} mutations, {count:>7} evidence: {seconds:.3f} s{ratio}")
        previous = seconds
    return 0


if __name__ == "__main__":
    sys.exit(main())
