"""A suite's own `tests`/`failures`/`errors` against what was counted inside it.

The attributes are the writer's account, never what a verdict counts: a suite that states
fewer failures than it holds is a file not to be trusted as it stands (`SuiteMismatch`),
and one that states fewer tests than it holds cases may leave some out on purpose
(jest-junit's `test.todo`), which the counter must know.
"""

from __future__ import annotations

from gate.claim.junit_facts import SuiteMismatch
from gate.evidence.junit_failure import stated_int
from gate.evidence.junit_node import Node

#: Suite mismatches kept per kind (hiding failures, or only disagreeing); the rest are
#: counted by nothing: one is enough to say the file is not to be trusted as it stands.
MAX_MISMATCHES = 20


class SuiteChecks:
    """The running counts at each open suite element, and the mismatches found. Mutable on
    purpose: it lives for one parse."""

    def __init__(self) -> None:
        #: (cases, failing elements) counted in the file when each open suite element started
        self.marks: list[tuple[int, int]] = []
        self.mismatches: list[SuiteMismatch] = []

    def opened(self, elements: int, failing: int) -> None:
        """A suite element started when `elements` cases and `failing` failing elements had
        been counted in the file."""
        self.marks.append((elements, failing))

    def closed(self, suite: Node, element: str, elements: int, failing: int) -> bool:
        """Compare a suite that closed with what was counted inside it (`elements` cases and
        `failing` failing elements so far in the file, less those when it started: a case
        its parent holds before it or between it and a sibling is the parent's); True when
        it states fewer tests than it holds cases."""
        before = self.marks.pop()
        counted_tests = elements - before[0]
        counted_failing = failing - before[1]
        tests = stated_int(suite.get("tests"))
        failures, errors = stated_int(suite.get("failures")), stated_int(suite.get("errors"))
        stated = None if failures is None and errors is None else (failures or 0) + (errors or 0)
        if (tests is None or tests == counted_tests) and (
            stated is None or stated == counted_failing
        ):
            return False
        found = SuiteMismatch(element, suite.get("name") or "", tests, counted_tests, stated,
                              counted_failing)
        kept = sum(m.hides_failures is found.hides_failures for m in self.mismatches)
        if kept < MAX_MISMATCHES:
            self.mismatches.append(found)
        return tests is not None and tests < counted_tests
