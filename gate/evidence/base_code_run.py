"""The head's run against the same tests over the base's code (`verify --base-code-junit`).

Records, test by test, what failed over the base's code and passed on the head (fail-to-pass),
what passed there and fails on the head (a regression), and which (base, head) the run says it
was over: the `claim-gate.base_code` property the pytest plugin writes only when it found the
tree to be exactly `claim-gate base-code`'s plan. Whether that binding matches the decision's
subject, and what the tests mean, is the engine's (`gate/engine/fail_to_pass.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gate.claim.fail_to_pass import BaseCodeComparison
from gate.claim.junit_facts import JUnitFile, Outcome
from gate.evidence.test_sets import outcomes

_BOUND = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64})\.\.([0-9a-f]{40}|[0-9a-f]{64})$")
_FAILED = (Outcome.FAILURE, Outcome.ERROR)


def _binding(files: Sequence[JUnitFile]) -> tuple[tuple[str, str] | None, str | None]:
    """(base, head) every file agrees on, or why there is none."""
    values = {value for file in files for value in file.base_code}
    unbound = [file.path for file in files if not file.base_code]
    if not values:
        return None, None
    if unbound:
        return None, f"{', '.join(unbound)} carry no claim-gate.base_code property"
    if len(values) > 1:
        return None, f"the files name different runs over the base's code ({sorted(values)})"
    value = next(iter(values))
    match = _BOUND.match(value.strip().lower())
    if match is None:
        return None, f"claim-gate.base_code is {value[:120]!r}, not BASE_SHA..HEAD_SHA"
    return (match[1], match[2]), None


def compare_base_code(base_code: Sequence[JUnitFile], head: Sequence[JUnitFile],
                      source: str) -> BaseCodeComparison:
    return compare_runs([(base_code, head)], source)


def compare_runs(runs: Sequence[tuple[Sequence[JUnitFile], Sequence[JUnitFile]]],
                 source: str) -> BaseCodeComparison:
    """Each run's report over the base's code against that same run's head report (one
    checkout, two reports), then together: a test is fail-to-pass only where one run shows
    it so, never from one run's failure beside another run's pass."""
    base_files = [file for base_code, _ in runs for file in base_code]
    bound, problem = _binding(base_files)
    fail_to_pass: set[str] = set()
    regressions: set[str] = set()
    both: set[str] = set()
    for base_code, head in runs:
        before, before_complete = outcomes(base_code)
        after, after_complete = outcomes(head)
        if not (before_complete and after_complete):
            problem = problem or "a file held too many tests to compare them one by one"
        for key, outcome in after.items():
            was = before.get(key)
            if outcome is Outcome.PASSED and was in _FAILED:
                fail_to_pass.add(key)
            elif outcome in _FAILED and was is Outcome.PASSED:
                regressions.add(key)
            elif outcome is Outcome.PASSED and was is Outcome.PASSED:
                both.add(key)
    return BaseCodeComparison(
        source=source,
        fail_to_pass=tuple(sorted(fail_to_pass)),
        regressions=tuple(sorted(regressions)),
        passed_on_both=len(both),
        bound_to=bound,
        problem=problem,
        at=min((file.time.at for file in base_files), default=None),
    )
