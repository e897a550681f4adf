"""The engine's result types: what reporters, records and faces read of a decision.

A verdict is a list of judgements, one per subject (each mutation, each required check type,
each rule over the collected facts); its state is the worst of them and its `unmet` is
exactly the judgements that are not verified, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from gate.claim.facts import EvidenceItem
from gate.claim.fail_to_pass import BaseCodeComparison
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import Policy

#: Verdict states from best to worst.
SEVERITY = {VerdictState.VERIFIED: 0, VerdictState.UNVERIFIED: 1, VerdictState.REFUTED: 2}


def worst(states: Iterable[VerdictState]) -> VerdictState:
    """The worst of some states (verified when there are none)."""
    return max(states, key=SEVERITY.__getitem__, default=VerdictState.VERIFIED)


@dataclass(frozen=True)
class Problem:
    code: str
    message: str


@dataclass(frozen=True)
class Unmet:
    """One unmet mutation, requirement or rule: machine-readable (`code`) and human (`message`)."""

    code: str
    message: str
    mutation: str | None = None
    requirement: CheckType | None = None
    evidence: tuple[int, ...] = ()
    #: The repository path it concerns (a changed file no mutation claims), for annotations.
    path: str | None = None
    #: refuted for a contradiction (or a rule the owner made refuting), else unverified.
    state: VerdictState = VerdictState.UNVERIFIED


@dataclass(frozen=True)
class Judgement:
    """The engine's answer for one subject: a mutation, a required check type or a rule."""

    subject: str
    state: VerdictState
    unmet: Unmet | None = None
    supporting: tuple[int, ...] = ()
    contradicting: tuple[int, ...] = ()
    #: (evidence index, problem code) of each candidate ruled out for this subject, e.g.
    #: `before_mutation`: what a reporter shows per item without judging it again.
    rejected: tuple[tuple[int, str], ...] = ()
    #: What a rule has to say even when it holds (the fail-to-pass tests it found), shown by
    #: every reporter; never a reason (that is `unmet`).
    note: str | None = None


@dataclass(frozen=True)
class Assessment:
    """What the engine made of one evidence item (index into `Verdict.items`)."""

    independent: bool
    covers: tuple[str, ...]
    problem: Problem | None
    contradicts: bool
    supports: tuple[str, ...]
    contradicts_mutations: tuple[str, ...]
    satisfies: tuple[CheckType, ...]

    @property
    def counts(self) -> bool:
        return bool(self.supports or self.satisfies)


@dataclass(frozen=True)
class Verdict:
    state: VerdictState
    unmet: tuple[Unmet, ...]
    reason: str
    decided_at: datetime
    decided_by: str
    policy: Policy
    items: tuple[EvidenceItem, ...]
    assessments: tuple[Assessment, ...]
    judgements: tuple[Judgement, ...] = ()
    #: Tests that failed over the base's code and passed on the head, from a run bound to
    #: this head (empty when none was given, counted or bound).
    fail_to_pass: tuple[str, ...] = ()
    #: The run over the base's code as the engine judged it (`problem`: why it does not
    #: count, None when it counts); None when none was given or the policy says `off`.
    base_code: BaseCodeComparison | None = None
    #: What a person should know that changes no state: a clock skew a binding ordered past,
    #: what a rule had to say beside the unmet items (the fail-to-pass tests it found).
    notes: tuple[str, ...] = ()
