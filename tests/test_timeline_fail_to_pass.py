"""Fail-to-pass on the time line (issue 25): the run of the head's tests over the base's code is
a row of the CI lane at its run's start, naming the fail-to-pass tests when the engine counted
it, and the engine's reason when it did not (another head, nothing that fails on the base).
The real engine decides; the SVG and Mermaid renderers draw it."""

from __future__ import annotations

from dataclasses import replace

from gate.claim.changed_paths import ChangedPaths
from gate.claim.facts import Facts, Origin, Producer
from gate.claim.fail_to_pass import BaseCodeComparison, FailToPass, FailToPassPolicy
from gate.claim.github_facts import Arrival, ChangedFile, PullChanges, PullObservation
from gate.claim.model import CheckType, Claim, Mutation, Task, VerdictState
from gate.claim.policy import Policy
from gate.claim.subject import Binding, Subject
from gate.engine.decide import decide
from gate.report.timeline import Event, Kind, Lane, Mark, Timeline, build_timeline
from gate.report.timeline_mermaid import render_mermaid
from gate.report.timeline_svg import render_svg
from tests.test_timeline import SVG, parse_svg
from tests.timeline_picture import HEAD, NOW, _run, minutes

BASE = "b" * 40
FIXED_TEST = "tests/test_parser.py::test_iso_dates"
CI = "workflow run 'CI' #812 attempt 1 (.github/workflows/ci.yml)"
SOURCE = f"the run over the base's code ({CI} artifact 'base-code-tests')"


def decided(bound_to: tuple[str, str], tests: tuple[str, ...] = (FIXED_TEST,),
            mode: FailToPass = FailToPass.REQUIRE, merge_base: str | None = None,
            ) -> tuple[VerdictState, Timeline]:
    """m1 edits the parser; the head arrives; CI runs the head's tests and, in the same run,
    the same tests over the base's code. `merge_base`: where GitHub's comparison of the base
    commit with the head says the change starts (the base branch moved on since)."""
    claim = Claim(spec_version="0.1", task=Task("fix-parser", "Fix the date parser"),
                  claimed_outcome="Fixed the date parser; all tests pass.",
                  mutations=(Mutation("m1", "file_edit", minutes(-50), "src/parser.py"),))
    arrival = Arrival(HEAD, minutes(-45), "GitHub's activity API (push)")
    run = replace(_run(minutes(-30), CI, Origin.GATE,
                       producer=Producer(".github/workflows/ci.yml", "success", "main")),
                  binding=Binding(commit=HEAD))
    over_base = BaseCodeComparison(SOURCE, fail_to_pass=tests, passed_on_both=47,
                                   bound_to=bound_to, at=minutes(-29))
    facts = Facts(
        items=(run,),
        pull=PullObservation(PullChanges(frozenset({"src/parser.py"}), True), arrival, "main"),
        changed=replace(ChangedPaths((ChangedFile("src/parser.py", "modified"),), 1, "GitHub"),
                        merge_base=merge_base),
        subject=Subject(head_sha=HEAD, base_ref="main", base_sha=BASE),
        base_code=over_base,
    )
    policy = Policy(id="f2p", requires=(CheckType.TEST_RUN,), source="example",
                    fail_to_pass=FailToPassPolicy(mode))
    verdict = decide(claim, facts, policy, NOW)
    return verdict.state, build_timeline(claim, verdict, arrival)


def base_code_rows(timeline: Timeline) -> list[Event]:
    return [e for e in timeline.events if e.name.startswith("base-code run: ")]


def fail_to_pass_rows(timeline: Timeline) -> list[Event]:
    return [e for e in timeline.events if e.name.startswith("fail-to-pass: ")]


def test_a_counted_base_code_run_is_drawn_with_its_fail_to_pass_tests() -> None:
    state, timeline = decided((BASE, HEAD))
    assert state is VerdictState.VERIFIED
    [row] = base_code_rows(timeline)
    assert (row.lane, row.kind, row.at, row.mark) == (Lane.CI, Kind.EVIDENCE, minutes(-29),
                                                      Mark.COUNTS)
    assert row.name == f"base-code run: {SOURCE}"
    assert row.detail == "1 fail-to-pass test"
    [test] = fail_to_pass_rows(timeline)
    assert (test.name, test.at, test.mark) == (f"fail-to-pass: {FIXED_TEST}", minutes(-29),
                                               Mark.COUNTS)
    texts = [t.text or "" for t in parse_svg(render_svg(timeline)).iter(f"{SVG}text")]
    assert f"fail-to-pass: {FIXED_TEST}" in texts
    assert "counts (fails on the base's code, passes on the head)" in texts
    chart = render_mermaid(timeline)
    assert "base-code run" in chart
    assert "fail-to-pass tests/test_parser.py" in chart


def test_a_base_code_run_of_another_head_is_drawn_not_counted_with_the_reason() -> None:
    other = "c" * 40
    state, timeline = decided((BASE, other))
    assert state is VerdictState.UNVERIFIED
    [row] = base_code_rows(timeline)
    assert row.mark is Mark.NOT_COUNTED
    assert row.detail.startswith("not counted: ")
    assert f"ran the tests of {other[:12]}, not the head {HEAD[:12]}" in row.detail
    assert FIXED_TEST not in row.detail
    assert fail_to_pass_rows(timeline) == []  # a run that does not count names no test


def test_a_run_where_nothing_fails_on_the_base_is_drawn_as_no_fail_to_pass() -> None:
    state, timeline = decided((BASE, HEAD), tests=())
    assert state is VerdictState.UNVERIFIED
    [row] = base_code_rows(timeline)
    assert (row.mark, row.detail) == (
        Mark.NOT_COUNTED, "no test fails on the base's code and passes on the head")


def test_many_fail_to_pass_tests_are_named_up_to_five() -> None:
    tests = tuple(f"tests/test_parser.py::test_{n}" for n in range(8))
    _, timeline = decided((BASE, HEAD), tests=tests)
    [row] = base_code_rows(timeline)
    assert row.detail == "8 fail-to-pass tests (3 more than drawn)"
    drawn = [e.name for e in fail_to_pass_rows(timeline)]
    assert drawn == [f"fail-to-pass: {t}" for t in tests[:5]]


def test_with_fail_to_pass_off_the_run_is_not_drawn() -> None:
    state, timeline = decided((BASE, HEAD), mode=FailToPass.OFF)
    assert state is VerdictState.VERIFIED
    assert base_code_rows(timeline) == []
