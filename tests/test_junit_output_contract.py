"""Issue 24 item 8: `--format junit`'s names are an output contract.

A module rename once turned `claim-gate.verdict` into `claim-gate.engine.decide` and
`claim-gate.policy` into `claim-gate.claim.policy`, and the tests moved with it. The names
here are literal strings, not imported: no rename in gate/ can update them. The documented
table (docs/other-ci.md) must list the same names."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from gate.faces.cli import main

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)
PROPERTIES = [
    "claim-gate.verdict", "claim-gate.reason", "claim-gate.task", "claim-gate.claim",
    "claim-gate.policy", "claim-gate.policy_sha256", "claim-gate.decided_by",
]
CLASSNAMES = ["claim-gate.mutation", "claim-gate.requirement", "claim-gate.claim"]


def _verify(tmp_path: Path, mutations: list[dict[str, str]],
            requires: str = "[test_run]") -> ET.Element:
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({
        "spec_version": "0.1", "task": {"id": "t-1", "description": "fix the parser"},
        "claimed_outcome": "Fixed.", "mutations": mutations}))
    policy = tmp_path / "policy.yaml"
    policy.write_text(f"id: contract\nrequires: {requires}\n")
    out = io.StringIO()
    main(["verify", str(claim), "--policy", str(policy), "--format", "junit"],
         clock=lambda: NOW, out=out, err=io.StringIO())
    return ET.fromstring(out.getvalue())  # noqa: S314 - the gate's own output


def test_the_verdicts_junit_names_are_the_documented_ones(tmp_path: Path) -> None:
    edit = {"id": "m1", "kind": "file_edit", "target": "src/p.py", "at": "2026-08-27T18:00:00Z"}
    root = _verify(tmp_path, [edit])
    assert root.get("name") == "claim-gate"
    [suite] = root.findall("testsuite")
    assert suite.get("name") == "claim-gate: t-1"
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert list(properties) == PROPERTIES
    assert properties["claim-gate.verdict"] == "unverified"
    assert properties["claim-gate.policy"] == "contract"
    classes = [case.get("classname") for case in suite.iter("testcase")]
    assert classes == ["claim-gate.mutation", "claim-gate.requirement"]
    failure = next(suite.iter("failure"))
    assert failure.get("type") == "no_evidence"


def test_a_claim_level_unmet_is_a_case_of_the_claim(tmp_path: Path) -> None:
    root = _verify(tmp_path, [], requires="[]")  # nothing to observe: the claim's own unmet
    classes = {case.get("classname") for case in root.iter("testcase")}
    assert "claim-gate.claim" in classes


def test_the_documented_table_lists_every_name() -> None:
    text = (ROOT / "docs" / "other-ci.md").read_text("utf-8")
    for name in [*PROPERTIES, *CLASSNAMES]:
        assert f"| `{name}` |" in text, name
