"""What the JUnit reader keeps of a result file: totals, failing tests, asked-for names.

Frozen data only; the streaming reader (`junit_reader`) builds it and the evidence
builder (`junit`) and the summary reporter read it. Nothing here grows with the number of
passing tests: a passing test leaves its mark in the totals and nowhere else (unless a
policy or claim named it). The counting rule is in docs/junit.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum

from gate.claim.wording import plural


class Outcome(IntEnum):
    """A test's result; the integer order is the severity order of the counting rule."""

    PASSED = 0
    SKIPPED = 1
    FAILURE = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Totals:
    """Counts of tests. `tests` is runs, as the frameworks count (each `<testcase>`, unless
    the policy says repeated cases are reruns); `unique` is distinct identities within each
    `<testsuite>` element, summed; `suite_errors` is how many of the failures/errors are a
    `<failure>`/`<error>` outside any testcase (failing the run, but not counted in `tests`:
    `passed + failures + errors + skipped == tests + suite_errors`)."""

    tests: int = 0
    passed: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    flaky: int = 0
    unique: int = 0
    suite_errors: int = 0

    def __add__(self, other: Totals) -> Totals:
        return Totals(
            tests=self.tests + other.tests,
            passed=self.passed + other.passed,
            failures=self.failures + other.failures,
            errors=self.errors + other.errors,
            skipped=self.skipped + other.skipped,
            flaky=self.flaky + other.flaky,
            unique=self.unique + other.unique,
            suite_errors=self.suite_errors + other.suite_errors,
        )

    @property
    def executed(self) -> int:
        """Tests that ran (not skipped): zero means the file observed nothing."""
        return self.tests - self.skipped

    def as_json(self) -> dict[str, int]:
        return {
            "tests": self.tests,
            "passed": self.passed,
            "failures": self.failures,
            "errors": self.errors,
            "skipped": self.skipped,
            "flaky": self.flaky,
            "unique": self.unique,
            "suite_errors": self.suite_errors,
        }


@dataclass(frozen=True)
class FailingTest:
    """A test whose final outcome is failure or error, with what annotations need."""

    identity: str
    outcome: Outcome
    suite: str
    classname: str
    name: str
    message: str
    file: str | None = None
    line: int | None = None
    attempts: int = 1

    def as_json(self) -> dict[str, object]:
        record: dict[str, object] = {
            "id": self.identity,
            "outcome": self.outcome.label,
            "suite": self.suite,
            "classname": self.classname,
            "name": self.name,
            "message": self.message,
        }
        if self.file is not None:
            record["file"] = self.file
        if self.line is not None:
            record["line"] = self.line
        if self.attempts > 1:
            record["attempts"] = self.attempts
        return record


@dataclass(frozen=True)
class SuiteMismatch:
    """A suite element whose own tests/failures/errors attributes disagree with the count.

    `stated_failing`/`counted_failing` fold failures and errors together (writers disagree
    on which is which); a suite stating more than was counted hides failures somewhere."""

    element: str  # "testsuite" or "testsuites"
    suite: str
    stated_tests: int | None
    counted_tests: int
    stated_failing: int | None
    counted_failing: int

    @property
    def hides_failures(self) -> bool:
        return self.stated_failing is not None and self.stated_failing > self.counted_failing

    def describe(self) -> str:
        parts = []
        if self.stated_tests is not None and self.stated_tests != self.counted_tests:
            parts.append(f"tests={self.stated_tests} but"
                         f" {plural(self.counted_tests, '<testcase> element')} counted")
        if self.stated_failing is not None and self.stated_failing != self.counted_failing:
            parts.append(f"failures+errors={self.stated_failing} but"
                         f" {plural(self.counted_failing, 'failing element')} counted")
        return f"<{self.element} name={self.suite!r}>: {'; '.join(parts)}"

    def as_json(self) -> dict[str, object]:
        return {
            "element": self.element, "suite": self.suite,
            "stated_tests": self.stated_tests, "counted_tests": self.counted_tests,
            "stated_failures_and_errors": self.stated_failing,
            "counted_failures_and_errors": self.counted_failing,
            "hides_failures": self.hides_failures,
        }


@dataclass(frozen=True)
class TimeSource:
    """When the tests in one file ran, and how the reader knows (said in the evidence)."""

    at: datetime
    source: str  # "timestamp" (a suite timestamp with a zone) or "mtime"
    note: str


@dataclass(frozen=True)
class JUnitFile:
    """One result file as read: the unit of `claim-gate junit` output."""

    path: str
    sha256: str
    root: str
    suites: int
    totals: Totals
    failing: tuple[FailingTest, ...]
    flaky: tuple[str, ...]
    #: identity -> final outcome, only for tests a policy or claim asked for by name.
    named: Mapping[str, Outcome]
    #: requested name -> identities in this file that it matches.
    matches: Mapping[str, tuple[str, ...]]
    time: TimeSource
    #: (property name, commit) pairs found on suites, e.g. ('claim-gate.commit', 'ab12...').
    commits: tuple[tuple[str, str], ...] = ()
    tree_clean: str | None = None
    #: `claim-gate.base_code` values (BASE..HEAD): a run of the head's tests over the base's code.
    base_code: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    #: identity -> final outcome of every test, only when the reader was asked for it.
    identities: Mapping[str, Outcome] | None = None
    identities_complete: bool = True
    #: Suites whose own count attributes disagree with what was counted (capped list).
    mismatches: tuple[SuiteMismatch, ...] = ()
    #: How repeated identities were counted: "separate" or "repeated-cases" (the policy's).
    reruns: str = "separate"
    #: The claim-gate plugin's own judgement of its run, as written into the report
    #: (`claim-gate.producer_modified`; None: the file does not carry it) and its findings.
    plugin_modified: str | None = None
    plugin_findings: tuple[str, ...] = ()
    #: The plugin's word that its run did not finish: collected tests with no result of their
    #: own (`claim-gate.unfinished`) and what ended it early (`claim-gate.interrupted`).
    plugin_unfinished: int = 0
    plugin_interrupted: str | None = None


@dataclass(frozen=True)
class NamedStatus:
    failed: tuple[str, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True)
class JUnitRun:
    """Every file of one test run, and the test names that were asked for."""

    files: tuple[JUnitFile, ...]
    requested: tuple[str, ...] = ()
    #: Files skipped because their root is not JUnit (coverage.xml...), one note each.
    notes: tuple[str, ...] = ()

    @property
    def totals(self) -> Totals:
        total = Totals()
        for file in self.files:
            total = total + file.totals
        return total

    @property
    def failing(self) -> tuple[FailingTest, ...]:
        return tuple(test for file in self.files for test in file.failing)

    def named_status(self) -> NamedStatus:
        """Each requested name: failed (any match failed), missing (none ran), or passed."""
        failed: list[str] = []
        missing: list[str] = []
        for wanted in self.requested:
            outcomes = [
                file.named[key] for file in self.files for key in file.matches.get(wanted, ())
            ]
            if any(outcome >= Outcome.FAILURE for outcome in outcomes):
                failed.append(wanted)
            elif Outcome.PASSED not in outcomes:
                missing.append(wanted)
        return NamedStatus(tuple(failed), tuple(missing))


