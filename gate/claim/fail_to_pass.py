"""Fail-to-pass: tests that fail on the code before the change and pass after it.

A green run shows the tests passed after the change; it cannot show they test it (a test that
asserts nothing passes too). The head's own tests run a second time over the base's code
(`claim-gate base-code`: every changed file that is not a test is put back as it was at the
merge base, files the change added are removed, test files stay as at the head); a test that
fails there and passes on the head exercises what the change did. This module holds the
owner's setting, the test-path globs, the pure plan of what to restore, and the fact the
collector records; the engine (`gate/engine/fail_to_pass.py`) judges it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.claim.errors import InvalidInput
from gate.claim.test_job import BASE_CODE_PROPERTY as BASE_CODE_PROPERTY
from gate.claim.test_job import MARKER_PATH as MARKER_PATH

if TYPE_CHECKING:  # facts.py holds the comparison; the item type is only named here
    from gate.claim.facts import EvidenceItem

MODE_SECTION = "fail_to_pass"
PATHS_SECTION = "test_paths"
SECTIONS = frozenset({MODE_SECTION, PATHS_SECTION})


class FailToPass(StrEnum):
    OFF = "off"  # not looked at
    REPORT = "report"  # listed on the check; never changes the verdict (default)
    REQUIRE = "require"  # a code change needs at least one fail-to-pass test


#: Which changed files are tests, when the policy names none (`*` crosses `/`, as fnmatch).
DEFAULT_TEST_PATHS = (
    # Python
    "test_*.py", "*/test_*.py", "*_test.py", "tests/*", "*/tests/*", "test/*", "*/test/*",
    "conftest.py", "*/conftest.py",
    # JavaScript / TypeScript
    "*.test.js", "*.test.jsx", "*.test.ts", "*.test.tsx", "*.test.mjs", "*.test.cjs",
    "*.spec.js", "*.spec.jsx", "*.spec.ts", "*.spec.tsx", "*.spec.mjs", "*.spec.cjs",
    "__tests__/*", "*/__tests__/*",
    # Go, Java
    "*_test.go", "src/test/*", "*/src/test/*", "*Test.java", "*Tests.java",
)


@dataclass(frozen=True)
class FailToPassPolicy:
    mode: FailToPass = FailToPass.REPORT
    test_paths: tuple[str, ...] = DEFAULT_TEST_PATHS

    def is_test(self, path: str) -> bool:
        return any(fnmatchcase(path, glob) for glob in self.test_paths)


def parse_fail_to_pass(raw: dict[str, Any], source: str) -> FailToPassPolicy:
    """The `fail_to_pass` (off | report | require) and `test_paths` sections."""
    mode = raw.get(MODE_SECTION, FailToPass.REPORT.value)
    if mode not in {m.value for m in FailToPass}:
        raise InvalidInput(source, None, f"/{MODE_SECTION}: {mode!r} is not off, report or"
                           " require")
    paths = raw.get(PATHS_SECTION, list(DEFAULT_TEST_PATHS))
    if not isinstance(paths, list) or not paths or not all(
            isinstance(p, str) and p.strip() for p in paths):
        raise InvalidInput(source, None, f"/{PATHS_SECTION} must be a non-empty list of globs",
                           "e.g. ['tests/*', '*_test.go']")
    return FailToPassPolicy(FailToPass(mode), tuple(p.strip() for p in paths))


@dataclass(frozen=True)
class BaseCodePlan:
    """What turns the head's checkout into "the head's tests over the base's code"."""

    restore: tuple[str, ...]  # non-test paths put back as at the base (modified or deleted)
    remove: tuple[str, ...]  # non-test paths the change added
    tests: tuple[str, ...]  # changed test paths, kept as at the head


def plan_base_code(changes: Sequence[ChangedPath], policy: FailToPassPolicy) -> BaseCodePlan:
    """Pure: a rename is its old path restored and its new path removed (unless a test)."""
    restore: set[str] = set()
    remove: set[str] = set()
    tests: set[str] = set()
    for change in changes:
        if change.status is ChangeStatus.RENAMED and change.old_path is not None:
            old, new = change.old_path, change.path
            (tests if policy.is_test(old) else restore).add(old)
            (tests if policy.is_test(new) else remove).add(new)
        elif policy.is_test(change.path):
            tests.add(change.path)
        elif change.status in (ChangeStatus.ADDED, ChangeStatus.COPIED):
            remove.add(change.path)
        else:
            restore.add(change.path)
    return BaseCodePlan(tuple(sorted(restore)), tuple(sorted(remove)), tuple(sorted(tests)))


@dataclass(frozen=True)
class BaseCodeComparison:
    """The head's run against the same tests over the base's code, test by test."""

    source: str  # the files read, for a reviewer
    fail_to_pass: tuple[str, ...] = ()  # failed over the base's code, passed on the head
    regressions: tuple[str, ...] = ()  # passed over the base's code, failed on the head
    passed_on_both: int = 0
    #: (base SHA, head SHA) the run's property binds it to, as the plugin recorded them.
    bound_to: tuple[str, str] | None = None
    #: Why the run cannot count: not bound to this head, not comparable, too many tests.
    problem: str | None = None
    #: The CI runs it was read from (GitHub: one item per base-code artifact, with its run's
    #: producer and binding): the engine judges each as it judges any CI item, and a run the
    #: PR could reach, or not bound to the subject, makes the comparison not count.
    runs: tuple[EvidenceItem, ...] = ()
    #: When it ran: its CI run's start (GitHub's clock), else its files' earliest time.
    at: datetime | None = None
