"""Writing JUnit XML for tests: junitparser as an independent writer, strings for odd dialects."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite


@dataclass(frozen=True)
class Case:
    name: str
    classname: str = "tests.test_x.TestY"
    result: str = "passed"  # passed | failure | error | skipped
    message: str = ""


@dataclass(frozen=True)
class Suite:
    name: str
    cases: tuple[Case, ...]
    timestamp: str | None = None
    properties: tuple[tuple[str, str], ...] = field(default=())


def write_junit(path: Path, suites: Iterable[Suite]) -> Path:
    """A report as junitparser writes it (the model the project depends on)."""
    document = JUnitXml()
    for spec in suites:
        suite = TestSuite(spec.name)
        if spec.timestamp is not None:
            suite.timestamp = spec.timestamp
        for name, value in spec.properties:
            suite.add_property(name, value)
        for case_spec in spec.cases:
            case = TestCase(case_spec.name, case_spec.classname, 0.25)
            if case_spec.result == "failure":
                case.result = [Failure(case_spec.message or "assert False")]
            elif case_spec.result == "error":
                case.result = [Error(case_spec.message or "RuntimeError")]
            elif case_spec.result == "skipped":
                case.result = [Skipped(case_spec.message or "not today")]
            suite.add_testcase(case)
        document.add_testsuite(suite)
    document.write(str(path))
    return path


def passing(path: Path, timestamp: str | None = None, count: int = 3) -> Path:
    cases = tuple(Case(f"test_{i}") for i in range(count))
    return write_junit(path, [Suite("pytest", cases, timestamp)])


def write_text(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
