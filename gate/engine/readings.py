"""One evidence item read before it is weighed: whose it is, what rules it out, what it
covers, where it contradicts the claim (`read_item`), for every item of a claim at once where
nothing can rule any out (`read_items`, issue 23), and the items indexed by mutation and check
type. Part of the engine (`gate.engine.decide` weighs the readings); no I/O.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from itertools import chain, compress, repeat
from operator import and_, attrgetter, eq, is_, is_not, itemgetter, le, not_
from typing import TYPE_CHECKING, NamedTuple

from gate.claim.facts import EvidenceItem
from gate.claim.model import JSON, CheckType, Evidence, Mutation
from gate.claim.policy import Policy
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import duration
from gate.engine.completeness import item_problem
from gate.engine.results import Problem
from gate.engine.test_counts import count_contradictions, count_problem, failures_stand
from gate.engine.trust import TrustJudgement

if TYPE_CHECKING:
    from gate.claim.github_facts import PullObservation


_STRINGS = frozenset({str})


_TUPLES = frozenset({tuple})


_DICTS = frozenset({dict})


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


def describe_item(index: int, evidence: Evidence) -> str:
    return f"evidence #{index} ({evidence.check_type} by {evidence.verifier.id!r})"


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
        label = describe_item(index, evidence)
        return judgement.independent, Problem(
            item.disqualified.code, f"{label}: {item.disqualified.message}"
        )
    if not judgement.independent:
        code = judgement.code or "self_attested_only"
        return False, Problem(code, f"{describe_item(index, evidence)}: {judgement.message}")
    if evidence.at > now:
        return True, Problem(
            "from_future",
            f"{describe_item(index, evidence)} is dated {format_rfc3339(evidence.at)}, after the"
            f" decision time {format_rfc3339(now)}; evidence from the future never counts"
            " (a clock is wrong or the date was forged)",
        )
    limit = policy.max_age_for(evidence.check_type)
    age = (now - evidence.at).total_seconds()
    if age > limit:
        return True, Problem(
            "stale",
            f"{describe_item(index, evidence)} observed at {format_rfc3339(evidence.at)} is"
            f" {duration(age)} old, over the {duration(limit)} limit for {evidence.check_type};"
            " collect it again",
        )
    if evidence.expected is not None and not evidence.has_observed_value:
        return True, Problem(
            "no_observation",
            f"{describe_item(index, evidence)} states what it expected but records no"
            " observed_value",
        )
    counted = count_problem(evidence) if evidence.check_type is CheckType.TEST_RUN else None
    if counted is not None:  # only a test run's counts are read (count_problem)
        return True, Problem(counted.code, f"{describe_item(index, evidence)}: {counted.message}")
    return True, None


def effective_covers(
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


class Reading(NamedTuple):
    """One item before it is weighed: whose it is, what rules it out, what it covers and
    where it contradicts the claim. A named tuple, immutable as a frozen dataclass and made
    in a third of its time: there is one per evidence item (issue 23)."""

    independent: bool
    problem: Problem | None
    covers: tuple[str, ...]
    contradiction: tuple[str, ...]


def read_item(
    item: EvidenceItem, index: int, policy: Policy, now: datetime,
    known: Mapping[str, Mutation], code_change: tuple[str, ...],
    trust: Callable[[EvidenceItem], TrustJudgement], pull: PullObservation | None = None,
) -> Reading:
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
        problem = Problem(found.code, f"{describe_item(index, evidence)}: {found.message}") \
            if found else None
    return Reading(independent, problem, effective_covers(evidence, known, code_change),
                    tuple(contradiction))


def read_items(
    items: Sequence[EvidenceItem], policy: Policy, now: datetime,
    known: Mapping[str, Mutation], code_change: tuple[str, ...],
    trust: Callable[[EvidenceItem], TrustJudgement], pull: PullObservation | None = None,
) -> tuple[Reading, ...]:
    """`read_item` of each item. When `none_ruled_out` finds, of all the items at once, that no
    item can have a problem, only what differs per item (its comparison, its covers) is read
    one by one, without `read_item`'s steps for each (issue 23); else each item is `read_item`."""
    if not none_ruled_out(items, policy, now, trust):
        return tuple(read_item(item, index, policy, now, known, code_change, trust, pull)
                     for index, item in enumerate(items))
    evidence = list(map(_EVIDENCE, items))
    covers = list(map(attrgetter("covers"), evidence))
    if _own_covers(covers, known) and _all_agree(evidence):  # the reading of each, in C
        count = len(evidence)
        return tuple(map(Reading, repeat(True, count), repeat(None, count), covers,
                         repeat((), count)))
    return tuple(
        Reading(True, None, one.covers if _known_one(one.covers, known)
                 else effective_covers(one, known, code_change),
                 tuple(differences(one.expected, one.observed_value))
                 if one.expected is not None and one.has_observed_value else ())
        for one in evidence)


def item_indexes(items: Sequence[EvidenceItem], readings: Sequence[Reading],
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
    """`effective_covers` of an item that is no test run and names one known mutation is
    its own `covers` (a tuple, as the model makes it)."""
    return type(covers) is tuple and len(covers) == 1 and covers[0] in known


def _own_covers(covers: Sequence[tuple[str, ...]], known: Mapping[str, Mutation]) -> bool:
    """Whether `effective_covers` of every item (none a test run) is its own `covers`: each
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


def none_ruled_out(items: Sequence[EvidenceItem], policy: Policy, now: datetime,
                    trust: Callable[[EvidenceItem], TrustJudgement]) -> bool:
    """Whether `read_item` finds no problem in any item, asked of all of them at once: none
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
