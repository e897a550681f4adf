"""How `decide` scales: claims of 1k, 10k and 100k mutations with 5 evidence each.

Run: python3 -m bench.decide_bench
Reports the CPU time of `decide` per size (best of 3 below 100k), the wall time beside it, and
the ratio per 10x; growth should be ~10x (linear). CPU time is the figure to quote: on a
shared machine the wall time grows with the load average (printed before and after).
"""

from __future__ import annotations

import os
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


def measure(size: int) -> tuple[float, float]:
    """The best CPU time and the best wall time of deciding a claim of `size` mutations."""
    claim, items = build(size)
    policy = Policy(id="bench", requires=(CheckType.STATE_READBACK,))
    now = T0 + timedelta(seconds=60)
    cpu = wall = float("inf")
    for _ in range(3 if size <= 10_000 else 1):
        started, clock = time.process_time(), time.perf_counter()
        verdict = decide(claim, Facts.of(items), policy, now)
        cpu = min(cpu, time.process_time() - started)
        wall = min(wall, time.perf_counter() - clock)
        assert verdict.state.value == "verified"
    return cpu, wall


def main() -> int:
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    previous = None
    for size in (1_000, 10_000, 100_000):
        cpu, wall = measure(size)
        ratio = f"  x{cpu / previous:.1f} per 10x" if previous else ""
        count = size * EVIDENCE_PER_MUTATION
        print(f"{size:>7} mutations, {count:>7} evidence: {cpu:.3f} s CPU"
              f" ({wall:.3f} s wall){ratio}")
        previous = cpu
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
