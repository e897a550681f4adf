"""The pytest plugin's logic without pytest: tallying outcomes, reading git, building the record.

The plugin (`gate/pytest_plugin.py`) only feeds hook arguments in here, so everything that
decides what the evidence says is a pure function tested on its own. This module must stay
cheap to import: pytest imports the plugin in every session of every project that has
claim-gate installed, whether or not `--claim-evidence` is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum
from typing import Any

from gate.claim.commit import normalise_sha
from gate.claim.test_job import INTERRUPTED_FIELD, JUNIT_REPORT_FIELD
from gate.claim.timefmt import format_rfc3339
from gate.evidence.producer_inventory import INVENTORY_FIELD, describe

#: CI variables holding the commit under test, in the order they are tried when there is no git.
COMMIT_VARIABLES = ("GITHUB_SHA", "CI_COMMIT_SHA", "GIT_COMMIT", "CIRCLE_SHA1", "BUILDKITE_COMMIT")

#: A record must stay far below the gate's 1 MiB evidence-file cap, however many tests fail.
MAX_LISTED_TESTS = 100
MAX_NODE_ID_CHARS = 500
MAX_LISTED_DIRTY_PATHS = 20

MAX_INVENTORY_PROPERTIES = 50

#: What a passing run looks like; the observed totals use the JUnit reader's keys.
EXPECTED = {"failures": 0, "errors": 0}

class Outcome(IntEnum):
    """A test's result, ordered by severity: the most severe phase decides."""

    PASSED = 0
    SKIPPED = 1
    FAILED = 2
    ERROR = 3


def phase_outcome(when: str, outcome: str) -> Outcome:
    """One report phase as pytest's JUnit writer sees it.

    A failure in `call` is a failure; in setup or teardown it is an error. pytest reports
    an xfail as skipped (the test did not show the code works), a non-strict xpass as
    passed and a strict xpass as failed; we keep its word.
    """
    if outcome == "failed":
        return Outcome.FAILED if when == "call" else Outcome.ERROR
    if outcome == "skipped":
        return Outcome.SKIPPED
    return Outcome.PASSED


#: `phase_outcome` worked out once for pytest's own phases and outcomes: the tally reads it
#: for every report of the session (an enum member read is slow on some Pythons).
_PHASES = {(when, outcome): phase_outcome(when, outcome)
           for when in ("setup", "call", "teardown") for outcome in ("passed", "failed", "skipped")}


@dataclass(frozen=True)
class Totals:
    """What ran, with the keys of the JUnit reader's `observed_value`."""

    tests: int
    passed: int
    failures: int
    errors: int
    skipped: int
    flaky: int
    failed_tests: tuple[str, ...]
    errored_tests: tuple[str, ...]
    #: Tests the session collected after deselection; None: collection was never reported.
    collected: int | None = None
    #: Collected tests with no result of their own: never run, or the session ended while
    #: they ran (no teardown report); a failing one is not among them, its failure stands.
    unfinished: int = 0
    unfinished_tests: tuple[str, ...] = ()
    #: Tests with a `rerun` attempt (pytest-rerunfailures): pytest's JUnit writer gives each
    #: attempt a `<testcase>` of its own, the test's last one its result.
    rerun_tests: int = 0

    @property
    def executed(self) -> int:
        return self.tests - self.skipped


#: Reports the tally holds before counting them (`Tally.add`).
SETTLE_EVERY = 4096


