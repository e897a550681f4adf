"""Repeated attempts of one test merged into one (policy `junit.reruns: repeated-cases`).

Same-identity cases in one suite element are attempts of one test: the last attempt is
its outcome, and a pass after a failure makes it flaky. A quiet attempt (passed or
skipped) is kept as 8 bytes in one of 256 buckets by its low bits (a 62-bit digest of its
identity and its suite element, plus two flag bits); a test with a failing attempt is kept
in full (`Attempts`). The totals are worked out a bucket at a time, so that no set of a
million Python ints is ever built. Failing tests are matched by their full identity, never
by digest: a collision could at worst merge two quiet tests' counts, never hide a failure.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass

from gate.claim.junit_facts import FailingTest, Outcome, Totals

SKIPPED_BIT = 1
FLAKY_BIT = 2


@dataclass(slots=True)
class Attempts:
    """Attempts of one test whose first failing attempt was seen (rare: kept in full)."""

    suite: str
    classname: str
    name: str
    attempts: int
    last: Outcome
    failed_before: bool
    detail: FailingTest | None
    flaky: bool


@dataclass(slots=True)
class Quiet:
    """What the counter tallied of quiet attempts (each one counted as a test so far)."""

    passed: int
    skipped: int
    flaky: int
    coded: int  # stored with a skipped/flaky flag


def combined(before: Outcome | None, now: Outcome) -> Outcome:
    """One identity seen more than once: a failure stands; else a pass beats a skip."""
    if before is None:
        return now
    worst = max(before, now)
    if worst >= Outcome.FAILURE:
        return worst
    return Outcome.PASSED if Outcome.PASSED in (before, now) else Outcome.SKIPPED


def scope_salt(scope: int) -> int:
    """Mixed into a quiet attempt's digest so attempts in different suite elements differ;
    the low two bits stay clear for the skipped/flaky flags."""
    return 0 if scope == 0 else hash(("claim-gate junit scope", scope)) & ~3


def final_detail(key: str, entry: Attempts) -> FailingTest:
    detail = entry.detail or FailingTest(
        key, entry.last, entry.suite, entry.classname, entry.name, ""
    )
    if detail.outcome is not entry.last or detail.attempts != entry.attempts:
        detail = FailingTest(
            detail.identity, entry.last, detail.suite, detail.classname, detail.name,
            detail.message, detail.file, detail.line, entry.attempts,
        )
    return detail


def _merge_quiet(
    buckets: list[array[int]], troubled: Mapping[tuple[int, str], Attempts], quiet: Quiet,
) -> tuple[int, int, int, int]:
    """Tests, passed, skipped, flaky of the quiet attempts once merged: repeats of one
    identity are one test; attempts before a test's first failure belong to that test."""
    passed, skipped, flaky = quiet.passed, quiet.skipped, quiet.flaky
    tests = passed + skipped
    early: dict[int, dict[int, tuple[int, str]]] = {}
    for scope, key in troubled:
        digest = hash(key) ^ scope_salt(scope)
        early.setdefault(digest & 255, {})[digest >> 2] = (scope, key)
    for index, bucket in enumerate(buckets):
        troubled_here = early.get(index, {})
        if not bucket:
            continue
        if not troubled_here and not quiet.coded and len(set(bucket)) == len(bucket):
            continue  # the common case, checked at C speed: no flags, no repeats
        keys = {value >> 2 for value in bucket}
        if len(keys) == len(bucket) and keys.isdisjoint(troubled_here):
            continue
        last: dict[int, int] = {}
        for value in bucket:
            short = value >> 2
            before = last.get(short)
            code = value & 3
            if before is not None:
                code |= before & FLAKY_BIT
            last[short] = code
            # undo this attempt's contribution; the merged outcome is added back below
            tests -= 1
            if value & SKIPPED_BIT:
                skipped -= 1
            else:
                passed -= 1
                flaky -= (value & FLAKY_BIT) >> 1
            if short in troubled_here:  # an attempt before this test's first failure
                troubled[troubled_here[short]].attempts += 1
        for short, code in last.items():
            if short in troubled_here:
                continue
            tests += 1
            if code & SKIPPED_BIT:
                skipped += 1
            else:
                passed += 1
                flaky += (code & FLAKY_BIT) >> 1
    return tests, passed, skipped, flaky


def merged_totals(
    buckets: list[array[int]], troubled: Mapping[tuple[int, str], Attempts], quiet: Quiet,
    suite_level: set[tuple[int, str]], suite_errors: int, flaky_names: list[str],
) -> tuple[Totals, list[FailingTest], list[str]]:
    """The file's totals, failing tests and flaky names with attempts merged."""
    tests, passed, skipped, flaky = _merge_quiet(buckets, troubled, quiet)
    failing: list[FailingTest] = []
    failures = errors = 0
    failing_keys: set[str] = set()
    flaky_names = list(flaky_names)
    for (scope, key), entry in troubled.items():
        tests += (scope, key) not in suite_level
        if entry.last is Outcome.PASSED:
            passed += 1
            if entry.failed_before or entry.flaky:
                flaky += 1
                flaky_names.append(key)
        elif entry.last is Outcome.SKIPPED:
            skipped += 1
        else:
            if entry.last is Outcome.ERROR:
                errors += 1
            else:
                failures += 1
            failing.append(final_detail(key, entry))
            failing_keys.add(key)
    # a test flaky in one attempt but failing in its last is not
    flaky_names = [key for key in flaky_names if key not in failing_keys]
    # merged within each suite element, every test here is one identity there
    totals = Totals(tests, passed, failures, errors, skipped, flaky, tests, suite_errors)
    return totals, failing, flaky_names
