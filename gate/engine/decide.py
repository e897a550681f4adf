"""The verdict engine: claim + evidence + policy + time in, verdict out. No I/O.

It applies the six rules of completion-claim v0.1:
1. self-attested evidence never satisfies a requirement (it is kept in the record);
2. evidence counts for a mutation only if it was observed strictly after that mutation;
3. every mutation must be covered by at least one counting piece of independent evidence;
4. absence is unverified, never verified;
5. evidence older than the policy's max age at decision time counts as absent;
6. refuted needs a contradicting observation (independent, fresh, after the mutation).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from functools import partial
from itertools import repeat
from typing import Any, NamedTuple, TypeVar

from gate import GATE_ID
from gate.claim.facts import EvidenceItem, Facts, Origin
from gate.claim.model import CheckType, Claim, Evidence, Mutation, VerdictState
from gate.claim.policy import Policy
from gate.claim.timefmt import format_rfc3339
from gate.engine.agent_time import future_mutations, invalid_time_problem
from gate.engine.binding import bind_to_subject, superseded
from gate.engine.chain_parts import way_out
from gate.engine.change_reach import judge_reach, reading_judgements
from gate.engine.commit_order import ordered_after, skew_notes
from gate.engine.fail_to_pass import (
    counted_fail_to_pass,
    fail_to_pass_judgements,
    judge_base_code_runs,
    judged_base_code,
)
from gate.engine.handed_on import channel_judgements, judge_channel
from gate.engine.provenance import judge_provenance
from gate.engine.readings import Reading, describe_item, item_indexes, read_items
from gate.engine.removed_tests import claim_judgements, rule_judgements
from gate.engine.results import Assessment, Judgement, Problem, Unmet, Verdict, worst
from gate.engine.run_binding import bind_records_to_junit
from gate.engine.trust import judge_once

#: When no evidence counts for a mutation, the reported code is the one closest to counting.
_CLOSENESS = (
    "mutation_time_invalid",
    "before_mutation",
    "stale",
    "from_future",
    "no_observation",
    "untrusted_verifier",
    "self_attested_only",
)
_MAX_LISTED = 3
_Made = TypeVar("_Made", Assessment, Judgement)


def _made(kind: type[_Made], **fields: Any) -> _Made:
    """`kind(**fields)` for a frozen result made once per item or mutation: every field given,
    in field order, into the instance's dict, without the frozen __init__'s
    object.__setattr__ per field (as gate/claim/codec.py makes the model; issue 23).
    tests/test_decide_fast_paths.py holds it to the class's own __init__."""
    made = _new(kind)
    made.__dict__.update(fields)
    return made


_new = object.__new__


def decide(claim: Claim, facts: Facts, policy: Policy, now: datetime) -> Verdict:
    """Decide a claim. `facts` is what the gate and operator observed; the claim's own
    evidence is added here as origin `claim`, so it can never skip the trust judgement."""
    if now.tzinfo is None:
        raise ValueError("decide() needs an aware `now`")
    policy = policy.tightened_by(claim.policy)
    items = _items(claim, facts, policy)
    facts = judge_base_code_runs(facts, partial(_observed, facts=facts, policy=policy))
    base_code = judged_base_code(facts, policy)  # once: the rule, the report, the count
    known = {mutation.id: mutation for mutation in claim.mutations}
    code_change = tuple(m.id for m in claim.mutations if m.kind in policy.code_change_kinds)
    trust = judge_once(policy.trusted_verifiers)
    readings = read_items(items, policy, now, known, code_change, trust, facts.pull)
    future = {m: invalid_time_problem(known[m], now) for m in future_mutations(claim, now)}
    by_mutation, by_check = item_indexes(items, readings)

    def after(i: int, mutation: Mutation) -> bool:  # by time, or by the run's commit
        return ordered_after(items[i], mutation, code_change, facts.subject)

    clean = [reading.problem is None and not reading.contradiction for reading in readings]
    by_mutations = _judge_mutations(claim.mutations, by_mutation, items, readings, clean,
                                    future, after)
    supported = {mutation.id: len(judgement.supporting) == len(by_mutation.get(mutation.id, ()))
                 for mutation, judgement in zip(claim.mutations, by_mutations, strict=True)}
    judgements = [
        *by_mutations,
        *(_met(check, by_check[check])
          if _all_support(by_check.get(check, ()), readings, clean, supported)
          else _judge_requirement(check, by_check.get(check, []), items, readings, known,
                                  future, after)
          for check in policy.requires),
        *rule_judgements(facts, policy),
        *claim_judgements(claim, facts, policy),
        *fail_to_pass_judgements(claim, base_code, policy),
        *superseded(facts),
        *reading_judgements(facts.change, items),
        *channel_judgements(items),
    ]
    if not any(j.supporting for j in judgements) and all(j.unmet is None for j in judgements):
        judgements.append(_NOTHING_OBSERVED)
    skew = skew_notes(items, [r.covers for r in readings], known, code_change, facts.subject)
    verdict = _verdict(claim, policy, now, items, readings, tuple(judgements))
    return replace(verdict, fail_to_pass=counted_fail_to_pass(base_code),
                   base_code=base_code,
                   notes=(*skew, *(j.note for j in judgements if j.note)))