class Tally:
    """Outcomes by node id. One per session, owned by the plugin object (no global state).

    A node id seen again after a `rerun` report is another attempt of the same test: the
    last attempt decides and the test is flagged flaky (pytest-rerunfailures). A test passes
    only with a `call` report: one whose session ended after its setup did not pass, it did
    not run; and a test is finished only with its teardown report.
    """

    def __init__(self) -> None:
        self._outcomes: dict[str, Outcome] = {}
        self._flaky: set[str] = set()
        self._rerun: set[str] = set()
        self._called: set[str] = set()
        self._finished: set[str] = set()
        self._collected: dict[str, None] | None = None
        #: Held reports as (node id, phase, outcome) laid end to end: strings only, so the
        #: thousands held between counts are no work for the cyclic collector (a tuple each
        #: would be, and would live long enough to be promoted and walked again).
        self._pending: list[str] = []

    def collected(self, nodeids: Iterable[str]) -> None:
        """The tests the session will run (after deselection); xdist workers each say theirs."""
        self._collected = {**(self._collected or {}), **dict.fromkeys(nodeids)}

    def add(self, nodeid: str, when: str, outcome: str) -> None:
        """One logged report, counted in order with the others before anything reads the
        tally (or once SETTLE_EVERY are held): inside a session each report then costs one
        extend of the held list, and the counting runs in a loop whose tables stay in the
        CPU's caches."""
        pending = self._pending
        pending += (nodeid, when, outcome)
        if len(pending) >= 3 * SETTLE_EVERY:
            self._settle()

    def _settle(self) -> None:
        held = iter(self._pending)
        for nodeid, when, outcome in zip(held, held, held, strict=True):
            self._count(nodeid, when, outcome)
        self._pending.clear()

    def _count(self, nodeid: str, when: str, outcome: str) -> None:
        if outcome == "rerun":
            self._flaky.add(nodeid)
            self._rerun.add(nodeid)
            self._called.discard(nodeid)
            self._finished.discard(nodeid)
            return
        if when == "call":
            self._called.add(nodeid)
        elif when == "teardown":
            self._finished.add(nodeid)
        try:
            result = _PHASES[(when, outcome)]
        except (KeyError, TypeError):  # another outcome (a plugin's), or not a string at all
            result = phase_outcome(when, outcome)
        if nodeid in self._rerun:
            self._rerun.discard(nodeid)
            self._outcomes[nodeid] = result
            return
        previous = self._outcomes.get(nodeid)
        if previous is None or result > previous:
            self._outcomes[nodeid] = result

    def add_collection_error(self, nodeid: str) -> None:
        """A module that failed to import: an error, as in pytest's own JUnit report."""
        self._settle()
        node = nodeid or "<collection>"
        self._outcomes[node] = Outcome.ERROR
        self._finished.add(node)

    def _results(self) -> dict[str, Outcome]:
        """Each test with a result: a pass needs its call report (setup alone ran nothing)."""
        return {node: outcome for node, outcome in self._outcomes.items()
                if outcome is not Outcome.PASSED or node in self._called}

    def _unfinished(self, results: Mapping[str, Outcome]) -> list[str]:
        """Collected or started tests with no finished result; failing ones stand as they are."""
        nodes = dict.fromkeys([*(self._collected or {}), *self._outcomes])
        return [node for node in nodes if node not in self._finished
                and results.get(node) not in (Outcome.FAILED, Outcome.ERROR)]

    def totals(self) -> Totals:
        self._settle()
        results = self._results()
        counts = dict.fromkeys(Outcome, 0)
        for outcome in results.values():
            counts[outcome] += 1
        unfinished = self._unfinished(results)
        return Totals(
            tests=len(results),
            passed=counts[Outcome.PASSED],
            failures=counts[Outcome.FAILED],
            errors=counts[Outcome.ERROR],
            skipped=counts[Outcome.SKIPPED],
            flaky=sum(1 for node in self._flaky if results.get(node) is Outcome.PASSED),
            failed_tests=_listed(results, Outcome.FAILED),
            errored_tests=_listed(results, Outcome.ERROR),
            collected=None if self._collected is None else len(self._collected),
            unfinished=len(unfinished),
            unfinished_tests=tuple(_clip(node) for node in unfinished[:MAX_LISTED_TESTS]),
            rerun_tests=len(self._flaky),
        )


def _listed(results: Mapping[str, Outcome], wanted: Outcome) -> tuple[str, ...]:
    found = (node for node, outcome in results.items() if outcome is wanted)
    return tuple(_clip(node) for _, node in zip(range(MAX_LISTED_TESTS), found, strict=False))


