"""A pytest record and the JUnit file its run wrote, named together: the same bytes, or neither.

The plugin's record carries the sha256 of the JUnit report written by the same session
(`x-junit-report`). When the operator names both (`--evidence` and `--junit`) and a JUnit file
of the same name is among them with other bytes, one of the two was rewritten after the run
(a conftest's `pytest_unconfigure`, a later CI step): neither counts. A JUnit file of another
name is another run and is judged on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from gate.evidence.interface import Disqualification, EvidenceItem
from gate.evidence.junit import JUnitRun
from gate.evidence.operator_records import EVIDENCE_MISMATCH, JUNIT_REPORT_FIELD


def _mismatch(item: EvidenceItem, run: JUnitRun) -> Disqualification | None:
    report = item.evidence.extensions.get(JUNIT_REPORT_FIELD)
    if not isinstance(report, dict):
        return None
    path, sha256 = report.get("path"), report.get("sha256")
    if not isinstance(path, str) or not isinstance(sha256, str):
        return None
    name = PurePosixPath(path).name
    same_name = [file for file in run.files if Path(file.path).name == name]
    if not same_name or any(file.sha256 == sha256 for file in same_name):
        return None
    return Disqualification(
        EVIDENCE_MISMATCH,
        f"{item.source} says its run wrote {path} with sha256 {sha256[:16]}…, but"
        f" {same_name[0].path} has sha256 {same_name[0].sha256[:16]}…: the JUnit file or the"
        " record was rewritten after the run, so neither is the run's account",
    )


def bind_to_junit(
    records: Sequence[EvidenceItem], junit_item: EvidenceItem, run: JUnitRun
) -> list[EvidenceItem]:
    """`records` and `junit_item`, each disqualified when a record and the JUnit file of its
    own run disagree (a disqualification already there is kept: it came first)."""
    bound: list[EvidenceItem] = []
    broken: Disqualification | None = None
    for item in records:
        found = _mismatch(item, run)
        if found is not None:
            broken = broken or found
            item = item if item.disqualified else replace(item, disqualified=found)
        bound.append(item)
    if broken is not None and junit_item.disqualified is None:
        junit_item = replace(junit_item, disqualified=broken)
    return [*bound, junit_item]
