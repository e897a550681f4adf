"""A pytest record and the JUnit file its run wrote, named together: the same bytes, or neither.

The plugin's record carries the sha256 of the JUnit report written by the same session
(`x-junit-report`). When the operator names both (`--test-evidence` and `--junit`) and a JUnit file
of the same name is among the gate's JUnit reading with other bytes, one of the two was
rewritten after the run (a conftest's `pytest_unconfigure`, a later CI step): neither counts.
A JUnit file of another name is another run and is judged on its own. A rule of the engine:
the files' names and digests are what the JUnit item recorded (`x-junit.files`).

One run, one verdict: when a record does not count (the plugin saw a patched internal, the run
ended early, the tree was dirty), the JUnit file that run wrote (the same sha256) does not
count either, for the same reason. And once the operator hands records on, a JUnit file the
plugin marked as its run's (`claim-gate.producer_modified` among its properties) counts only
together with a record of that run that counts: deleting the record leaves the report alone.
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
from gate.engine.test_counts import count_problem, narrowed

#: Record files handed on by name: the operator's (`--evidence`) and the test job's.
_RECORDS = frozenset({Origin.OPERATOR, Origin.TEST_JOB})


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


def _same_run(record: EvidenceItem, files: Sequence[tuple[str, str]]) -> bool:
    report = record.evidence.extensions.get(JUNIT_REPORT_FIELD)
    sha256 = report.get("sha256") if isinstance(report, dict) else None
    return isinstance(sha256, str) and any(s == sha256 for _, s in files)


def _why_not(record: EvidenceItem) -> Disqualification | None:
    """Why a record of a run does not count (its own disqualification, or its counts say the
    run was incomplete), as the reason for the same run's JUnit file."""
    why = record.disqualified
    if why is None:
        problem = count_problem(record.evidence)
        why = None if problem is None else Disqualification(problem.code, problem.message)
    if why is None:
        return None
    return Disqualification(why.code, f"it is the report of the same run as {record.source}"
                                      f" (the same sha256), which does not count: {why.message}")


def _plugin_files(item: EvidenceItem) -> list[str]:
    """The files of a JUnit item the plugin marked as written by its own run."""
    junit = item.evidence.extensions.get("x-junit")
    files = junit.get("files") if isinstance(junit, dict) else None
    return [str(f.get("path")) for f in files or [] if isinstance(f, dict)
            and f.get("plugin_run") is True] if isinstance(files, list) else []


def _one_run_one_verdict(items: Sequence[EvidenceItem],
                         bound: list[EvidenceItem]) -> list[EvidenceItem]:
    """A record that does not count takes the JUnit file of its run with it; with records
    handed on, a plugin-marked JUnit file needs a counting record of its own run."""
    records = [item for item in bound if item.origin in _RECORDS
               and item.evidence.extensions.get(JUNIT_REPORT_FIELD) is not None]
    for index, item in enumerate(items):
        files = _read_files(item)
        if not files or bound[index].disqualified is not None:
            continue
        mine = [r for r in records if _same_run(r, files)]
        fallen = next((why for why in map(_why_not, mine) if why is not None), None)
        if fallen is not None:
            bound[index] = replace(bound[index], disqualified=fallen)
        elif records and not mine and _plugin_files(item):
            bound[index] = replace(bound[index], disqualified=Disqualification(
                "unbound_report",
                f"{', '.join(_plugin_files(item)[:3])} was written by a run of the claim-gate"
                " plugin, but none of the records handed on is that run's (no record names"
                " its sha256 in x-junit-report): a report counts only together with the"
                " record of its own run"))
    return bound


def bind_records_to_junit(items: Sequence[EvidenceItem]) -> list[EvidenceItem]:
    """Each operator record and each JUnit reading, disqualified when a record and the JUnit
    file of its own run disagree, or when the record says the run was narrowed (a
    disqualification already there is kept: it came first)."""
    readings = [(i, _read_files(item)) for i, item in enumerate(items)]
    readings = [(i, files) for i, files in readings if files]
    bound = list(items)
    for index, item in enumerate(items):
        if item.origin not in _RECORDS:
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
    return _one_run_one_verdict(items, bound)
