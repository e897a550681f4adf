"""`--format junit` and `--format github`: exact output, hostile text, read back by junitparser."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from junitparser import Failure, JUnitXml, TestSuite

from gate.claim.codec import parse_claim, parse_evidence
from gate.claim.facts import EvidenceItem, Facts, Origin
from gate.claim.policy import Policy, default_policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from gate.faces.cli import main
from gate.report.github_commands import command, escape_data, escape_property, render_github
from gate.report.junit_xml import render_junit, xml_safe
from gate.report.text import render_text

NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)
HOSTILE = "100% done: a, b\r\nc\n::set-output name=x::y"


def _claim(mutations: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {
        "spec_version": "0.1",
        "task": {"id": "t-1", "description": "fix the parser"},
        "claimed_outcome": "Fixed the parser.",
        "mutations": mutations,
        **extra,
    }


def _test_run(at: str, **observed: int) -> EvidenceItem:
    counts = {"tests": 3, "passed": 3, "failures": 0, "errors": 0, "skipped": 0, **observed}
    record = parse_evidence({
        "check_type": "test_run", "at": at, "expected": {"failures": 0, "errors": 0},
        "observed_value": counts, "verifier": {"id": "ci/1", "kind": "independent"},
    })
    return EvidenceItem(record, Origin.OPERATOR, "ci.json")


def _verdict(raw: dict[str, Any], items: list[EvidenceItem], policy: Policy) -> Verdict:
    return decide(parse_claim(raw), Facts.of(items), policy, NOW)


TWO = [
    {"id": "m1", "kind": "file_edit", "target": "src/parse.py", "at": "2026-08-27T18:00:00Z"},
    {"id": "m2", "kind": "state_write", "target": "db/rows", "at": "2026-08-27T18:01:00Z"},
]


def test_junit_has_one_case_per_mutation_and_requirement_with_unmet_as_failures() -> None:
    raw = _claim(TWO)
    policy = Policy(id="ops", requires=(parse_evidence(
        {"check_type": "endpoint_health", "at": "2026-08-27T18:00:00Z",
         "verifier": {"id": "x", "kind": "independent"}}).check_type,))
    verdict = _verdict(raw, [_test_run("2026-08-27T18:05:00Z")], policy)
    text = render_junit(parse_claim(raw), verdict, "claim.json")
    xml = JUnitXml.fromstring(text.encode("utf-8"))
    assert (xml.tests, xml.failures, xml.errors) == (3, 2, 0)
    suite = next(iter(xml))
    assert isinstance(suite, TestSuite)
    cases = {case.name: case for case in suite}
    assert list(cases) == ["m1 (file_edit src/parse.py)", "m2 (state_write db/rows)",
                           "endpoint_health"]
    assert cases["m1 (file_edit src/parse.py)"].is_passed
    failure = cases["m2 (state_write db/rows)"].result[0]
    assert isinstance(failure, Failure)
    assert failure.type == "no_evidence"
    assert "state_readback" in failure.message
    assert cases["endpoint_health"].result[0].type == "missing_check_type"
    properties = {p.name: p.value for p in suite.properties()}  # type: ignore[no-untyped-call]
    assert properties["claim-gate.verdict"] == "unverified"
    assert properties["claim-gate.task"] == "t-1"
    assert properties["claim-gate.policy_sha256"] == policy.digest


def test_junit_exact_output_for_a_verified_claim() -> None:
    raw = _claim(TWO[:1])
    verdict = _verdict(raw, [_test_run("2026-08-27T18:05:00Z")], default_policy())
    digest = verdict.policy.digest
    assert render_junit(parse_claim(raw), verdict, "claim.json") == f"""\
<?xml version="1.0" encoding="utf-8"?>
<testsuites name="claim-gate" tests="1" failures="0" errors="0">
  <testsuite name="claim-gate: t-1" timestamp="2026-08-27T18:10:00Z" time="0" errors="0" \
skipped="0" tests="1" failures="0">
    <properties>
      <property name="claim-gate.verdict" value="verified" />
      <property name="claim-gate.reason" value="{verdict.reason}" />
      <property name="claim-gate.task" value="t-1" />
      <property name="claim-gate.claim" value="claim.json" />
      <property name="claim-gate.policy" value="claim-gate-default" />
      <property name="claim-gate.policy_sha256" value="{digest}" />
      <property name="claim-gate.decided_by" value="{verdict.decided_by}" />
    </properties>
    <testcase classname="claim-gate.mutation" name="m1 (file_edit src/parse.py)" time="0" />
  </testsuite>