def _items(claim: Claim, facts: Facts, policy: Policy) -> tuple[EvidenceItem, ...]:
    """The claim's own evidence first, then the observed items, CI ones judged for provenance
    and for the change's reach into the run that produced them, each held against the
    decision's subject (`binding`), and each record held to the job that handed it on
    (`judge_channel`: that refusal replaces any other)."""
    own = _claim_items(claim.evidence)
    observed = tuple(judge_channel(_observed(item, facts, policy)) for item in facts.items)
    return own + tuple(bind_records_to_junit(observed))


def _claim_items(evidence: Sequence[Evidence]) -> tuple[EvidenceItem, ...]:
    """`EvidenceItem(e, Origin.CLAIM, "claim")` of each: the first one's fields (in field
    order) copied into each instance's dict, its evidence put in its place; as `_made` makes
    an instance, without a call and a keyword dict per item (issue 23)."""
    if not evidence:
        return ()
    fields = vars(EvidenceItem(evidence[0], Origin.CLAIM, "claim"))
    made: list[EvidenceItem] = []
    for one in evidence:
        item = _new(EvidenceItem)
        own = item.__dict__
        own.update(fields)
        own["evidence"] = one
        made.append(item)
    return tuple(made)


def _observed(item: EvidenceItem, facts: Facts, policy: Policy) -> EvidenceItem:
    """One observed item judged for provenance, the change's reach and the subject."""
    pull = facts.pull
    judged = judge_provenance(item, pull, policy.trust) \
        if pull is not None and item.producer is not None else item
    return bind_to_subject(judge_reach(judged, facts.change, policy.trust), facts)


def _judge_mutation(
    mutation: Mutation, candidates: Sequence[int], items: Sequence[EvidenceItem],
    readings: Sequence[Reading], invalid_time: Problem | None,
    after: Callable[[int, Mutation], bool],
) -> Judgement:
    """`candidates`: the items that cover this mutation, in the order they arrived;
    `invalid_time`: the mutation is dated after the decision time (gate/engine/agent_time);
    `after`: whether an item counts as observed after a mutation (gate/engine/commit_order)."""
    if candidates and invalid_time is None and all(
            readings[i].problem is None and not readings[i].contradiction and after(i, mutation)
            for i in candidates):  # each supports it: what _weigh finds, without its steps
        return _made(Judgement, subject=f"mutation {mutation.id}", state=VerdictState.VERIFIED,
                     unmet=None, supporting=tuple(candidates), contradicting=(), rejected=(),
                     note=None)
    found = _weigh(
        candidates, readings,
        lambda i: after(i, mutation),
        lambda i: _before_message(i, items[i].evidence, mutation),
        lambda i: invalid_time,
    )
    unmet = None
    if invalid_time is not None and not found.contradicting:
        unmet = Unmet(invalid_time.code, f"{_mutation_label(mutation)}: {invalid_time.message}",
                      mutation=mutation.id, evidence=tuple(i for i, _ in found.rejected))
    elif found.contradicting or not found.supporting:
        unmet = _mutation_unmet(mutation, found, items, readings)
    if invalid_time is not None and unmet is not None and found.contradicting:
        unmet = replace(unmet, message=f"{unmet.message}; {invalid_time.message}")
    return _judgement(f"mutation {mutation.id}", unmet, found)


