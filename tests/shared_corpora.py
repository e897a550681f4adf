"""The third-party JUnit corpora, read where they live: `../shared/` beside the clone.

Files copied from other projects' repositories are never committed here (issue 26); CI has
`shared/` beside its clone, as the development machines do. `CLAIM_GATE_SHARED` names
another folder (a worktree elsewhere). Each manifest row carries the counts the source
project's own tests state and, in MANIFEST-2, how that project counts reruns and where
claim-gate's documented rules answer otherwise on purpose (`claim_gate_expected`).
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: (folder, manifests) of each corpus, as shared/ lays them out.
CORPORA = (
    ("junit-corpus", ("MANIFEST.tsv",)),
    ("junit-corpus-2", ("MANIFEST-1.tsv", "MANIFEST-2.tsv")),
)


def shared_folder(environ: Mapping[str, str] = os.environ) -> Path:
    """`$CLAIM_GATE_SHARED`, else `shared/` beside the repository root."""
    named = environ.get("CLAIM_GATE_SHARED")
    return Path(named) if named else ROOT.parent / "shared"


@dataclass(frozen=True)
class Expected:
    """What a row says a reader should find: figures by name (`fe` = failures + errors),
    or a refusal. Names absent from `figures` are not asserted by the source."""

    figures: Mapping[str, int] = field(default_factory=dict)
    refuse: bool = False
    failing: tuple[str, ...] = ()
    suites_more_than: int | None = None
    hides_failures: bool = False


@dataclass(frozen=True)
class Row:
    corpus: str
    key: str  # owner__repo/file
    path: Path
    well_formed: bool
    repeated_cases: bool
    expected: Expected
    notes: str
    convention: bool  # claim_gate_expected overrides the source's figures


def _figure(text: str) -> int | None:
    """'5' or '1 (annotation)' -> the figure; '-', 'none', 'n/a (...)', '0 (see notes)' and
    '' -> None (the source states no figure there)."""
    if "see notes" in text:
        return None
    found = re.match(r"^(\d+)\b", text)
    return int(found[1]) if found else None


def _source_figures(raw: Mapping[str, str]) -> dict[str, int]:
    figures: dict[str, int] = {}
    for name in ("tests", "passed", "failures", "errors", "skipped", "flaky"):
        value = _figure(raw.get(f"expected_{name}", ""))
        if value is not None:
            figures[name] = value
    folded = raw.get("expected_errors", "").startswith("n/a") or "(annotation)" in raw.get(
        "expected_failures", "")
    if folded and "failures" in figures:  # the source counts errors as failures
        figures["fe"] = figures.pop("failures")
    total = _figure(raw.get("expected_failures_plus_errors", ""))
    if total is not None:
        figures["fe"] = total
    return figures


def _expected(raw: Mapping[str, str]) -> tuple[Expected, bool]:
    figures = _source_figures(raw)
    other = json.loads(raw.get("expected_other") or "{}")
    if "unique" in other:
        figures["unique"] = int(other["unique"])
    convention = raw.get("claim_gate_expected", "").strip()
    refuse = not raw["well_formed"].startswith("yes") or raw["expected_tests"] == "error"
    if convention == "refuse":
        refuse = True
    elif convention:
        ours = {k: int(v) for k, v in json.loads(convention).items()}
        if "fe" in ours:
            figures.pop("failures", None)
            figures.pop("errors", None)
        figures.update(ours)
    return Expected(
        figures=figures, refuse=refuse, failing=tuple(other.get("failing", ())),
        suites_more_than=other.get("suites_gt"),
        hides_failures="count_mismatch" in raw.get("expected_notes", ""),
    ), bool(convention)


def _repeated_cases(raw: Mapping[str, str]) -> bool:
    """MANIFEST-2 says so (`claim_gate_mode`); MANIFEST.tsv's mikepenz rows state the
    retries that project merged (`retried=1`, `retriedCount=2`)."""
    mode = raw.get("claim_gate_mode")
    if mode:
        return mode == "repeated-cases"
    return re.search(r"\bretried(Count)?=\d", raw.get("expected_notes", "")) is not None


def _rows_of(corpus: Path, manifest: str) -> list[Row]:
    rows = []
    with (corpus / manifest).open(encoding="utf-8", newline="") as handle:
        for raw in csv.DictReader(handle, delimiter="\t"):
            expected, convention = _expected(raw)
            rows.append(Row(
                corpus=corpus.name, key=raw["path"].removeprefix("files/"),
                path=corpus / raw["path"], well_formed=raw["well_formed"].startswith("yes"),
                repeated_cases=_repeated_cases(raw), expected=expected,
                notes=raw.get("expected_notes", ""), convention=convention,
            ))
    return rows


def missing_corpora(shared: Path) -> list[str]:
    """The corpus folders (or manifests) that are not there, by path."""
    return [str(shared / name / manifest) for name, manifests in CORPORA
            for manifest in manifests if not (shared / name / manifest).is_file()]


def corpus_rows(shared: Path) -> list[Row]:
    """Every row of every corpus that is there (none when shared/ is absent)."""
    rows: list[Row] = []
    for name, manifests in CORPORA:
        for manifest in manifests:
            if (shared / name / manifest).is_file():
                rows.extend(_rows_of(shared / name, manifest))
    return rows


def skip_reason(shared: Path) -> str:
    return (f"the third-party JUnit corpora are not beside this clone (looked for "
            f"{', '.join(missing_corpora(shared))}); they live in shared/, never in the "
            "repository: set CLAIM_GATE_SHARED to the folder that holds them")
