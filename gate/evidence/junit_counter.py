"""What the JUnit reader judges: each case the parser target hands over, counted by rule.

The parser target (junit_events) counts most passing cases inline and calls the counter
only for what must be judged in full: a case with a result element, a status, a name the
claim or policy asks about, or (with `junit.reruns: repeated-cases`) an attempt; suites as
they open and close (their attribute check: junit_suites), properties (junit_properties)
and failures outside any case. The counter never sees the parser: the arrow goes one way.

Failing tests keep their details (they are what a verdict and an annotation need), and so
do tests a policy or claim named; a passing test leaves its identity until its suite
element closes (to count `unique`: junit_unique), or under the switch an 8-byte digest
(junit_attempts).
"""

from __future__ import annotations

from array import array
from datetime import datetime

from gate.claim.junit_facts import FailingTest, Outcome, TimeSource, Totals
from gate.evidence.junit_attempts import (
    FLAKY_BIT,
    SKIPPED_BIT,
    Attempts,
    Quiet,
    combined,
    merged_totals,
    scope_salt,
)
from gate.evidence.junit_failure import failing_detail
from gate.evidence.junit_names import aliases, identity, last_segments
from gate.evidence.junit_node import Node
from gate.evidence.junit_properties import RunProperties
from gate.evidence.junit_suites import SuiteChecks
from gate.evidence.junit_tags import RETRIES, SEVERITY, SKIP_STATUS, local
from gate.evidence.junit_unique import ScopeIdentities


