"""From a read JUnit run to an evidence item, and what the engine decides from it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.claim.codec import dump_evidence
from gate.claim.errors import InvalidInput
from gate.claim.facts import Facts, Origin
from gate.claim.junit_facts import JUnitRun
from gate.claim.model import Claim, Mutation, Task, VerdictState
from gate.claim.policy import default_policy
from gate.claim.policy_parse import parse_policy_document, parse_policy_text
from gate.claim.schema import validator
from gate.engine.decide import decide
from gate.evidence.junit import VERIFIER_ID, read_run, required_tests, run_evidence
from tests.junit_files import Case, Suite, write_junit

EDIT = datetime(2026, 8, 27, 18, 4, tzinfo=UTC)
AFTER = "2026-08-27T18:05:00Z"
NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)


def _claim(**extensions: object) -> Claim:
    return Claim(
        spec_version="0.1",
        task=Task("t-1", "fix the parser"),
        claimed_outcome="Fixed the parser.",
        mutations=(Mutation("m1", "file_write", EDIT, "gate/parser.py"),),
        extensions=extensions,
    )


def _run(tmp_path: Path, *cases: Case, timestamp: str | None = AFTER,
         properties: tuple[tuple[str, str], ...] = (),
         requested: tuple[str, ...] = ()) -> JUnitRun:
    path = write_junit(tmp_path / "junit.xml", [Suite("pytest", cases, timestamp, properties)])
    return read_run([str(path)], requested)


def test_a_passing_run_is_independent_gate_evidence_that_verifies(tmp_path: Path) -> None:
    item = run_evidence(_run(tmp_path, Case("test_a"), Case("test_b", result="skipped")))
    evidence = item.evidence
    assert item.origin is Origin.GATE
    assert item.disqualified is None
    assert evidence.verifier.id == VERIFIER_ID
    assert evidence.verifier.kind == "independent"
    assert evidence.covers == ()
    assert evidence.at == datetime(2026, 8, 27, 18, 5, tzinfo=UTC)
    assert evidence.expected == {"failures": 0, "errors": 0}
    assert evidence.observed_value == {
        "tests": 2, "passed": 1, "failures": 0, "errors": 0, "skipped": 1, "flaky": 0,
        "unique": 2, "suite_errors": 0, "failing_tests": [], "flaky_tests": [],
    }
    assert evidence.extensions["x-junit"]["files"][0]["time_source"] == "timestamp"
    assert list(validator("#/$defs/evidence").iter_errors(dump_evidence(evidence))) == []
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.VERIFIED


def test_a_failing_test_refutes_the_covered_change(tmp_path: Path) -> None:
    item = run_evidence(_run(tmp_path, Case("test_a"), Case("test_b", result="failure")))
    assert item.evidence.observed_value["failures"] == 1
    assert item.evidence.observed_value["failing_tests"] == ["tests.test_x.TestY::test_b"]
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.REFUTED
    assert "failures: expected 0, observed 1" in verdict.reason


def test_zero_tests_is_absence_not_a_pass(tmp_path: Path) -> None:
    item = run_evidence(_run(tmp_path))
    assert item.disqualified is not None
    assert item.disqualified.code == "no_tests"
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.UNVERIFIED


def test_all_skipped_is_absence_not_a_pass(tmp_path: Path) -> None:
    item = run_evidence(_run(tmp_path, Case("a", result="skipped"), Case("b", result="skipped")))
    assert item.disqualified is not None
    assert item.disqualified.code == "all_skipped"
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert verdict.unmet[0].code == "all_skipped"


def test_a_flaky_rerun_passes_and_is_reported_only_when_the_policy_says_reruns_repeat(
    tmp_path: Path,
) -> None:
    """Issue 14: a repeated case is a rerun only by the policy's word (or a rerun marker in
    the report); by default the failing case stands and refutes."""
    text = (
        f'<testsuite name="s" timestamp="{AFTER}">'
        '<testcase classname="c" name="t"><failure message="first"/></testcase>'
        '<testcase classname="c" name="t"/></testsuite>'
    )
    (tmp_path / "junit.xml").write_text(text, encoding="utf-8")
    reruns = parse_policy_document(
        {"id": "p", "junit": {"reruns": "repeated-cases"}}, "policy.yml")
    item = run_evidence(read_run([str(tmp_path / "junit.xml")], options=reruns.junit))
    assert item.evidence.observed_value["flaky"] == 1
    assert item.evidence.observed_value["flaky_tests"] == ["c::t"]
    assert item.evidence.observed_value["failures"] == 0
    assert decide(_claim(), Facts.of([item]), reruns, NOW).state is VerdictState.VERIFIED
    separate = run_evidence(read_run([str(tmp_path / "junit.xml")]))
    assert separate.evidence.observed_value["failures"] == 1
    assert separate.evidence.observed_value["flaky"] == 0
    verdict = decide(_claim(), Facts.of([separate]), default_policy(), NOW)
    assert verdict.state is VerdictState.REFUTED


@pytest.mark.parametrize(
    ("head", "code"),
    [("abc1234def", None), ("ABC1234", None), ("9999999", "other_commit"), (None, None)],
)
def test_a_run_on_another_commit_does_not_count(
    tmp_path: Path, head: str | None, code: str | None
) -> None:
    run = _run(tmp_path, Case("a"), properties=(("claim-gate.commit", "abc1234def"),))
    item = run_evidence(run, head)
    assert (item.disqualified.code if item.disqualified else None) == code
    if code:
        assert item.disqualified is not None
        assert "abc1234def" in item.disqualified.message
        verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
        assert verdict.state is VerdictState.UNVERIFIED


@pytest.mark.parametrize("suffix", ["-dirty", "+dirty", ".dirty", " (modified)"])
def test_a_commit_property_with_more_than_the_head_is_not_the_head(
    tmp_path: Path, suffix: str
) -> None:
    """`git describe --always --dirty --abbrev=40` writes the full sha then `-dirty`: that
    is not the head's code, though the head's sha is a prefix of it."""
    head = "0123456789abcdef0123456789abcdef01234567"
    run = _run(tmp_path, Case("a"), properties=(("git.commit", head + suffix),))
    item = run_evidence(run, head)
    assert item.disqualified is not None
    assert item.disqualified.code == "other_commit"


def test_a_failing_run_on_another_commit_is_unverified_not_refuted(tmp_path: Path) -> None:
    run = _run(tmp_path, Case("a", result="failure"), properties=(("vcs.revision", "1111111"),))
    verdict = decide(_claim(), Facts.of([run_evidence(run, "2222222")]), default_policy(), NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert verdict.unmet[0].code == "other_commit"


@pytest.mark.parametrize("value", ["false", "dirty", "maybe", ""])
def test_a_dirty_or_unclear_tree_does_not_count(tmp_path: Path, value: str) -> None:
    """Clean only when the file says so plainly; `maybe` is not clean."""
    run = _run(tmp_path, Case("a"), properties=(("claim-gate.tree_clean", value),))
    item = run_evidence(run)
    assert item.disqualified is not None
    assert item.disqualified.code == "dirty_tree"


@pytest.mark.parametrize("value", ["true", "True", "1", "yes"])
def test_a_plainly_clean_tree_counts(tmp_path: Path, value: str) -> None:
    run = _run(tmp_path, Case("a"), properties=(("claim-gate.tree_clean", value),))
    assert run_evidence(run).disqualified is None


@pytest.mark.parametrize("order", [("false", "true"), ("true", "false"), ("unknown", "false")])
def test_one_dirty_shard_in_a_merged_file_makes_it_dirty(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """Shards merged into one file each carry their own binding: a later clean one must
    not hide an earlier dirty one."""
    suites = [
        Suite(f"shard{index}", (Case(f"t{index}"),), AFTER,
              (("claim-gate.tree_clean", clean),))
        for index, clean in enumerate(order)
    ]
    path = write_junit(tmp_path / "merged.xml", suites)
    item = run_evidence(read_run([str(path)]))
    assert item.disqualified is not None
    assert item.disqualified.code == "dirty_tree"


def test_a_naive_timestamp_uses_the_file_time_and_says_so(tmp_path: Path) -> None:
    item = run_evidence(_run(tmp_path, Case("a"), timestamp="2026-08-27T18:05:00"))
    files = item.evidence.extensions["x-junit"]["files"]
    assert files[0]["time_source"] == "mtime"
    assert "has no time zone" in files[0]["time_note"]
    assert item.evidence.at == datetime.fromtimestamp(
        (tmp_path / "junit.xml").stat().st_mtime, UTC
    )


def test_a_run_before_the_edit_is_unverified(tmp_path: Path) -> None:
    item = run_evidence(_run(tmp_path, Case("a"), timestamp="2026-08-27T18:03:00Z"))
    verdict = decide(_claim(), Facts.of([item]), default_policy(), NOW)
    assert verdict.state is VerdictState.UNVERIFIED
    assert verdict.unmet[0].code == "before_mutation"


NAMED = ("tests/test_x.py::TestY::test_login",)


@pytest.mark.parametrize(
    ("cases", "state", "failed", "missing"),
    [
        ((Case("test_login"), Case("test_other")), VerdictState.VERIFIED, [], []),
        ((Case("test_login", result="failure"),), VerdictState.REFUTED, list(NAMED), []),
        ((Case("test_other"),), VerdictState.REFUTED, [], list(NAMED)),
        ((Case("test_login", result="skipped"), Case("test_other")), VerdictState.REFUTED,
         [], list(NAMED)),
    ],
    ids=["passed", "failed", "missing", "skipped"],
)
def test_named_tests(
    tmp_path: Path, cases: tuple[Case, ...], state: VerdictState, failed: list[str],
    missing: list[str],
) -> None:
    item = run_evidence(_run(tmp_path, *cases, requested=NAMED))
    assert item.evidence.expected == {
        "failures": 0, "errors": 0, "failed_named_tests": [], "missing_named_tests": [],
    }
    assert item.evidence.observed_value["failed_named_tests"] == failed
    assert item.evidence.observed_value["missing_named_tests"] == missing
    assert decide(_claim(), Facts.of([item]), default_policy(), NOW).state is state


def test_a_named_test_may_live_in_any_file_of_the_run(tmp_path: Path) -> None:
    first = write_junit(tmp_path / "a.xml", [Suite("s", (Case("test_other"),), AFTER)])
    second = write_junit(tmp_path / "b.xml", [Suite("s", (Case("test_login"),), AFTER)])
    run = read_run([str(tmp_path / "*.xml")], NAMED)
    assert [file.path for file in run.files] == [str(first), str(second)]
    assert run.named_status().missing == ()


def test_required_tests_come_from_policy_and_claim(tmp_path: Path) -> None:
    policy = parse_policy_text("id: p\nrequired_tests: [a::b, c]\n", "policy.yml")
    claim = _claim(**{"x-required-tests": ["c", "d"]})
    assert required_tests(policy, claim, "claim.json") == ("a::b", "c", "d")
    assert required_tests(default_policy(), _claim(), "claim.json") == ()


@pytest.mark.parametrize("bad", ["required_tests: a", "required_tests: ['']",
                                 "required_tests: [1]"])
def test_a_malformed_required_tests_section_is_invalid(bad: str) -> None:
    # Refused when the policy loads (the typed policy is parsed once), before any run is read.
    with pytest.raises(InvalidInput, match="required_tests must be a list") as caught:
        parse_policy_text(f"id: p\n{bad}\n", "policy.yml")
    assert caught.value.source == "policy.yml"


def test_a_malformed_claim_list_is_invalid() -> None:
    with pytest.raises(InvalidInput, match="x-required-tests") as caught:
        required_tests(default_policy(), _claim(**{"x-required-tests": "a"}), "claim.json")
    assert caught.value.source == "claim.json"


def test_a_glob_matching_nothing_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="the glob matches no file"):
        read_run([str(tmp_path / "**" / "*.xml")])


def test_an_existing_file_with_glob_characters_in_its_name_is_read(tmp_path: Path) -> None:
    """`TEST-Foo[1].xml` names a file: read it, not the glob (which would match `Foo1`)."""
    path = write_junit(tmp_path / "TEST-Foo[1].xml", [Suite("s", (Case("a"),), AFTER)])
    assert read_run([str(path)]).totals.tests == 1


def test_the_failing_list_is_capped_but_every_failure_counts(tmp_path: Path) -> None:
    cases = (*(Case(f"t{i}", result="failure") for i in range(60)), Case("ok"))
    item = run_evidence(_run(tmp_path, *cases))
    observed = item.evidence.observed_value
    assert observed["failures"] == 60
    assert len(observed["failing_tests"]) == 50
    assert observed["failing_tests_not_listed"] == 10
