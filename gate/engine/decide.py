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
from itertools import chain, compress, repeat
from operator import and_, attrgetter, eq, is_, is_not, itemgetter, le, not_
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from gate import GATE_ID
from gate.claim.facts import EvidenceItem, Facts, Origin
from gate.claim.model import JSON, CheckType, Claim, Evidence, Mutation, VerdictState
from gate.claim.policy import Policy
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import duration
from gate.engine.agent_time import future_mutations, invalid_time_problem
from gate.engine.binding import bind_to_subject, superseded
from gate.engine.chain_parts import way_out
from gate.engine.change_reach import judge_reach, reading_judgements
from gate.engine.commit_order import ordered_after, skew_notes
from gate.engine.completeness import item_problem
from gate.engine.fail_to_pass import (
    counted_fail_to_pass,
    fail_to_pass_judgements,
    judge_base_code_runs,
    judged_base_code,
)
from gate.engine.handed_on import channel_judgements, judge_channel
from gate.engine.provenance import judge_provenance
from gate.engine.removed_tests import claim_judgements, rule_judgements
from gate.engine.results import Assessment, Judgement, Problem, Unmet, Verdict, worst
from gate.engine.run_binding import bind_records_to_junit
from gate.engine.test_counts import count_contradictions, count_problem, failures_stand
from gate.engine.trust import TrustJudgement, judge_once

if TYPE_CHECKING:
    from gate.claim.github_facts import PullObservation

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
_STRINGS = frozenset({str})
_TUPLES = frozenset({tuple})
_DICTS = frozenset({dict})
_Made = TypeVar("_Made", Assessment, Judgement)


def differences(expected: Mapping[str, JSON], observed: JSON, prefix: str = "") -> list[str]:
    """Fields of `expected` that `observed` lacks or holds with another value (rule 6)."""
    if not isinstance(observed, dict):
        return [f"{prefix or 'value'}: expected an object, observed {_show(observed)}"]
    if _STRINGS.issuperset(map(type, expected.values())) \
            and all(map(eq, expected.values(), map(observed.get, expected))):
        return []  # every expected value a string the observed one equals (asked in C)
    found: list[str] = []
    for key, want in expected.items():
        name = f"{prefix}.{key}" if prefix else key
        if key not in observed:
            found.append(f"{name}: expected {_show(want)}, observed nothing (field absent)")
        elif isinstance(want, dict) and isinstance(observed[key], dict):
            found.extend(differences(want, observed[key], name))
        elif not _same(want, observed[key]):
            found.append(f"{name}: expected {_show(want)}, observed {_show(observed[key])}")
    return found


def _same(left: JSON, right: JSON) -> bool:
    """JSON equality that keeps true apart from 1 (Python's == does not)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    return bool(left == right)


def _show(value: JSON) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _describe_item(index: int, evidence: Evidence) -> str:
    return f"evidence #{index} ({evidence.check_type} by {evidence.verifier.id!r})"


def _made(kind: type[_Made], **fields: Any) -> _Made:
    """`kind(**fields)` for a frozen result made once per item or mutation: every field given,
    in field order, into the instance's dict, without the frozen __init__'s
    object.__setattr__ per field (as gate/claim/codec.py makes the model; issue 23).
    tests/test_decide_fast_paths.py holds it to the class's own __init__."""
    made = _new(kind)
    made.__dict__.update(fields)
    return made


_new = object.__new__


def _problem_of(
    item: EvidenceItem, index: int, policy: Policy, now: datetime,
    judge: Callable[[EvidenceItem], TrustJudgement],
) -> tuple[bool, Problem | None]:
    """Why this item cannot count for anything, if it cannot; messages are built only then.
    `judge`: the trust judgement (`trust.judge_once`, one per verifier)."""
    evidence = item.evidence
    judgement = judge(item)
    if item.disqualified is not None \
            and not failures_stand(item.disqualified.code, evidence):
        label = _describe_item(index, evidence)
        return judgement.independent, Problem(
            item.disqualified.code, f"{label}: {item.disqualified.message}"
        )
    if not judgement.independent:
        code = judgement.code or "self_attested_only"
        return False, Problem(code, f"{_describe_item(index, evidence)}: {judgement.message}")
    if evidence.at > now:
        return True, Problem(
            "from_future",
            f"{_describe_item(index, evidence)} is dated {format_rfc3339(evidence.at)}, after the"
            f" decision time {format_rfc3339(now)}; evidence from the future never counts"
            " (a clock is wrong or the date was forged)",
        )
    limit = policy.max_age_for(evidence.check_type)
    age = (now - evidence.at).total_seconds()
    if age > limit:
        return True, Problem(
            "stale",
            f"{_describe_item(index, evidence)} observed at {format_rfc3339(evidence.at)} is"
            f" {duration(age)} old, over the {duration(limit)} limit for {evidence.check_type};"
            " collect it again",
        )
    if evidence.expected is not None and not evidence.has_observed_value:
        return True, Problem(
            "no_observation",
            f"{_describe_item(index, evidence)} states what it expected but records no"
            " observed_value",
        )
    counted = count_problem(evidence) if evidence.check_type is CheckType.TEST_RUN else None
    if counted is not None:  # only a test run's counts are read (count_problem)
        return True, Problem(counted.code, f"{_describe_item(index, evidence)}: {counted.message}")
    return True, None


