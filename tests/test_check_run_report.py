"""The check run payload: conclusions, GitHub's size limits, annotations at the right lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.claim.facts import EvidenceItem, Facts
from gate.claim.loader import LoadedClaim, parse_claim_bytes
from gate.claim.model import VerdictState
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from gate.report.check_run import (
    ANNOTATIONS_PER_REQUEST,
    MAX_OUTPUT_CHARS,
    Mode,
    build_check_run,
    conclusion_for,
    failure_report,
)
from gate.report.markdown import Block, fit_blocks
from gate.report.record import completed_record
from tests.builders import at, evidence, item

SEED = Path(__file__).parent / "data" / "claims" / "seed-example.json"


def claim_with(mutations: int, target: str = "accounts/4471") -> LoadedClaim:
    document: dict[str, Any] = json.loads(SEED.read_text("utf-8"))
    document["mutations"] = [
        {"id": f"m{i}", "kind": "state_write", "target": f"{target}/{i}",
         "at": "2026-08-27T18:04:02Z"}
        for i in range(mutations)
    ]
    document["evidence"] = []
    del document["policy"], document["verdict"]
    return parse_claim_bytes(json.dumps(document, indent=2).encode(), ".claim.json")


def report_for(loaded: LoadedClaim, items: list[EvidenceItem], mode: Mode = Mode.ENFORCE) -> Any:
    verdict = decide(loaded.claim, Facts.of(items), default_policy(), at(10))
    return verdict, build_check_run(
        name="completion-claim", head_sha="a" * 40, verdict=verdict, loaded=loaded,
        claim_repo_path=".claim.json", record=completed_record(loaded.document.raw, verdict),
        mode=mode,
    )


@pytest.mark.parametrize(
    ("state", "mode", "conclusion"),
    [
        (VerdictState.VERIFIED, Mode.ENFORCE, "success"),
        (VerdictState.UNVERIFIED, Mode.ENFORCE, "action_required"),
        (VerdictState.REFUTED, Mode.ENFORCE, "failure"),
        (VerdictState.REFUTED, Mode.OBSERVE, "neutral"),
        (VerdictState.UNVERIFIED, Mode.OBSERVE, "neutral"),
    ],
)
def test_conclusions_keep_unverified_and_refuted_apart(
    state: VerdictState, mode: Mode, conclusion: str
) -> None:
    assert conclusion_for(state, mode) == conclusion


def test_unmet_items_are_annotated_at_their_mutation_line() -> None:
    loaded = claim_with(3)
    verdict, report = report_for(loaded, [item(evidence(covers=("m1",)))])
    assert verdict.state is VerdictState.UNVERIFIED
    text = loaded.document.text.splitlines()
    line_of = {f"m{i}": text.index(f'      "id": "m{i}",') + 1 for i in range(3)}
    lines = {a.title: a.line for a in report.annotations}
    assert lines == {"no_evidence: m0": line_of["m0"], "no_evidence: m2": line_of["m2"]}
    assert all(a.path == ".claim.json" and a.level == "warning" for a in report.annotations)


def test_contradictions_are_failure_annotations() -> None:
    loaded = claim_with(1)
    record = evidence(covers=("m0",), expected={"z": 1}, observed={"z": 2})
    _, report = report_for(loaded, [item(record)])
    assert report.conclusion == "failure"
    assert [a.level for a in report.annotations] == ["failure"]


def test_annotations_go_fifty_per_request() -> None:
    loaded = claim_with(120)
    _, report = report_for(loaded, [])
    batches = report.annotation_batches()
    assert [len(b) for b in batches] == [50, 50, 20]
    assert len(batches[0]) == ANNOTATIONS_PER_REQUEST


def test_annotations_are_capped_with_a_note() -> None:
    loaded = claim_with(600)
    _, report = report_for(loaded, [])
    assert len(report.annotations) == 500
    assert "600 annotations; the first 500" in report.summary


def test_a_huge_summary_is_shortened_at_a_row_boundary_and_says_so() -> None:
    loaded = claim_with(3000, target="x" * 40)
    _, report = report_for(loaded, [])
    assert len(report.summary) <= MAX_OUTPUT_CHARS
    assert len(report.text) <= MAX_OUTPUT_CHARS
    assert "Shortened to fit GitHub's" in report.summary
    body = report.summary.split("\n_Shortened")[0]
    table_rows = [line for line in body.splitlines() if line.startswith("| `m")]
    assert all(line.endswith("|") for line in table_rows), "no table row is cut in half"
    assert "| mutation | kind | target | at | evidence |" in body


def test_fit_blocks_keeps_a_table_header_and_names_what_was_cut() -> None:
    rows = tuple(f"| {i} | {'y' * 50} |" for i in range(100))
    blocks = [Block(("# title", "")), Block(rows, header=("| n | v |", "|---|---|"), what="rows"),
              Block(("tail",))]
    text = fit_blocks(blocks, 2000)
    assert len(text) <= 2000
    assert "| n | v |\n|---|---|\n| 0 |" in text
    assert "left out" in text
    assert "rows and 1 later section." in text


def test_a_small_summary_is_untouched() -> None:
    blocks = [Block(("a",)), Block(("b",))]
    assert fit_blocks(blocks, 100) == "a\nb\n"


def test_observe_mode_never_blocks_and_says_so() -> None:
    _, report = report_for(claim_with(1), [], mode=Mode.OBSERVE)
    assert report.conclusion == "neutral"
    assert report.title.startswith("unverified (observe mode: not blocking)")


def test_a_gate_that_could_not_decide_posts_failure_with_the_reason() -> None:
    report = failure_report(name="completion-claim", head_sha="b" * 40,
                            reason="GitHub answered 502", mode=Mode.ENFORCE)
    assert report.conclusion == "failure"
    assert "GitHub answered 502" in report.summary


def test_extra_sections_end_the_summary_and_empty_ones_are_left_out() -> None:
    loaded = claim_with(1)
    verdict = decide(loaded.claim, Facts.of([]), default_policy(), at(10))
    report = build_check_run(
        name="completion-claim", head_sha="a" * 40, verdict=verdict, loaded=loaded,
        claim_repo_path=".claim.json", record=completed_record(loaded.document.raw, verdict),
        mode=Mode.ENFORCE,
        sections=[("Tests removed or skipped on the head", []),
                  ("Not counted", ["a run | with a pipe", "another"])],
    )
    assert report.summary.endswith(
        "\n\n### Not counted\n\n- a run \\| with a pipe\n- another\n\n")
    assert "Tests removed" not in report.summary
