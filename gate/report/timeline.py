"""The claim's story on one time axis: mutations, the head's push, evidence, the decision.

A reviewer asks "did this evidence come after the change?"; the picture answers it by
placing every event at its time. Each evidence item is marked with what the engine already
said of it (its `Assessment` and the judgements that ruled it out: `before_mutation`,
`stale`, `before_arrival`, not independent); nothing here judges evidence again, so the
picture cannot disagree with the verdict. The SVG and Mermaid renderers draw this model.
The run of the head's tests over the base's code (fail-to-pass) is a row of the CI lane, at
its run's start, naming the fail-to-pass tests, or why it does not count, as the engine said.

An agent can write thousands of mutations and evidence items; the picture keeps at most
`MAX_MUTATIONS` and `MAX_EVIDENCE` rows and says how many it left out. It keeps first what
a reviewer must see: unmet mutations, then the rest; evidence the gate or the operator
observed before the claim's own (so a claim padded with its own evidence cannot push the
observed runs out of the picture).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from gate.claim.facts import EvidenceItem, Origin
from gate.claim.github_facts import Arrival
from gate.claim.model import CheckType, Claim, VerdictState
from gate.claim.wording import duration, plural
from gate.engine.results import Assessment, Verdict

MAX_MUTATIONS = 20
MAX_EVIDENCE = 30
_NAMED_TESTS = 5


class Mark(StrEnum):
    """How an evidence item stands, in a reviewer's words (from the engine's results)."""

    COUNTS = "counts"
    CONTRADICTS = "contradicts the claim"
    BEFORE_MUTATION = "too early: before the mutation"
    BEFORE_PUSH = "too early: before the push arrived"
    STALE = "stale"
    SELF_ATTESTED = "self-attested"
    NOT_COUNTED = "not counted"


class Lane(StrEnum):
    """A horizontal band of the picture: who made the events in it."""

    MUTATIONS = "Mutations (times the agent claims)"
    PUSH = "Head push (GitHub's record)"
    CI = "CI runs and JUnit"
    PROBES = "Probes and deployments (the gate's)"
    RECORDS = "Operator records"
    CLAIM = "The claim's own evidence (agent-written)"
    DECISION = "Decision"


class Kind(StrEnum):
    MUTATION = "mutation"
    PUSH = "push"
    EVIDENCE = "evidence"
    CUTOFF = "cutoff"
    DECISION = "decision"


@dataclass(frozen=True)
class Event:
    """One row: `name` may hold the agent's text (renderers escape it); `detail` is the
    gate's words, quoting ids the agent chose."""

    lane: Lane
    kind: Kind
    at: datetime
    name: str
    detail: str = ""
    mark: Mark | None = None
    check: CheckType | None = None


@dataclass(frozen=True)
class Timeline:
    state: VerdictState
    decided_at: datetime
    events: tuple[Event, ...]
    left_out_mutations: int = 0
    left_out_evidence: int = 0

    @property
    def left_out(self) -> str:
        """What the picture does not draw, or "" when it draws everything."""
        parts = []
        if self.left_out_mutations:
            parts.append(plural(self.left_out_mutations, "mutation"))
        if self.left_out_evidence:
            parts.append(plural(self.left_out_evidence, "evidence item"))
        if not parts:
            return ""
        return (f"{' and '.join(parts)} not drawn (the picture shows at most {MAX_MUTATIONS}"
                f" mutations and {MAX_EVIDENCE} evidence items); the completed claim record"
                " lists them all")


def _lane(item: EvidenceItem) -> Lane:
    if item.origin is Origin.CLAIM:
        return Lane.CLAIM
    if item.evidence.check_type is CheckType.TEST_RUN:
        return Lane.CI
    return Lane.PROBES if item.origin is Origin.GATE else Lane.RECORDS


def _rulings(verdict: Verdict) -> tuple[dict[int, dict[str, list[str]]], set[int]]:
    """Per item: for each code a judgement ruled it out with, the subjects it was ruled out
    for; and the items some judgement counted as contradicting the claim."""
    ruled: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    contradicting: set[int] = set()
    for judgement in verdict.judgements:
        name = judgement.subject.partition(" ")[2] or judgement.subject
        for index, code in judgement.rejected:
            ruled[index][code].append(name)
        contradicting.update(judgement.contradicting)
    return ruled, contradicting


def _mark(assessment: Assessment, ruled: dict[str, list[str]],
          contradicting: bool) -> tuple[Mark, str]:
    """The engine's own words for one item: its problem, or the judgements' rulings."""
    problem = assessment.problem
    rulings = "; ".join(f"{code} for {', '.join(names)}" for code, names in ruled.items())
    if contradicting:
        return Mark.CONTRADICTS, ", ".join(assessment.contradicts_mutations)
    if assessment.counts:
        what = [*assessment.supports, *map(str, assessment.satisfies)]
        return Mark.COUNTS, "for " + ", ".join(what) + (f"; {rulings}" if rulings else "")
    if not assessment.independent:
        return Mark.SELF_ATTESTED, problem.code if problem else ""
    if problem is not None:
        marks = {"stale": Mark.STALE, "before_arrival": Mark.BEFORE_PUSH}
        found = marks.get(problem.code)
        return (found, "") if found else (Mark.NOT_COUNTED, problem.code)
    if "before_mutation" in ruled:
        return Mark.BEFORE_MUTATION, "for " + ", ".join(ruled["before_mutation"])
    return Mark.NOT_COUNTED, rulings or "covers nothing the verdict needed"


