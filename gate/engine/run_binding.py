"""A pytest record and the JUnit file its run wrote, named together: the same bytes, or neither.

The plugin's record carries the sha256 of the JUnit report written by the same session
(`x-junit-report`). When the operator names both (`--evidence` and `--junit`) and a JUnit file
of the same name is among the gate's JUnit reading with other bytes, one of the two was
rewritten after the run (a conftest's `pytest_unconfigure`, a later CI step): neither counts.
A JUnit file of another name is another run and is judged on its own. A rule of the engine:
the files' names and digests are what the JUnit item recorded (`x-junit.files`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gate.claim.facts import (
    EVIDENCE_MISMATCH,
    JUNIT_REPORT_FIELD,
    Disqualification,
    EvidenceItem,
    Origin,
)
from gate.engine.test_counts import narrowed


def _file_name(path: str) -> str:
    """The last part of a path written with / or \\ (no filesystem is asked)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _read_files(item: EvidenceItem) -> list[tuple[str, str]]:
    """(path, sha256) of the JUnit files a gate-read JUnit item recorded, if it is one."""
    junit = item.evidence.extensions.get("x-junit")
    if item.origin is not Origin.GATE or not isinstance(junit, dict):
        return []
    files = junit.get("files")
    if not isinstance(files, list):
        return []
    return [(f["path"], f["sha256"]) for f in files if isinstance(f, dict)
            and isinstance(f.get("path"), str) and isinstance(f.get("sha256"), str)]


def _mismatch(record: EvidenceItem, files: Sequence[tuple[str, str]]) -> Disqualification | None:
    report = record.evidence.extensions.get(JUNIT_REPORT_FIELD)
    if not isinstance(report, dict):
        return None
    path, sha256 = report.get("path"), report.get("sha256")
    if not isinstance(path, str) or not isinstance(sha256, str):
        return None
    name = _file_name(path)
    same_name = [(p, s) for p, s in files if _file_name(p) == name]
    if not same_name or any(s == sha256 for _, s in same_name):
        return None
    return Disqualification(
        EVIDENCE_MISMATCH,
        f"{record.source} says its run wrote {path} with sha256 {sha256[:16]}…, but"
        f" {same_name[0][0]} has sha256 {same_name[0][1][:16]}…: the JUnit file or the"
        " record was rewritten after the run, so neither is the run's account",
    )


def _narrowed_run(
    record: EvidenceItem, files: Sequence[tuple[str, str]]
) -> Disqualification | None:
    """The JUnit file of a run whose record says its selection narrowed it is that same
    narrowed run: a subset of the suite, whichever file says so."""
    report = record.evidence.extensions.get(JUNIT_REPORT_FIELD)
    problem = narrowed(record.evidence.extensions)
    if problem is None or not isinstance(report, dict):
        return None
    path, sha256 = report.get("path"), report.get("sha256")
    if not isinstance(path, str) or (_file_name(path), sha256) not in {
            (_file_name(p), s) for p, s in files}:
        return None
    return Disqualification(problem.code, f"{record.source} ran {path}: {problem.message}")


def bind_records_to_junit(items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """Each operator record and each JUnit reading, disqualified when a record and the JUnit
    file of its own run disagree, or when the record says the run was narrowed (a
    disqualification already there is kept: it came first)."""
    readings = [(i, _read_files(item)) for i, item in enumerate(items)]
    readings = [(i, files) for i, files in readings if files]
    bound = list(items)
    for index, item in enumerate(items):
        if item.origin is not Origin.OPERATOR:
            continue
        for junit_index, files in readings:
            subset = _narrowed_run(item, files)
            if subset is not None and bound[junit_index].disqualified is None:
                bound[junit_index] = replace(bound[junit_index], disqualified=subset)
            found = _mismatch(item, files)
            if found is None:
                continue
            if bound[index].disqualified is None:
                bound[index] = replace(bound[index], disqualified=found)
            if bound[junit_index].disqualified is None:
                bound[junit_index] = replace(bound[junit_index], disqualified=found)
    return bound
