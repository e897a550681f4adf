"""Time the agent sets: a mutation's `at` is the agent's word, so it may order nothing alone.

Rule 2 counts evidence only when it was observed after the mutation it covers. A mutation
dated in the future (after the decision time) would make every observation "before the
change": a contradiction would be set aside and a refutation softened to `unverified`.
So a mutation dated after the decision time is invalid: it can never be verified (the reason
names it), and an independent, fresh contradiction of it refutes whatever its date says.
"""

from __future__ import annotations

from datetime import datetime

from gate.claim.model import Claim, Mutation
from gate.claim.timefmt import format_rfc3339
from gate.engine.results import Problem

CODE = "mutation_time_invalid"


def future_mutations(claim: Claim, now: datetime) -> frozenset[str]:
    """Ids of the mutations dated after the decision time."""
    return frozenset(m.id for m in claim.mutations if m.at > now)


def invalid_time_problem(mutation: Mutation, now: datetime) -> Problem:
    """Why no evidence can be ordered after this mutation: its date is in the future."""
    return Problem(
        CODE,
        f"{mutation.id} is dated {format_rfc3339(mutation.at)}, after the decision time"
        f" {format_rfc3339(now)}: a mutation time the agent set in the future is invalid, so no"
        " observation can be shown to come after it (a contradiction still refutes it)",
    )