def _clip(text: str, limit: int = MAX_NODE_ID_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class TreeState:
    """The commit a session runs on and whether the checkout matches it."""

    commit: str | None
    source: str | None  # "git", "env:GITHUB_SHA", ... or None when unknown
    clean: bool | None  # None: no git to ask (a CI variable named the commit)
    dirty_paths: tuple[str, ...] = ()
    problem: str | None = None  # why the commit is unknown, for the record's reader
    #: The git directory the probe's git read (not recorded): the settings check at session
    #: end reads that repository's files without asking git for it again.
    git_dir: str | None = field(default=None, compare=False)


def commit_from_environment(environ: Mapping[str, str]) -> TreeState:
    """The CI's commit variable, for checkouts without `.git` (tarballs, shallow exports)."""
    for name in COMMIT_VARIABLES:
        sha = normalise_sha(environ.get(name))
        if sha is not None:
            return TreeState(sha, f"env:{name}", None)
    return TreeState(None, None, None, problem="no git repository and no CI commit variable")


def porcelain_paths(output: bytes) -> tuple[str, ...]:
    """Paths in `git status --porcelain -z` output (both sides of a rename)."""
    entries = output.split(b"\0")
    paths: list[str] = []
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        paths.append(path.decode("utf-8", "surrogateescape"))
        if b"R" in status or b"C" in status:
            if index < len(entries) and entries[index]:
                paths.append(entries[index].decode("utf-8", "surrogateescape"))
            index += 1
    return tuple(paths)


def dirty_paths(output: bytes, ignored: Iterable[str]) -> tuple[str, ...]:
    """What makes the tree dirty, leaving out the session's own outputs and bytecode caches.

    `ignored` are repository-relative paths of the evidence file and JUnit report: writing
    them must not make the next run dirty. Files under `__pycache__/` are derived from
    sources that git does see, and Python ignores one whose source is gone.
    """
    skip = set(ignored)
    return tuple(
        path
        for path in dict.fromkeys(porcelain_paths(output))
        if path not in skip and "__pycache__/" not in f"/{path}"
    )


@dataclass(frozen=True)
class SessionFacts:
    """Everything the record states, gathered by the plugin."""

    started_at: datetime
    finished_at: datetime
    totals: Totals
    tree: TreeState
    exit_status: int
    pytest_version: str
    plugin_version: str
    python_version: str
    test_paths: Sequence[str] = field(default_factory=tuple)
    selection: Mapping[str, Any] = field(default_factory=dict)
    #: The selection options the committed ini file gave, and where (`pytest_selection`).
    configured: Mapping[str, str] = field(default_factory=dict)
    workers: int = 0
    #: What could have rewritten results (`producer_inventory`), sealed; None: not watched.
    inventory: Mapping[str, Any] | None = None
    #: The JUnit file the same run wrote: path, sha256 and its totals as the gate reads them.
    junit_report: Mapping[str, Any] | None = None
    #: What ended the session before its end (`pytest.exit`, Ctrl-C, `session.shouldstop`);
    #: None: it ran to its end. Whatever status it then exits with, not every test ran.
    interrupted: str | None = None


def interruption(error: BaseException) -> str:
    """What ended a session early, for the record: `pytest.exit` with its message and the
    status it asked for, or the interrupt's type and message."""
    returncode = getattr(error, "returncode", None)
    message = str(getattr(error, "msg", None) or error)
    kind = "pytest.exit" if returncode is not None or hasattr(error, "msg") else type(
        error).__name__
    asked = f" (returncode={returncode!r})" if returncode is not None else ""
    return _clip(f"{kind}: {message}{asked}" if message else f"{kind}{asked}", 300)


def verifier_id(plugin_version: str) -> str:
    return f"claim-gate/pytest@{plugin_version}"


def build_record(facts: SessionFacts) -> dict[str, Any]:
    """One `test_run` evidence record (the shipped schema's `#/$defs/evidence`).

    `at` is when the session started: a file edited after that may or may not have been
    tested, so rule 2 must compare against the start. `covers` is empty: the gate assigns
    the claim's code-change mutations, as it does for JUnit evidence.
    """
    totals = facts.totals
    tree = facts.tree
    record: dict[str, Any] = {
        "check_type": "test_run",
        "expected": dict(EXPECTED),
        "observed_value": {
            "tests": totals.tests,
            "passed": totals.passed,
            "failures": totals.failures,
            "errors": totals.errors,
            "skipped": totals.skipped,
            "flaky": totals.flaky,
            "failed_tests": list(totals.failed_tests),
            "errored_tests": list(totals.errored_tests),
            "exit_status": facts.exit_status,
            **({} if totals.collected is None else {"collected": totals.collected}),
            "unfinished": totals.unfinished,
            "unfinished_tests": list(totals.unfinished_tests),
            "interrupted": facts.interrupted is not None,
        },
        "at": format_rfc3339(facts.started_at),
        "covers": [],
        "verifier": {"id": verifier_id(facts.plugin_version), "kind": "independent"},
        "x-finished-at": format_rfc3339(facts.finished_at),
        "x-commit": tree.commit,
        "x-commit-source": tree.source,
        "x-tree-clean": tree.clean,
        "x-pytest-version": facts.pytest_version,
        "x-plugin-version": facts.plugin_version,
        "x-python-version": facts.python_version,
        "x-test-paths": [_clip(path) for path in facts.test_paths[:50]],
    }
    if facts.selection:
        # What narrowed the run (-k, -m, --deselect, --lf): a reviewer should see a subset.
        # The full command line is not recorded: options may carry secrets.
        record["x-selection"] = dict(facts.selection)
    if facts.configured:
        # Of those, the ones the project's own ini file gave: its definition of the suite.
        record["x-selection-configured"] = dict(facts.configured)
    if tree.dirty_paths:
        record["x-dirty-paths"] = [_clip(p) for p in tree.dirty_paths[:MAX_LISTED_DIRTY_PATHS]]
    if tree.problem:
        record["x-commit-problem"] = tree.problem
    if facts.workers:
        record["x-xdist-workers"] = facts.workers
    if facts.interrupted is not None:
        record[INTERRUPTED_FIELD] = _clip(facts.interrupted)
    if facts.inventory is not None:
        record[INVENTORY_FIELD] = dict(facts.inventory)
    if facts.junit_report is not None:
        record[JUNIT_REPORT_FIELD] = dict(facts.junit_report)
    return record


def junit_properties(tree: TreeState, started_at: datetime) -> tuple[tuple[str, str], ...]:
    """The binding as `<property>`s of the JUnit report, for the gate's JUnit reader."""
    clean = "unknown" if tree.clean is None else str(tree.clean).lower()
    return (
        ("claim-gate.commit", tree.commit or "unknown"),
        ("claim-gate.tree_clean", clean),
        ("claim-gate.started_at", format_rfc3339(started_at)),
    )


def completion_properties(totals: Totals,
                          interrupted: str | None) -> tuple[tuple[str, str], ...]:
    """Whether the run finished, as `<property>`s of its JUnit report: the JUnit file alone
    (the Action reads only that) must not pass for a whole run when the record would not."""
    return (
        ("claim-gate.unfinished", str(totals.unfinished)),
        ("claim-gate.interrupted", _clip(interrupted, 300) if interrupted else "false"),
    )


def inventory_properties(inventory: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The inventory's judgement as `<property>`s of the same run's JUnit report: whether
    something from the repository could rewrite results, each finding, the digest of the
    whole inventory (in the record) and every conftest with its sha256."""
    findings = list(inventory.get("findings") or [])
    properties = [
        ("claim-gate.producer_modified", "true" if findings else "false"),
        ("claim-gate.inventory_digest", str(inventory.get("digest"))),
    ]
    properties += [("claim-gate.finding", describe([f])) for f in findings]
    properties += [
        ("claim-gate.conftest", f"{c.get('path')} sha256:{c.get('sha256')}")
        for c in inventory.get("conftests") or []
    ]
    config = inventory.get("config") or {}
    if config.get("inifile"):
        properties.append(
            ("claim-gate.inifile", f"{config['inifile']} sha256:{config.get('inifile_sha256')}")
        )
    return tuple(properties[:MAX_INVENTORY_PROPERTIES])
