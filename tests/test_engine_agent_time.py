"""Class 7 of issue 10: time the agent sets. A mutation dated after the decision time is
invalid (unverified, named) and never softens a contradiction into `unverified`.

Each row is an attack with its honest control beside it; every row fails when the rule in
`gate/engine/agent_time.py` (and its use in `decide`) is taken out.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gate.claim.facts import Facts
from gate.claim.model import CheckType, Evidence, VerdictState
from gate.claim.policy import Policy, default_policy
from gate.engine.decide import decide
from tests.builders import at, claim, evidence, item, mutation

NOW = at(10)
AGREES = "94107"  # the zip the readback observed; the claim expected 94107
DIFFERS = "10001"
READBACK = Policy(id="readback", requires=(CheckType.STATE_READBACK,), source="test")


def readback(zip_code: str, covers: str = "m1") -> Evidence:
    return evidence(when=7, covers=(covers,), expected={"billing_zip": "94107"},
                    observed={"billing_zip": zip_code})


@dataclass(frozen=True)
class Row:
    name: str
    mutation_at: float
    observed: str
    policy: Policy
    state: VerdictState
    code: str | None  # the first unmet's code (None: verified)
    words: tuple[str, ...] = ()


ROWS = [
    # The attack of the issue: a future date turned a refutation into `unverified`.
    Row("future mutation, contradicted", 3600, DIFFERS, default_policy(),
        VerdictState.REFUTED, "contradicted",
        ("billing_zip: expected '94107'", "m1 is dated 2026-08-27T19:04:02Z, after the decision"
         " time", "a contradiction still refutes it")),
    Row("future mutation, contradicted, as a required check", 3600, DIFFERS, READBACK,
        VerdictState.REFUTED, "contradicted"),
    Row("control: mutation before the observation, contradicted", 0, DIFFERS, default_policy(),
        VerdictState.REFUTED, "contradicted"),
    # A future date also cannot be verified by anything.
    Row("future mutation, agreeing observation", 3600, AGREES, default_policy(),
        VerdictState.UNVERIFIED, "mutation_time_invalid",
        ("m1 is dated 2026-08-27T19:04:02Z, after the decision time 2026-08-27T18:04:12Z",
         "invalid")),
    Row("future mutation, agreeing observation, as a required check", 3600, AGREES, READBACK,
        VerdictState.UNVERIFIED, "mutation_time_invalid"),
    Row("one second ahead of the decision time is already the future", 11, AGREES,
        default_policy(), VerdictState.UNVERIFIED, "mutation_time_invalid"),
    Row("control: mutation before the observation, agreeing", 0, AGREES, default_policy(),
        VerdictState.VERIFIED, None),
    Row("control: an observation before a past mutation stays before_mutation", 8, AGREES,
        default_policy(), VerdictState.UNVERIFIED, "before_mutation"),
    Row("control: a contradiction before a past mutation does not refute", 8, DIFFERS,
        default_policy(), VerdictState.UNVERIFIED, "before_mutation"),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_a_mutation_time_the_agent_sets(row: Row) -> None:
    verdict = decide(claim([mutation(when=row.mutation_at)]),
                     Facts.of([item(readback(row.observed))]),
                     row.policy, NOW)
    assert verdict.state is row.state, verdict.reason
    assert (verdict.unmet[0].code if verdict.unmet else None) == row.code, verdict.reason
    for words in row.words:
        assert words in verdict.reason


def test_an_invalid_time_is_named_even_without_any_evidence() -> None:
    verdict = decide(claim([mutation(when=60)]), Facts.of([]), default_policy(), NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert [u.code for u in verdict.unmet] == ["mutation_time_invalid"]


def test_a_future_mutation_cannot_hide_another_mutations_contradiction() -> None:
    """Two mutations, one future-dated: the other's refutation still stands, and the future
    one is named among the unmet."""
    claimed = claim([mutation("m1", when=0), mutation("m2", when=3600)])
    facts = Facts.of([item(readback(DIFFERS, "m1")), item(readback(AGREES, "m2"))])
    verdict = decide(claimed, facts, default_policy(), NOW)
    assert verdict.state is VerdictState.REFUTED
    assert sorted(u.code for u in verdict.unmet) == ["contradicted", "mutation_time_invalid"]
