"""Fail-to-pass from several CI runs: each run's report over the base's code is held against
that same run's head report, never one run's failure against another run's pass."""

from __future__ import annotations

from pathlib import Path

from gate.claim.junit_facts import JUnitFile
from gate.evidence.base_code_run import compare_base_code, compare_runs
from gate.evidence.junit_reader import read_junit_file

BOUND = "a" * 40 + ".." + "b" * 40


def _report(path: Path, **cases: str) -> JUnitFile:
    body = {"passed": "", "failed": '<failure message="m"/>', "skipped": "<skipped/>"}
    path.write_text(
        '<testsuite name="s"><properties>'
        f'<property name="claim-gate.base_code" value="{BOUND}"/></properties>'
        + "".join(f'<testcase classname="t" name="{name}">{body[outcome]}</testcase>'
                  for name, outcome in cases.items())
        + "</testsuite>")
    return read_junit_file(path, identities=100)


def test_a_failure_in_one_run_and_a_pass_in_another_is_no_fail_to_pass(tmp_path: Path) -> None:
    # Run A: test_x fails over the base's code and is skipped on the head. Run B: it passes on
    # both. No run shows test_x failing before the fix and passing after it.
    run_a = ([_report(tmp_path / "a-base.xml", test_x="failed")],
             [_report(tmp_path / "a-head.xml", test_x="skipped")])
    run_b = ([_report(tmp_path / "b-base.xml", test_x="passed")],
             [_report(tmp_path / "b-head.xml", test_x="passed")])
    found = compare_runs([run_a, run_b], "two runs")
    assert (found.fail_to_pass, found.passed_on_both, found.problem) == ((), 1, None)
    # Pooled, as the Action read them before, the two runs made one up.
    pooled = compare_base_code([*run_a[0], *run_b[0]], [*run_a[1], *run_b[1]], "pooled")
    assert len(pooled.fail_to_pass) == 1  # the old answer


def test_control_a_run_that_shows_it_counts_beside_one_that_does_not(tmp_path: Path) -> None:
    run_a = ([_report(tmp_path / "a-base.xml", test_x="failed")],
             [_report(tmp_path / "a-head.xml", test_x="passed")])
    run_b = ([_report(tmp_path / "b-base.xml", test_y="passed")],
             [_report(tmp_path / "b-head.xml", test_y="passed")])
    found = compare_runs([run_a, run_b], "two runs")
    assert (len(found.fail_to_pass), found.passed_on_both) == (1, 1)
    assert found.bound_to == ("a" * 40, "b" * 40)
