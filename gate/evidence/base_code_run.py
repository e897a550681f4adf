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
    bound, problem = _binding(base_code)
    before, before_complete = outcomes(base_code)
    after, after_complete = outcomes(head)
    if not (before_complete and after_complete):
        problem = problem or "a file held too many tests to compare them one by one"
    return BaseCodeComparison(
        source=source,
        fail_to_pass=tuple(sorted(k for k, v in after.items()
                                  if v is Outcome.PASSED and before.get(k) in _FAILED)),
        regressions=tuple(sorted(k for k, v in after.items()
                                 if v in _FAILED and before.get(k) is Outcome.PASSED)),
        passed_on_both=sum(1 for k, v in after.items()
                           if v is Outcome.PASSED and before.get(k) is Outcome.PASSED),
        bound_to=bound,
        problem=problem,
        at=min((file.time.at for file in base_code), default=None),
    )
