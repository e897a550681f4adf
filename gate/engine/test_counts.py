"""What a `test_run` says is the gate's reading of its counts, never the record's own word.

A record's `expected` is written by whoever wrote the record, so it cannot decide whether the
run passed: a run whose counts show failures or errors contradicts the claim whatever its
`expected` says (`{"failures": 3}` is not a pass), a "test run" without integer `tests` and
`failures` is no test run, one that executed nothing is absence, one whose session stopped
early (exit status 2-4, or ended by `pytest.exit` whatever status it asked for) or whose
collected tests did not all report a result did not run every test, one whose job exited
non-zero with no failure in its report lost something (a test file that failed to load), and
one whose selection narrowed the suite (`x-selection`: -k, -m, --deselect, --lf, --sw;
`x-test-paths` naming single tests) is not the suite's result. A run whose own counts show
failures contradicts the claim whatever else is wrong with it (attributes that disagree with
its elements, a narrowed selection, an early stop): a failure that ran is an observation, and
none of these makes it a pass. These rules apply to every producer: the pytest plugin, any
other record, and the JUnit files the gate read itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.claim.model import JSON, CheckType, Evidence
from gate.claim.test_job import INTERRUPTED_FIELD
from gate.claim.wording import plural
from gate.engine.results import Problem

NO_TESTS = "no_tests"
INCOMPLETE_RUN = "incomplete_run"
NO_TEST_COUNTS = "no_test_counts"
NARROWED_SELECTION = "narrowed_selection"
FAILED_EXIT = "failed_exit_status"

#: Where the pytest plugin records what narrowed the run, and the paths it was given.
SELECTION_FIELD = "x-selection"
#: Of the selection, the options the committed ini file's addopts gave (and which file): the
#: project's own definition of its suite; an edit to that file is the evidence chain's rule.
CONFIGURED_FIELD = "x-selection-configured"
TEST_PATHS_FIELD = "x-test-paths"
#: How many unfinished tests a message names.
_NAMED = 5

#: pytest exit codes of a session that did not run its tests to the end: interrupted,
#: internal error, usage error. Other runners that report an exit status use the same small
#: numbers for the same troubles, and none uses them for "all ran".
_INCOMPLETE_EXIT = {2: "was interrupted", 3: "hit an internal error", 4: "was misused"}
#: Counts that say a test did not pass.
_FAILING_KEYS = ("failures", "errors")
#: Selection options that only reorder the suite (`--ff` runs every test, failed first).
_REORDERING = frozenset({"failedfirst"})


def _count(value: JSON | None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def count_problem(evidence: Evidence) -> Problem | None:
    """Why this test_run's own counts or selection say it is not a run of the suite."""
    if evidence.check_type is not CheckType.TEST_RUN:
        return None
    observed = evidence.observed_value
    if not isinstance(observed, dict) or _count(observed.get("tests")) is None \
            or _count(observed.get("failures")) is None:
        return Problem(
            NO_TEST_COUNTS,
            "the test_run has no test counts (integer `tests` and `failures` in its observed"
            " value): a run that does not say what ran and what failed is no test run",
        )
    if shows_failures(evidence):
        return None  # the failures it shows stand, whether or not every test ran
    unfinished = unfinished_run(observed, evidence.extensions)
    if unfinished is not None:
        return unfinished
    tests = _count(observed.get("tests")) or 0
    skipped = _count(observed.get("skipped")) or 0
    if tests - skipped <= 0:
        return Problem(
            NO_TESTS,
            f"the test run executed no test ({tests} collected, {skipped} skipped): absence is"
            " unverified, never a pass",
        )
    status = _count(observed.get("exit_status"))
    if status is not None and status in _INCOMPLETE_EXIT:
        return Problem(
            INCOMPLETE_RUN,
            f"the test session {_INCOMPLETE_EXIT[status]} (exit status {status}), so not"
            " every test ran; run the whole suite again",
        )
    if status is not None and status != 0:
        return Problem(
            FAILED_EXIT,
            f"the test job exited {status} but its report shows no failing test: a test file"
            " that failed to load, or a crash, can leave only the passing cases in the report"
            " (jest-junit writes such a file only with JEST_JUNIT_REPORT_TEST_SUITE_ERRORS=true)",
        )
    return narrowed(evidence.extensions)