def _effective_covers(
    evidence: Evidence, known: Mapping[str, Mutation], code_change: tuple[str, ...]
) -> tuple[str, ...]:
    """What an item covers: its own `covers` among the claim's mutations, or, for a test run
    that names none, every code change. A test run covers only code changes, whatever it
    names: a state_write or a deploy needs its own check type (readback, health)."""
    covers = evidence.covers
    if evidence.check_type is CheckType.TEST_RUN:
        named = [c for c in covers if c in code_change]
        return tuple(dict.fromkeys(named)) if covers else code_change
    if len(covers) <= 1 and all(map(known.__contains__, covers)):  # most name one, known
        return tuple(covers)
    return tuple(dict.fromkeys(c for c in covers if c in known))


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
    readings = _readings(items, policy, now, known, code_change, trust, facts.pull)
    future = {m: invalid_time_problem(known[m], now) for m in future_mutations(claim, now)}
    by_mutation, by_check = _candidates(items, readings)

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


class _Reading(NamedTuple):
    """One item before it is weighed: whose it is, what rules it out, what it covers and
    where it contradicts the claim. A named tuple, immutable as a frozen dataclass and made
    in a third of its time: there is one per evidence item (issue 23)."""

    independent: bool
    problem: Problem | None
    covers: tuple[str, ...]
    contradiction: tuple[str, ...]


def _read(
    item: EvidenceItem, index: int, policy: Policy, now: datetime,
    known: Mapping[str, Mutation], code_change: tuple[str, ...],
    trust: Callable[[EvidenceItem], TrustJudgement], pull: PullObservation | None = None,
) -> _Reading:
    independent, problem = _problem_of(item, index, policy, now, trust)
    evidence = item.evidence
    expected = evidence.expected
    contradiction = (
        differences(expected, evidence.observed_value)
        if expected is not None and evidence.has_observed_value else []
    )
    if evidence.check_type is CheckType.TEST_RUN:  # only a test run's counts contradict
        contradiction += count_contradictions(evidence)
    if problem is None and item.producer is not None:  # GitHub's word on the item's run
        found = item_problem(item, pull, bool(contradiction))
        problem = Problem(found.code, f"{_describe_item(index, evidence)}: {found.message}") \
            if found else None
    return _Reading(independent, problem, _effective_covers(evidence, known, code_change),
                    tuple(contradiction))


def _readings(
    items: Sequence[EvidenceItem], policy: Policy, now: datetime,
    known: Mapping[str, Mutation], code_change: tuple[str, ...],
    trust: Callable[[EvidenceItem], TrustJudgement], pull: PullObservation | None = None,
) -> tuple[_Reading, ...]:
    """`_read` of each item. When `_none_ruled_out` finds, of all the items at once, that no
    item can have a problem, only what differs per item (its comparison, its covers) is read
    one by one, without `_read`'s steps for each (issue 23); else each item is `_read`."""
    if not _none_ruled_out(items, policy, now, trust):
        return tuple(_read(item, index, policy, now, known, code_change, trust, pull)
                     for index, item in enumerate(items))
    evidence = list(map(_EVIDENCE, items))
    covers = list(map(attrgetter("covers"), evidence))
    if _own_covers(covers, known) and _all_agree(evidence):  # the reading of each, in C
        count = len(evidence)
        return tuple(map(_Reading, repeat(True, count), repeat(None, count), covers,
                         repeat((), count)))
    return tuple(
        _Reading(True, None, one.covers if _known_one(one.covers, known)
                 else _effective_covers(one, known, code_change),
                 tuple(differences(one.expected, one.observed_value))
                 if one.expected is not None and one.has_observed_value else ())
        for one in evidence)


def _candidates(items: Sequence[EvidenceItem], readings: Sequence[_Reading],
                ) -> tuple[dict[str, list[int]], dict[CheckType, list[int]]]:
    """The items' indexes by the mutations they cover and by check type, in arrival order.
    Items that each cover one mutation of their own, of one check type (one readback per
    mutation), are indexed in C."""
    covers = list(map(attrgetter("covers"), readings))
    checks = list(map(_CHECK_TYPE, map(_EVIDENCE, items)))
    count = len(items)
    if set(map(len, covers)) == {1} and len(set(checks)) == 1:
        by_mutation = dict(zip(map(itemgetter(0), covers), map(list, zip(range(count))),
                               strict=True))
        if len(by_mutation) == count:
            return by_mutation, {checks[0]: list(range(count))}
    by_mutation = defaultdict(list)
    by_check: dict[CheckType, list[int]] = defaultdict(list)
    for index, (covered, check) in enumerate(zip(covers, checks, strict=True)):
        for mutation_id in covered:
            by_mutation[mutation_id].append(index)
        by_check[check].append(index)
    return by_mutation, by_check