def _judge_mutations(
    mutations: Sequence[Mutation], by_mutation: Mapping[str, Sequence[int]],
    items: Sequence[EvidenceItem], readings: Sequence[Reading], clean: Sequence[bool],
    future: Mapping[str, Problem], after: Callable[[int, Mutation], bool],
) -> list[Judgement]:
    """`_judge_mutation` of each mutation; one that every candidate supports by time (each
    `clean`: no problem, no contradiction; each observed after it) is judged here, as that
    fast path judges it, without a call per mutation and per candidate (issue 23). Ordering
    by the run's commit and the weighing stay `_judge_mutation`'s."""
    judged: list[Judgement] = []
    ats = [item.evidence.at for item in items]
    verified = vars(Judgement("", VerdictState.VERIFIED))  # every field, in field order
    for mutation in mutations:
        candidates = by_mutation.get(mutation.id, ())
        at = mutation.at
        if len(candidates) == 1:  # most: one item covers it (no generator for one)
            only = candidates[0]
            supports = clean[only] and ats[only] > at
        else:
            supports = bool(candidates) and all(clean[i] and ats[i] > at for i in candidates)
        if supports and mutation.id not in future:
            judgement = _new(Judgement)
            fields = judgement.__dict__
            fields.update(verified)
            fields["subject"] = f"mutation {mutation.id}"
            fields["supporting"] = tuple(candidates)
        else:
            judgement = _judge_mutation(mutation, candidates, items, readings,
                                        future.get(mutation.id), after)
        judged.append(judgement)
    return judged


def _all_support(candidates: Sequence[int], readings: Sequence[Reading], clean: Sequence[bool],
                 supported: Mapping[str, bool]) -> bool:
    """Whether `_judge_requirement` finds every candidate supporting, without weighing each:
    each is `clean` and covers only mutations that each of their candidates supports (so it
    was observed after each, none of them dated in the future: what the weighing asks)."""
    return bool(candidates) and all(
        clean[i] and all(map(supported.get, readings[i].covers, repeat(False)))
        for i in candidates)


def _met(check: CheckType, candidates: Sequence[int]) -> Judgement:
    """The requirement's judgement when `_all_support`: met by every candidate."""
    return Judgement(f"requirement {check}", VerdictState.VERIFIED, None, tuple(candidates))


def _judge_requirement(
    check: CheckType, candidates: Sequence[int], items: Sequence[EvidenceItem],
    readings: Sequence[Reading], known: Mapping[str, Mutation], future: Mapping[str, Problem],
    after: Callable[[int, Mutation], bool],
) -> Judgement:
    """`candidates`: the items of this check type, in the order they arrived."""
    found = _weigh(
        candidates, readings,
        lambda i: all(after(i, known[c]) for c in readings[i].covers),
        lambda i: _before_all_message(i, items[i].evidence, readings[i].covers, known),
        lambda i: next((future[c] for c in readings[i].covers if c in future), None),
    )
    unmet = None
    if found.contradicting or not found.supporting:
        unmet = _requirement_unmet(check, found, items, readings)
    return _judgement(f"requirement {check}", unmet, found)


def _judgement(subject: str, unmet: Unmet | None, found: _Weighing) -> Judgement:
    state = VerdictState.VERIFIED if unmet is None else unmet.state
    return Judgement(subject, state, unmet, found.supporting, found.contradicting,
                     tuple((index, problem.code) for index, problem in found.rejected))