</testsuites>
"""


def test_junit_refuted_and_claim_level_unmet() -> None:
    raw = _claim(TWO[:1])
    refuted = _verdict(raw, [_test_run("2026-08-27T18:05:00Z", failures=2)], default_policy())
    xml = JUnitXml.fromstring(render_junit(parse_claim(raw), refuted, "c.json").encode())
    assert (xml.tests, xml.failures) == (1, 1)
    assert next(iter(next(iter(xml)))).result[0].type == "contradicted"
    empty = _claim([])
    nothing = _verdict(empty, [], default_policy())
    xml = JUnitXml.fromstring(render_junit(parse_claim(empty), nothing, "c.json").encode())
    assert (xml.tests, xml.failures) == (1, 1)
    case = next(iter(next(iter(xml))))
    assert (case.classname, case.name, case.result[0].type) == (
        "claim-gate.claim", "t-1", "no_evidence",
    )


def test_junit_survives_text_xml_cannot_carry() -> None:
    raw = _claim([{"id": "m\x00\x1b1\ud800", "kind": "file_edit", "target": HOSTILE,
                   "at": "2026-08-27T18:00:00Z"}])
    raw["task"]["id"] = "t<&>\"'\x07"
    verdict = _verdict(raw, [], default_policy())
    text = render_junit(parse_claim(raw), verdict, "claim.json")
    text.encode("utf-8")  # no lone surrogate left
    xml = JUnitXml.fromstring(text.encode("utf-8"))
    case = next(iter(next(iter(xml))))
    assert case.name.startswith("m\ufffd\ufffd1\ufffd (file_edit 100% done: a, b")
    assert "::set-output" in case.result[0].message
    assert xml_safe("ok\tline\n") == "ok\tline\n"


def test_github_escaping_of_message_and_properties() -> None:
    assert escape_data(HOSTILE) == "100%25 done: a, b%0D%0Ac%0A::set-output name=x::y"
    assert escape_property(HOSTILE) == (
        "100%25 done%3A a%2C b%0D%0Ac%0A%3A%3Aset-output name=x%3A%3Ay"
    )
    assert command("error", "50% of a\nb", {"title": "x: y, z", "line": 3}) == (
        "::error title=x%3A y%2C z,line=3::50%25 of a%0Ab"
    )
    assert command("notice", "plain") == "::notice::plain"


def test_github_output_is_only_commands_even_for_a_hostile_claim() -> None:
    raw = _claim([{"id": "m1", "kind": "file_edit", "target": HOSTILE,
                   "at": "2026-08-27T18:00:00Z"}])
    raw["task"]["id"] = "t: 1, 2"
    verdict = _verdict(raw, [], default_policy())
    text = render_github(parse_claim(raw), verdict, "dir,x/claim.json", {"m1": 7})
    lines = text.splitlines()
    assert len(lines) == 2
    assert all(line.startswith(("::error ", "::notice ")) for line in lines)
    assert lines[0].startswith(
        "::error title=claim-gate%3A no_evidence,file=dir%2Cx/claim.json,line=7::"
        "mutation m1 (file_edit 100%25 done: a, b%0D%0Ac%0A::set-output name=x::y)"
    )
    assert lines[1].startswith(
        "::error title=claim-gate%3A unverified (task t%3A 1%2C 2),file=dir%2Cx/claim.json::"
        "unverified: "
    )


def test_text_output_keeps_hostile_claim_text_on_its_line() -> None:
    """The text format is what a CI log shows: a line break in the agent's text must not
    start a line of its own (in GitHub Actions a line starting `::` is a workflow command)."""
    raw = _claim([{"id": "m1", "kind": "file_edit", "target": HOSTILE,
                   "at": "2026-08-27T18:00:00Z"}], claimed_outcome="done\n::add-mask::x")
    raw["task"]["id"] = "t\u2028::notice::y"
    text = render_text(parse_claim(raw), _verdict(raw, [], default_policy()), "claim.json")
    lines = text.splitlines()
    assert not [line for line in lines if line.startswith("::")]
    assert "  claimed: done\\n::add-mask::x" in lines
    assert "UNVERIFIED: claim.json (task t\\u2028::notice::y)" in lines
    # headline, 5 facts, unmet header, the one unmet item (the reason: not repeated below it)
    assert len(lines) == 8
    assert "(file_edit 100% done: a, b\\r\\nc\\n::set-output name=x::y)" in lines[7]


def test_github_verified_is_a_notice() -> None:
    raw = _claim(TWO[:1])
    verdict = _verdict(raw, [_test_run("2026-08-27T18:05:00Z")], default_policy())
    assert render_github(parse_claim(raw), verdict, "claim.json") == (
        "::notice title=claim-gate%3A verified (task t-1),file=claim.json::"
        + escape_data(verdict.reason) + "\n"
    )


@pytest.mark.parametrize("fmt", ["junit", "github"])
def test_the_cli_offers_the_formats(tmp_path: Path, fmt: str) -> None:
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps(_claim(TWO[:1]), indent=2))
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(claim), "--format", fmt, "--now", "2026-08-27T18:10:00Z"],
                out=out, err=err)
    assert code == 1, err.getvalue()
    if fmt == "junit":
        assert JUnitXml.fromstring(out.getvalue().encode()).failures == 1
    else:
        # json.dumps(indent=2) puts the mutation object on line 9 of the claim file.
        assert out.getvalue().startswith(
            f"::error title=claim-gate%3A no_evidence,file={escape_property(str(claim))},line=9::"
        )
