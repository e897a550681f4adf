"""Evidence counts only when bound to what was claimed by something the agent cannot choose.

A `deploy` mutation is bound to the environment it went to by its `target`. Without one, any
environment's deployment or health check would match it (the PR's own preview standing in for
production), so such a mutation is never covered by environment evidence (the deployments
collector) and is unverified here, with the reason saying to name it.
"""

from __future__ import annotations

from gate.claim.model import Claim, VerdictState
from gate.engine.results import Judgement, Unmet

#: Mutation kinds whose evidence is bound to the place named by `target`.
BOUND_BY_TARGET = ("deploy",)


def unbound_target_judgements(claim: Claim) -> list[Judgement]:
    """One unverified judgement per mutation that must name its target and does not."""
    return [
        Judgement(f"rule bound_target {m.id}", VerdictState.UNVERIFIED, Unmet(
            "unnamed_target",
            f"mutation {m.id} ({m.kind}) names no environment: a deploy's evidence is bound to"
            " the environment it went to, so no deployment or health check of any environment"
            f" can stand for it; name the environment in the claim (`\"target\": \"production\"`)",
            mutation=m.id))
        for m in claim.mutations if m.kind in BOUND_BY_TARGET and not (m.target or "").strip()
    ]