def _known_one(covers: tuple[str, ...], known: Mapping[str, Mutation]) -> bool:
    """`_effective_covers` of an item that is no test run and names one known mutation is
    its own `covers` (a tuple, as the model makes it)."""
    return type(covers) is tuple and len(covers) == 1 and covers[0] in known


def _own_covers(covers: Sequence[tuple[str, ...]], known: Mapping[str, Mutation]) -> bool:
    """Whether `_effective_covers` of every item (none a test run) is its own `covers`: each
    a tuple naming one known mutation or none (`_known_one`, asked of all at once in C)."""
    return _TUPLES.issuperset(map(type, covers)) and max(map(len, covers), default=0) <= 1 \
        and known.keys() >= set(chain.from_iterable(covers))


def _all_agree(evidence: Sequence[Evidence]) -> bool:
    """Whether `differences` finds nothing for every item that compares (an expectation and
    an observation, both plain objects): each expected value a string that the observed
    object holds under its key, asked of all of them at once in C."""
    expected = list(map(attrgetter("expected"), evidence))
    compared = list(map(is_not, expected, repeat(None)))
    wanted = list(compress(expected, compared))
    seen = list(compress(map(attrgetter("observed_value"), evidence), compared))
    return _DICTS.issuperset(map(type, wanted)) and _DICTS.issuperset(map(type, seen)) \
        and _STRINGS.issuperset(map(type, chain.from_iterable(map(dict.values, wanted)))) \
        and all(map(le, map(dict.items, wanted), map(dict.items, seen)))


_EVIDENCE = attrgetter("evidence")
_AT = attrgetter("at")
_CHECK_TYPE = attrgetter("check_type")


def _none_ruled_out(items: Sequence[EvidenceItem], policy: Policy, now: datetime,
                    trust: Callable[[EvidenceItem], TrustJudgement]) -> bool:
    """Whether `_read` finds no problem in any item, asked of all of them at once: none
    disqualified by a collector, none from a CI run (`item_problem`) or a test run (its
    counts are read), each judged independent, none expecting without an observation, and
    every observation fresh, by the newest and the oldest of its check type."""
    if not all(map(is_, map(attrgetter("disqualified"), items), repeat(None))) \
            or not all(map(is_, map(attrgetter("producer"), items), repeat(None))) \
            or not all(map(attrgetter("independent"), map(trust, items))):
        return False
    evidence = list(map(_EVIDENCE, items))
    checks = set(map(_CHECK_TYPE, evidence))
    if CheckType.TEST_RUN in checks or any(map(
            and_, map(is_not, map(attrgetter("expected"), evidence), repeat(None)),
            map(not_, map(attrgetter("has_observed_value"), evidence)))):
        return False
    for check in checks:
        times = list(map(_AT, evidence)) if len(checks) == 1 \
            else [one.at for one in evidence if one.check_type is check]
        if max(times) > now or (now - min(times)).total_seconds() > policy.max_age_for(check):
            return False
    return True


def _judge_mutation(
    mutation: Mutation, candidates: Sequence[int], items: Sequence[EvidenceItem],
    readings: Sequence[_Reading], invalid_time: Problem | None,
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
    items: Sequence[EvidenceItem], readings: Sequence[_Reading], clean: Sequence[bool],
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


def _all_support(candidates: Sequence[int], readings: Sequence[_Reading], clean: Sequence[bool],
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
    readings: Sequence[_Reading], known: Mapping[str, Mutation], future: Mapping[str, Problem],
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
    readings: Sequence[_Reading], judgements: tuple[Judgement, ...],
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


class _Weighing(NamedTuple):  # one per mutation and requirement weighed: see _Reading
    supporting: tuple[int, ...]
    contradicting: tuple[int, ...]
    rejected: tuple[tuple[int, Problem], ...]


def _weigh(
    candidates: Sequence[int],
    readings: Sequence[_Reading],
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
        f"{_describe_item(index, evidence)} was observed at {format_rfc3339(evidence.at)},"
        f" not after {mutation.id} at {format_rfc3339(mutation.at)}; it says nothing about"
        " that change"
    )


def _before_all_message(
    index: int, evidence: Evidence, covered: Sequence[str], known: Mapping[str, Mutation]
) -> str:
    late = [c for c in covered if evidence.at <= known[c].at]
    return (
        f"{_describe_item(index, evidence)} was observed at {format_rfc3339(evidence.at)},"
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
    readings: Sequence[_Reading],
) -> Unmet:
    label = _mutation_label(mutation)
    if found.contradicting:
        first = found.contradicting[0]
        return Unmet(
            "contradicted",
            f"{label} is contradicted by {_describe_item(first, items[first].evidence)}: "
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
    readings: Sequence[_Reading],
) -> Unmet:
    label = f"the policy requires {check_type}"
    if found.contradicting:
        first = found.contradicting[0]
        return Unmet(
            "contradicted",
            f"{label}, and {_describe_item(first, items[first].evidence)} contradicts the claim: "
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
