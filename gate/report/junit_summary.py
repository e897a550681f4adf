"""What the gate read from JUnit files, for a person (text) or a program (JSON). Pure."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from gate.claim.junit_facts import FailingTest, JUnitFile, JUnitRun, Totals
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import plural

_MAX_TEXT_FAILURES = 100
#: Line breaks and other control characters, shown escaped: a test's name and message are its
#: author's text, and in a GitHub Actions step an output line starting with `::` is a command.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def _shown(lines: Iterable[str]) -> str:
    return "\n".join(_CONTROL.sub(lambda found: repr(found[0])[1:-1], line) for line in lines)


def _counts(totals: Totals) -> str:
    """`tests` is runs (what the frameworks count), `unique` distinct identities."""
    suite_errors = (f" ({totals.suite_errors} outside any testcase)"
                    if totals.suite_errors else "")
    return (
        f"tests {totals.tests} (unique {totals.unique}), passed {totals.passed},"
        f" failures {totals.failures}, errors {totals.errors}{suite_errors},"
        f" skipped {totals.skipped}, flaky {totals.flaky}"
    )


def _mismatch_lines(file: JUnitFile, indent: str) -> list[str]:
    return [
        f"{indent}- COUNTS DISAGREE {m.describe()}"
        + (" (the suite says more failed than the file shows)" if m.hides_failures else "")
        for m in file.mismatches
    ]


def failing_line(test: FailingTest) -> str:
    place = ""
    if test.file is not None:
        place = f" ({test.file}{f':{test.line}' if test.line is not None else ''})"
    attempts = f" after {test.attempts} attempts" if test.attempts > 1 else ""
    message = f": {test.message}" if test.message else ""
    return f"{test.outcome.label.upper()} {test.identity}{attempts}{place}{message}"


def _failing_lines(tests: Iterable[FailingTest], indent: str) -> list[str]:
    listed = list(tests)
    lines = [f"{indent}- {failing_line(test)}" for test in listed[:_MAX_TEXT_FAILURES]]
    if len(listed) > _MAX_TEXT_FAILURES:
        lines.append(f"{indent}- ... and {len(listed) - _MAX_TEXT_FAILURES} more")
    return lines


def _file_text(file: JUnitFile) -> list[str]:
    lines = [
        f"{file.path}: {_counts(file.totals)}",
        f"  time {format_rfc3339(file.time.at)} ({file.time.source}: {file.time.note})",
    ]
    if file.reruns != "separate":
        lines.append(f"  repeated cases counted as reruns (policy junit.reruns: {file.reruns})")
    lines.extend(f"  commit {commit} ({prop})" for prop, commit in file.commits)
    lines.extend(_mismatch_lines(file, "  "))
    lines.extend(_failing_lines(file.failing, "  "))
    lines.extend(f"  - FLAKY {name}" for name in file.flaky[:_MAX_TEXT_FAILURES])
    return lines


def render_junit_text(run: JUnitRun) -> str:
    lines: list[str] = []
    for file in run.files:
        lines.extend(_file_text(file))
    lines.extend(run.notes)
    lines.append(f"total ({plural(len(run.files), 'file')}): {_counts(run.totals)}")
    failing = run.failing
    if failing:
        lines.append(f"failing tests ({len(failing)}):")
        lines.extend(_failing_lines(failing, "  "))
    return _shown(lines) + "\n"


def render_junit_json(run: JUnitRun) -> str:
    document = {
        "files": [
            {
                "path": file.path,
                "sha256": file.sha256,
                "root": file.root,
                "suites": file.suites,
                **file.totals.as_json(),
                "reruns": file.reruns,
                "suite_count_mismatches": [m.as_json() for m in file.mismatches],
                "failing_tests": [test.as_json() for test in file.failing],
                "flaky_tests": list(file.flaky),
                "at": format_rfc3339(file.time.at),
                "time_source": file.time.source,
                "time_note": file.time.note,
                "commits": [list(pair) for pair in file.commits],
            }
            for file in run.files
        ],
        "skipped_files": list(run.notes),
        "total": {
            "files": len(run.files),
            **run.totals.as_json(),
            "failing_tests": [test.identity for test in run.failing],
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_junit_appendix(run: JUnitRun) -> str:
    """The lines `verify` adds to its text output: what the tests said."""
    lines = [f"  junit ({plural(len(run.files), 'file')}): {_counts(run.totals)}"]
    lines.extend(f"  {note}" for note in run.notes)
    for file in run.files:
        lines.extend(f"  - {file.path}: {line.removeprefix('- ')}"
                     for line in _mismatch_lines(file, ""))
    failing = run.failing
    if failing:
        lines.append(f"  failing tests ({len(failing)}):")
        lines.extend(_failing_lines(failing, "  "))
    flaky = [name for file in run.files for name in file.flaky]
    if flaky:
        lines.append(f"  flaky tests ({len(flaky)}, passed on a later attempt):")
        lines.extend(f"  - FLAKY {name}" for name in flaky[:_MAX_TEXT_FAILURES])
    if run.requested:
        status = run.named_status()
        lines.extend(f"  - named test failed: {name}" for name in status.failed)
        lines.extend(f"  - named test did not run: {name}" for name in status.missing)
    return _shown(lines) + "\n"