def unfinished_run(observed: Mapping[str, JSON], extensions: Mapping[str, JSON]) -> Problem | None:
    """A run that did not run to its end: its session was ended early (`interrupted`: by
    `pytest.exit`, whatever status it asked for, an interrupt, `session.shouldstop`), or
    collected tests have no result of their own (`collected` against the results, and the
    `unfinished` tests the producer named)."""
    if observed.get("interrupted") is True:
        by = extensions.get(INTERRUPTED_FIELD)
        what = by if isinstance(by, str) else "an interrupt"
        return Problem(
            INCOMPLETE_RUN,
            f"the test session was ended before its end ({what}): whatever status it exits"
            " with, a session that stops early did not run every test; remove the early exit"
            " and run the whole suite again",
        )
    collected = _count(observed.get("collected"))
    results = _count(observed.get("tests")) or 0
    missing = max(_count(observed.get("unfinished")) or 0,
                  (collected - results) if collected is not None else 0)
    if missing <= 0:
        return None
    names = observed.get("unfinished_tests")
    named = [n for n in names if isinstance(n, str)][:_NAMED] if isinstance(names, list) else []
    shown = f": {', '.join(named)}" + (" and more" if missing > len(named) else "") \
        if named else ""
    total = collected if collected is not None else results + missing
    return Problem(
        INCOMPLETE_RUN,
        f"{missing} of {plural(total, 'collected test')} did not finish with a result{shown}:"
        " a test passes only with its call report, and a run counts only when every"
        " collected test reported; run the whole suite again",
    )


#: What a collector may say of a run that its own failures still outweigh: the report's
#: attributes disagree with its elements, it ran a subset, it stopped early. A failure that
#: ran is an observation; none of these makes it a pass or hides it.
FAILURES_STAND = frozenset({"count_mismatch", NARROWED_SELECTION, INCOMPLETE_RUN})


def failures_stand(code: str, evidence: Evidence) -> bool:
    """Whether the run's own counted failures refute despite this problem (`code`)."""
    return code in FAILURES_STAND and shows_failures(evidence)


def shows_failures(evidence: Evidence) -> bool:
    """A test_run whose own counts show a failure or an error."""
    observed = evidence.observed_value
    return evidence.check_type is CheckType.TEST_RUN and isinstance(observed, dict) \
        and any((_count(observed.get(key)) or 0) > 0 for key in _FAILING_KEYS)


def narrowed(extensions: Mapping[str, JSON]) -> Problem | None:
    """A run whose selection left tests out is a subset, never the suite's result."""
    selection = extensions.get(SELECTION_FIELD)
    configured = extensions.get(CONFIGURED_FIELD)
    suite = set(configured) if isinstance(configured, dict) else set()
    narrowing = sorted(
        key for key, value in selection.items()
        if value and key not in _REORDERING and key not in suite
    ) if isinstance(selection, dict) else []
    paths = extensions.get(TEST_PATHS_FIELD)
    single = [p for p in paths if isinstance(p, str) and "::" in p] \
        if isinstance(paths, list) else []
    if not narrowing and not single:
        return None
    what = [f"{key}={selection[key]!r}" for key in narrowing if isinstance(selection, dict)]
    what += [f"test id {p!r}" for p in single[:3]]
    return Problem(
        NARROWED_SELECTION,
        f"the run was narrowed ({', '.join(what)}), so it is a subset of the suite, not its"
        " result; run the whole suite without -k, -m, --deselect, --lf or test ids (in the"
        " command line or in addopts)",
    )


def count_contradictions(evidence: Evidence) -> tuple[str, ...]:
    """Failures and errors in a test_run's own counts, where its `expected` does not already
    say they contradict: a failing run contradicts the claim whatever `expected` says."""
    observed = evidence.observed_value
    if evidence.check_type is not CheckType.TEST_RUN or not isinstance(observed, dict):
        return ()
    expected = evidence.expected if isinstance(evidence.expected, dict) else {}
    found = []
    for key in _FAILING_KEYS:
        count = _count(observed.get(key)) or 0
        if count > 0 and _count(expected.get(key)) != 0:
            found.append(
                f"{key}: the run's own counts show {count} (a test run passes only with none,"
                f" whatever its expected {_shown(expected.get(key))} says)"
            )
    return tuple(found)


def _shown(value: JSON | None) -> str:
    return "(none)" if value is None else repr(value)