_NOTHING_OBSERVED = Judgement("claim", VerdictState.UNVERIFIED, Unmet(
    "no_evidence",
    "the claim names no mutation and no check type is required, so nothing was"
    " observed: absence is unverified, never verified",
))


def _verdict(
    claim: Claim, policy: Policy, now: datetime, items: tuple[EvidenceItem, ...],
    readings: Sequence[Reading], judgements: tuple[Judgement, ...],
) -> Verdict:
    """Assemble the verdict from the judgements alone: state, unmet, reason and assessments
    are all read off them, so they cannot say two different things."""
    supports: dict[int, list[str]] = defaultdict(list)
    satisfies: dict[int, list[CheckType]] = defaultdict(list)
    contradicts: dict[int, list[str]] = defaultdict(list)
    for judgement in judgements:
        kind, _, name = judgement.subject.partition(" ")
        if kind == "mutation":
            for index in judgement.supporting:
                supports[index].append(name)
        elif kind == "requirement" and judgement.supporting:
            check = CheckType(name)  # one per requirement, not one per item it holds
            for index in judgement.supporting:
                satisfies[index].append(check)
        if kind == "mutation":
            for index in judgement.contradicting:
                contradicts[index].append(name)
    unmet = tuple(j.unmet for j in judgements if j.unmet is not None)
    state = worst(j.state for j in judgements)
    assessments: list[Assessment] = []
    for i, (independent, problem, covers, contradiction) in enumerate(readings):
        assessment = _new(Assessment)  # as _made makes it, a field at a time (codec.py)
        fields = assessment.__dict__
        fields["independent"] = independent
        fields["covers"] = covers
        fields["problem"] = problem
        fields["contradicts"] = bool(contradiction)
        fields["supports"] = tuple(supports.get(i, ()))
        fields["contradicts_mutations"] = tuple(contradicts.get(i, ()))
        fields["satisfies"] = tuple(satisfies.get(i, ()))
        assessments.append(assessment)
    return Verdict(
        state=state, unmet=unmet, reason=_reason(state, unmet, claim), decided_at=now,
        decided_by=GATE_ID, policy=policy, items=items, assessments=tuple(assessments),
        judgements=judgements,
    )


class _Weighing(NamedTuple):  # one per mutation and requirement weighed: see Reading
    supporting: tuple[int, ...]
    contradicting: tuple[int, ...]
    rejected: tuple[tuple[int, Problem], ...]


def _weigh(
    candidates: Sequence[int],
    readings: Sequence[Reading],
    after: Callable[[int], bool],
    before_message: Callable[[int], str],
    invalid_time: Callable[[int], Problem | None],
) -> _Weighing:
    """`invalid_time`: a covered mutation's date cannot order anything; then a contradiction
    still counts (a future date never softens a refutation) and nothing else does."""
    supporting: list[int] = []
    contradicting: list[int] = []
    rejected: list[tuple[int, Problem]] = []
    for index in candidates:
        problem = readings[index].problem
        unordered = invalid_time(index) if problem is None else None
        if unordered is not None and not readings[index].contradiction:
            problem = unordered
        elif problem is None and unordered is None and not after(index):
            problem = Problem("before_mutation", before_message(index))
        if problem is not None:
            rejected.append((index, problem))
        elif readings[index].contradiction:
            contradicting.append(index)
        else:
            supporting.append(index)
    return _Weighing(tuple(supporting), tuple(contradicting), tuple(rejected))


def _before_message(index: int, evidence: Evidence, mutation: Mutation) -> str:
    return (
        f"{describe_item(index, evidence)} was observed at {format_rfc3339(evidence.at)},"
        f" not after {mutation.id} at {format_rfc3339(mutation.at)}; it says nothing about"
        " that change"
    )


def _before_all_message(
    index: int, evidence: Evidence, covered: Sequence[str], known: Mapping[str, Mutation]
) -> str:
    late = [c for c in covered if evidence.at <= known[c].at]
    return (
        f"{describe_item(index, evidence)} was observed at {format_rfc3339(evidence.at)},"
        f" not after the mutations it covers ({', '.join(late)})"
    )