class Counter:
    """Accumulates one file. Mutable on purpose: it lives for one parse and is then frozen.

    `detailed`: failing tests whose message and place are kept; beyond it they are counted
    and named only, so a million failures cannot exhaust memory through their texts."""

    def __init__(
        self, requested: frozenset[str], identity_cap: int | None = None,
        repeated: bool = False, detailed: int = 10_000,
    ) -> None:
        self.requested = requested
        #: True: same-identity cases in one suite element are attempts of one test (policy).
        self.repeated = repeated
        self.detailed = detailed
        #: identity -> final outcome, only when asked for (comparing test sets), at most cap.
        self.identities: dict[str, Outcome] | None = None if identity_cap is None else {}
        self.identity_cap = identity_cap or 0
        self.identities_complete = True
        self.prefilter = last_segments(requested)
        #: Digests of named cases in buckets by their low bits (junit_attempts).
        self.buckets = [array("q") for _ in range(256)] if repeated else []
        #: Otherwise `unique` is counted one suite element at a time (junit_unique).
        self.scopes = ScopeIdentities()
        self.quiet_passed = 0
        self.quiet_skipped = 0
        self.quiet_flaky = 0
        self.unnamed = 0
        #: (suite scope, identity) -> attempts of a test that failed at least once (repeated).
        self.troubled: dict[tuple[int, str], Attempts] = {}
        #: Failing cases, each one a failing test (separate, the default).
        self.failing: list[FailingTest] = []
        self.failures = 0
        self.errors = 0
        self.suite_errors = 0
        #: (scope, identity) of named cases with no child element in the open suite: passes
        #: unless the suite's own `tests` leaves cases out (jest-junit's `test.todo`).
        self.bare_named: list[tuple[int, str]] = []
        #: (scope, identity) of each suite-level result: failing, but not a test.
        self.suite_level_keys: set[tuple[int, str]] = set()
        #: Attempts merge only within one <testsuite> element (a scope): a file merged from
        #: several runs (py310, py311) must not let one run's pass hide another's failure.
        self.scope = 0
        self.salt = 0
        self.current: set[str] = set()  # identities troubled in the current scope
        self.named: dict[str, Outcome] = {}
        #: (scope, identity) -> last outcome, for named tests and identities (repeated).
        self.scoped_named: dict[tuple[int, str], Outcome] = {}
        self.scoped_ids: dict[tuple[int, str], Outcome] = {}
        self.matches: dict[str, list[str]] = {}
        self.flaky_names: list[str] = []
        self.suites = 0
        self.run = RunProperties()
        self.coded = 0  # quiet attempts stored with a skipped/flaky flag
        #: <testcase> elements judged by `case` (the inline ones are counted by the target),
        #: and failing elements (including suite-level ones), for the attribute check.
        self.seen = 0
        self.seen_failing = 0
        self.checks = SuiteChecks()

    # -- one <testcase> -------------------------------------------------------------
    def case(self, case: Node) -> None:
        self.seen += 1
        outcome = Outcome.PASSED
        worst: Node | None = None
        retried = False
        if len(case):
            for child in case:
                tag = child.tag
                if not isinstance(tag, str):
                    continue
                if tag[:1] == "{":
                    tag = local(tag)
                severity = SEVERITY.get(tag)
                if severity is not None:
                    if severity > outcome:
                        outcome, worst = severity, child
                elif tag in RETRIES:
                    retried = True
        if outcome is Outcome.PASSED:
            # GoogleTest writes status="run" result="skipped"; jasmine status="notrun".
            for attribute in ("status", "result"):
                value = case.get(attribute)
                if value is not None and value.strip().lower() in SKIP_STATUS:
                    outcome = Outcome.SKIPPED
        name = case.get("name") or ""
        classname = case.get("classname") or ""
        suite = ""
        if not classname or outcome >= Outcome.FAILURE:
            parent = case.getparent()
            suite = (parent.get("name") or "") if parent is not None else ""
        self.record(case, worst, outcome, retried and outcome is Outcome.PASSED,
                    suite, classname, name)

    def suite_level(self, result: Node, suite: Node) -> None:
        """A <failure>/<error> directly under a suite (class setup failed): a failure or an
        error of the run, counted in `suite_errors`, and not one more test (a suite of 7
        cases and a suite error is 7 tests, 1 error)."""
        tag = local(result.tag)
        outcome = Outcome.ERROR if tag == "error" else Outcome.FAILURE
        name = suite.get("name") or ""
        self.suite_errors += 1
        label = f"({tag} outside any testcase)"
        self.suite_level_keys.add((self.scope, identity("", label, name)))
        self.record(result, result, outcome, False, name, "", label)

    def _outcome_of(
        self, table: dict[str, Outcome], scoped: dict[tuple[int, str], Outcome], key: str,
        outcome: Outcome,
    ) -> None:
        if self.repeated:  # the last attempt in a scope; scopes are combined at the end
            scoped[(self.scope, key)] = outcome
        else:
            table[key] = combined(table.get(key), outcome)

    def note_identity(self, key: str, outcome: Outcome) -> None:
        """Keep the identity's outcome for comparing test sets, up to the cap (if asked)."""
        ids = self.identities
        if ids is None:
            return
        held = len(self.scoped_ids) if self.repeated else len(ids)
        if key in ids or (self.scope, key) in self.scoped_ids or held < self.identity_cap:
            self._outcome_of(ids, self.scoped_ids, key, outcome)
        else:
            self.identities_complete = False

    def record(
        self, case: Node, worst: Node | None, outcome: Outcome,
        flaky: bool, suite: str, classname: str, name: str,
    ) -> None:
        failing = outcome >= Outcome.FAILURE
        self.seen_failing += failing
        if not name and not classname:
            self.unnamed += 1
            key = f"(unnamed testcase #{self.unnamed})"
            merge = False
        else:
            key = identity(classname, name, suite)
            merge = True
            self.note_identity(key, outcome)
        if self.requested and (name in self.prefilter or key in self.prefilter):
            self._named(case, outcome, suite, classname, name, key)
        if not self.repeated:
            self._separate(case, worst, outcome, flaky, suite, classname, name, key, merge)
        else:
            self._attempt(case, worst, outcome, flaky, suite, classname, name, key, merge)

    def _named(
        self, case: Node, outcome: Outcome, suite: str, classname: str, name: str, key: str,
    ) -> None:
        """A case whose name may be one the claim or policy asks about."""
        matched = aliases(classname, name, suite, case.get("file")) & self.requested
        if not matched:
            return
        self._outcome_of(self.named, self.scoped_named, key, outcome)
        if outcome is Outcome.PASSED and not len(case):
            self.bare_named.append((self.scope, key))
        for wanted in matched:
            keys = self.matches.setdefault(wanted, [])
            if key not in keys:
                keys.append(key)

    def _attempt(
        self, case: Node, worst: Node | None, outcome: Outcome,
        flaky: bool, suite: str, classname: str, name: str, key: str, merge: bool,
    ) -> None:
        """The switch's rule: this case is one attempt of the test of its identity."""
        failing = outcome >= Outcome.FAILURE
        entry = self.troubled.get((self.scope, key)) if merge else None
        if entry is None and not failing:
            if flaky:
                self.flaky_names.append(key)
            if merge:  # a later attempt may still fail: remember this one by its digest
                digest = hash(key) ^ self.salt
                code = (SKIPPED_BIT if outcome is Outcome.SKIPPED else 0) | (FLAKY_BIT * flaky)
                self.coded += code != 0
                self.buckets[digest & 255].append((digest & ~3) | code)
            if outcome is Outcome.SKIPPED:
                self.quiet_skipped += 1
            else:
                self.quiet_passed += 1
                self.quiet_flaky += flaky
            return
        detail = None
        if failing and worst is not None and len(self.troubled) < self.detailed:
            detail = failing_detail(key, outcome, case, worst, suite, classname, name)
        if entry is None:
            self.current.add(key)
            self.troubled[(self.scope, key)] = Attempts(
                suite, classname, name, 1, outcome, failing, detail, flaky
            )
            return
        entry.attempts += 1
        entry.failed_before = entry.failed_before or entry.last >= Outcome.FAILURE
        entry.last = outcome
        entry.flaky = flaky
        if detail is not None:
            entry.detail = detail

    def _separate(
        self, case: Node, worst: Node | None, outcome: Outcome,
        flaky: bool, suite: str, classname: str, name: str, key: str, merge: bool,
    ) -> None:
        """The default rule: this case is one run of a test, whatever other cases say."""
        if merge and (self.scope, key) not in self.suite_level_keys:
            self.scopes.remember(key)
        if outcome is Outcome.PASSED:
            self.quiet_passed += 1
            if flaky:
                self.quiet_flaky += 1
                self.flaky_names.append(key)
            return
        if outcome is Outcome.SKIPPED:
            self.quiet_skipped += 1
            return
        if outcome is Outcome.ERROR:
            self.errors += 1
        else:
            self.failures += 1
        detail = None
        if worst is not None and len(self.failing) < self.detailed:
            detail = failing_detail(key, outcome, case, worst, suite, classname, name)
        self.failing.append(detail or FailingTest(key, outcome, suite, classname, name, ""))

    # -- suites and properties ------------------------------------------------------
    def suite_opened(self, cases: int) -> None:
        """A suite element started; `cases`: the <testcase> elements ended so far."""
        self.checks.opened(cases, self.seen_failing)

    def suite(self, suite: Node, cases: int) -> None:
        """A suite element closed; `cases`: the <testcase> elements ended so far."""
        element = local(suite.tag)
        if element == "testsuite":
            self.suites += 1
            self.scopes.close()
            self.scope += 1  # the cases read from here on belong to the next suite element
            self.salt = scope_salt(self.scope)
            self.current = set()
        stamp = suite.get("timestamp")
        if stamp:
            self.run.suite_timestamp(stamp)
        if self.checks.closed(suite, element, cases, self.seen_failing):
            self._bare_cases_unproven()
        self.bare_named = []

    def _bare_cases_unproven(self) -> None:
        """The suite counts fewer tests than it holds cases: a bare case may be one it left out
        (a `test.todo`), so no bare case of it shows a named test passed (never a pass)."""
        for scope, key in self.bare_named:
            if self.repeated and self.scoped_named.get((scope, key)) is Outcome.PASSED:
                self.scoped_named[(scope, key)] = Outcome.SKIPPED
            elif not self.repeated and self.named.get(key) is Outcome.PASSED:
                self.named[key] = Outcome.SKIPPED

    def property(self, prop: Node) -> None:
        self.run.property(prop)

    # -- the end ----------------------------------------------------------------------
    def totals(self) -> tuple[Totals, list[FailingTest]]:
        for table, scoped in ((self.named, self.scoped_named),
                              (self.identities, self.scoped_ids)):
            for (_, key), outcome in scoped.items():
                if table is not None:
                    table[key] = combined(table.get(key), outcome)
        passed, skipped, flaky = self.quiet_passed, self.quiet_skipped, self.quiet_flaky
        if not self.repeated:
            self.scopes.close()
            unique = self.scopes.total + self.unnamed
            tests = passed + skipped + self.failures + self.errors - self.suite_errors
            return Totals(tests, passed, self.failures, self.errors, skipped, flaky, unique,
                          self.suite_errors), self.failing
        totals, failing, self.flaky_names = merged_totals(
            self.buckets, self.troubled, Quiet(passed, skipped, flaky, self.coded),
            self.suite_level_keys, self.suite_errors, self.flaky_names,
        )
        return totals, failing

    def time_source(self, mtime: datetime) -> TimeSource:
        return self.run.time_source(mtime)