def _evidence_events(verdict: Verdict) -> tuple[list[Event], int]:
    ruled, contradicting = _rulings(verdict)
    indices = sorted(range(len(verdict.items)),
                     key=lambda i: (verdict.items[i].origin is Origin.CLAIM, i))
    events = []
    for index in indices[:MAX_EVIDENCE]:
        item, assessment = verdict.items[index], verdict.assessments[index]
        mark, detail = _mark(assessment, ruled[index], index in contradicting)
        events.append(Event(
            _lane(item), Kind.EVIDENCE, item.evidence.at,
            f"#{index} {item.evidence.check_type}: {item.source}", detail, mark,
            item.evidence.check_type))
    return events, max(0, len(indices) - MAX_EVIDENCE)


def _base_code_events(verdict: Verdict) -> list[Event]:
    """The run over the base's code, then a row per fail-to-pass test it found (at most
    `_NAMED_TESTS`); `problem` is the engine's reason it does not count."""
    found = verdict.base_code
    if found is None or found.at is None:
        return []
    name = "base-code run: " + (found.runs[0].source if found.runs else found.source)
    tests = found.fail_to_pass
    if found.problem is not None:
        return [Event(Lane.CI, Kind.EVIDENCE, found.at, name, f"not counted: {found.problem}",
                      Mark.NOT_COUNTED)]
    if not tests:
        return [Event(Lane.CI, Kind.EVIDENCE, found.at, name,
                      "no test fails on the base's code and passes on the head",
                      Mark.NOT_COUNTED)]
    more = len(tests) - _NAMED_TESTS
    rows = [Event(Lane.CI, Kind.EVIDENCE, found.at, name,
                  plural(len(tests), "fail-to-pass test")
                  + (f" ({more} more than drawn)" if more > 0 else ""), Mark.COUNTS)]
    return rows + [Event(Lane.CI, Kind.EVIDENCE, found.at, f"fail-to-pass: {test}",
                         "fails on the base's code, passes on the head", Mark.COUNTS)
                   for test in tests[:_NAMED_TESTS]]


def _mutation_events(claim: Claim, verdict: Verdict) -> tuple[list[Event], int]:
    unmet = {entry.mutation: entry.code for entry in verdict.unmet if entry.mutation}
    ordered = sorted(range(len(claim.mutations)),
                     key=lambda i: (claim.mutations[i].id not in unmet, i))
    kept = sorted(ordered[:MAX_MUTATIONS])
    events = []
    for index in kept:
        mutation = claim.mutations[index]
        target = f" {mutation.target}" if mutation.target else ""
        code = unmet.get(mutation.id)
        events.append(Event(Lane.MUTATIONS, Kind.MUTATION, mutation.at,
                            f"{mutation.id} ({mutation.kind}{target})",
                            f"unmet: {code}" if code else "covered"))
    return events, len(claim.mutations) - len(kept)


def _cutoffs(verdict: Verdict, events: list[Event]) -> list[Event]:
    """For each check type with a stale item: the policy's limit, as a moment on the axis."""
    stale = sorted({e.check for e in events if e.mark is Mark.STALE and e.check is not None})
    found = []
    for check in stale:
        limit = verdict.policy.max_age_for(check)
        try:
            moment = verdict.decided_at - timedelta(seconds=limit)
        except OverflowError:  # a limit reaching before year 1: nothing is that old
            continue
        found.append(Event(Lane.DECISION, Kind.CUTOFF, moment,
                           f"{check} older than this is stale", f"max age {duration(limit)}"))
    return found


def build_timeline(claim: Claim, verdict: Verdict, arrival: Arrival | None = None) -> Timeline:
    """`arrival`: when GitHub saw the head (None off GitHub, or when it is unknown)."""
    mutations, mutations_left = _mutation_events(claim, verdict)
    evidence, evidence_left = _evidence_events(verdict)
    events = [*mutations]
    if arrival is not None and arrival.at is not None:
        bound = ", an upper bound" if arrival.upper_bound else ""
        events.append(Event(Lane.PUSH, Kind.PUSH, arrival.at,
                            f"head {arrival.sha[:12]} arrived",
                            f"from {arrival.source}{bound}"))
    events += evidence
    events += _base_code_events(verdict)
    events += _cutoffs(verdict, evidence)
    events.append(Event(Lane.DECISION, Kind.DECISION, verdict.decided_at,
                        f"decided: {verdict.state}", verdict.decided_by))
    order = list(Lane)
    events.sort(key=lambda e: (order.index(e.lane), e.at))
    return Timeline(verdict.state, verdict.decided_at, tuple(events),
                    mutations_left, evidence_left)