def _primary(rejected: Sequence[tuple[int, Problem]]) -> Problem | None:
    if not rejected:
        return None

    def rank(entry: tuple[int, Problem]) -> tuple[int, str]:
        code = entry[1].code
        # Collector disqualifications (other_commit, dirty_tree, ...) rank beside from_future;
        # ties go by code so the verdict does not depend on the order evidence arrived in.
        closeness = _CLOSENESS.index(code if code in _CLOSENESS else "from_future")
        return closeness, code

    return min(rejected, key=rank)[1]


def _listing(rejected: Sequence[tuple[int, Problem]]) -> str:
    shown = "; ".join(problem.message for _, problem in rejected[:_MAX_LISTED])
    if len(rejected) > _MAX_LISTED:
        shown += f"; and {len(rejected) - _MAX_LISTED} more"
    return shown


_HINTS = {
    "state_write": "a state_readback from the system of record",
    "deploy": "an endpoint_health check against the deployed thing",
}


def _mutation_label(mutation: Mutation) -> str:
    target = f" {mutation.target}" if mutation.target else ""
    return f"mutation {mutation.id} ({mutation.kind}{target})"


def _mutation_unmet(
    mutation: Mutation,
    found: _Weighing,
    items: Sequence[EvidenceItem],
    readings: Sequence[Reading],
) -> Unmet:
    label = _mutation_label(mutation)
    if found.contradicting:
        first = found.contradicting[0]
        return Unmet(
            "contradicted",
            f"{label} is contradicted by {describe_item(first, items[first].evidence)}: "
            + "; ".join(readings[first].contradiction[:_MAX_LISTED]),
            mutation=mutation.id,
            evidence=found.contradicting,
            state=VerdictState.REFUTED,
        )
    primary = _primary(found.rejected)
    if primary is None:
        hint = _HINTS.get(mutation.kind, "a test_run written by CI after the change")
        return Unmet(
            "no_evidence",
            f"{label}: no evidence covers it; it needs {hint}",
            mutation=mutation.id,
        )
    return Unmet(
        primary.code,
        f"{label}: no independent evidence counts: {_listing(found.rejected)}",
        mutation=mutation.id,
        evidence=tuple(index for index, _ in found.rejected),
    )


def _requirement_unmet(
    check_type: CheckType,
    found: _Weighing,
    items: Sequence[EvidenceItem],
    readings: Sequence[Reading],
) -> Unmet:
    label = f"the policy requires {check_type}"
    if found.contradicting:
        first = found.contradicting[0]
        return Unmet(
            "contradicted",
            f"{label}, and {describe_item(first, items[first].evidence)} contradicts the claim: "
            + "; ".join(readings[first].contradiction[:_MAX_LISTED]),
            requirement=check_type,
            evidence=found.contradicting,
            state=VerdictState.REFUTED,
        )
    primary = _primary(found.rejected)
    if primary is None:
        return Unmet(
            "missing_check_type",
            f"{label}, and there is no {check_type} evidence at all",
            requirement=check_type,
        )
    return Unmet(
        primary.code,
        f"{label}, and none of the {check_type} evidence counts: {_listing(found.rejected)}",
        requirement=check_type,
        evidence=tuple(index for index, _ in found.rejected),
    )


def _reason(state: VerdictState, unmet: Sequence[Unmet], claim: Claim) -> str:
    if state is VerdictState.VERIFIED:
        count = len(claim.mutations)
        noun = "mutation" if count == 1 else "mutations"
        return f"verified: all {count} {noun} and every required check are backed by" \
            " independent, fresh evidence observed after the change"
    ordered = sorted(unmet, key=lambda entry: entry.state is not VerdictState.REFUTED)
    head = ordered[0].message
    rest = len(unmet) - 1
    more = f" (and {rest} more unmet)" if rest else ""
    return f"{state}: {head}{more}{way_out([entry.code for entry in unmet])}"
