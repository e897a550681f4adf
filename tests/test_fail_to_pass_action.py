"""Fail-to-pass through the GitHub stand-in (issue 25): the Action's `base-code-artifact-name`
is read from the same runs as the head's JUnit, under the same provenance rules. A trusted
run's base-code artifact counts; one from a workflow the PR changed, or bound to another base,
does not (unverified, naming why); each attack beside its honest control."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from tests.action_support import (
    T0,
    ActionResult,
    RunnerFiles,
    Scenario,
    act,
    claim_json,
    edit,
    junit_xml,
    scenario,
)
from tests.github_standin import ArtifactSpec, zip_bytes
from tests.github_standin.hub import Hub
from tests.test_claims_in_practice import shown
from tests.test_timeline import mermaid_block

POLICY_PATH = ".github/claim-policy.yml"
REQUIRE = "id: f2p\nrequires: [test_run]\nfail_to_pass: require\n"
F2P_WORKFLOW = ".github/workflows/f2p.yml"
F2P_TEXT = "name: f2p\non: pull_request\njobs: {}\n"
ARTIFACT_LISTING = "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"
#: The head's tests: test_case_0 is the fix's test.
FIXED_TEST = "tests.test_app::test_case_0"


def base_code_xml(base: str, head: str, *, fails: bool = True) -> str:
    """The head's three tests over the base's code, as the plugin writes them after
    `claim-gate base-code`: the fix's test fails there (unless `fails` is False)."""
    xml = junit_xml(passed=3, commit=head)
    if fails:
        xml = xml.replace(
            '<testcase classname="tests.test_app" name="test_case_0" time="0.01"/>',
            '<testcase classname="tests.test_app" name="test_case_0" time="0.01">'
            '<failure message="assert 0 == 1">tests/test_app.py:3: AssertionError</failure>'
            "</testcase>").replace('failures="0"', 'failures="1"')
    return xml.replace(
        "</properties>",
        f'<property name="claim-gate.base_code" value="{base}..{head}"/></properties>')


def f2p_scenario(hub: Hub, base_files: dict[str, str] | None = None,
                 files: dict[str, str | None] | None = None, policy: str = REQUIRE) -> Scenario:
    """The agent's fix of app/parser.py (and a claimed edit of each file in `files`); the
    owner's policy (on the base) requires fail-to-pass."""
    workflows = (".github/workflows/ci.yml", *((F2P_WORKFLOW,) if base_files else ()))
    edits = [edit(at=T0 - timedelta(minutes=3))] + [
        edit(f"m{i}", T0 - timedelta(minutes=3), path) for i, path in enumerate(files or {}, 2)]
    return scenario(hub, claim_json(edits),
                    base_files={POLICY_PATH: policy, **(base_files or {})}, files=files,
                    baseline=workflows)


def add_test_run(s: Scenario, over_base: str | None, path: str = ".github/workflows/ci.yml"
                 ) -> None:
    """One run of `path` on the head: the head's JUnit and, in the same run, the same tests
    over the base's code (named like `junit-*` too: it must never be read as the head's)."""
    artifacts = [ArtifactSpec("junit-results",
                              zip_bytes({"reports/junit.xml": junit_xml(commit=s.head.sha)}))]
    if over_base is not None:
        artifacts.append(ArtifactSpec("junit-base-code",
                                      zip_bytes({"reports/base-code.xml": over_base})))
    started = T0 + timedelta(minutes=5)
    s.runs.append(s.hub.add_workflow_run(
        s.repo, head_sha=s.head.sha, path=path, pull_requests=[s.pull], conclusion="success",
        run_started_at=started, created_at=started, updated_at=started + timedelta(minutes=2),
        artifacts=artifacts))


def gate(s: Scenario, tmp_path: Path) -> tuple[ActionResult, RunnerFiles, str]:
    result, files = act(s, tmp_path, policy=POLICY_PATH, base_code_artifact_name="junit-base-*")
    return result, files, shown(s.check().summary)


def record_verdict(files: RunnerFiles) -> dict[str, object]:
    verdict = json.loads(files.claim_json().read_text("utf-8"))["verdict"]
    assert isinstance(verdict, dict)
    return verdict


def test_a_trusted_runs_base_code_artifact_counts(github_hub: Hub, tmp_path: Path) -> None:
    s = f2p_scenario(github_hub)
    add_test_run(s, base_code_xml(s.pull.base_sha, s.head.sha))
    result, files, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (0, "success"), summary
    assert record_verdict(files)["x-fail-to-pass"] == [FIXED_TEST]
    assert f"1 test fails on the base's code and passes on the head: {FIXED_TEST}" in summary
    # The base-code report's failure is not the head's: it never refutes.
    assert "refuted" not in files.outputs()["verdict"]
    # The job summary's time line draws the run over the base's code and names the test.
    chart = mermaid_block(files.summary.read_text("utf-8").split("### Time line", 1)[1])
    assert "evidence base-code run workflow run 'CI'" in chart
    assert "evidence fail-to-pass tests.test_app" in chart
    # One artifact listing per run: the head's run (its base-code artifact found in the same
    # listing as its JUnit, not listed again) and the base branch's baseline run.
    assert s.hub.calls[ARTIFACT_LISTING] == 2


def test_without_a_base_code_artifact_require_is_unverified(
        github_hub: Hub, tmp_path: Path) -> None:
    s = f2p_scenario(github_hub)
    add_test_run(s, None)
    result, _, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required")
    assert "no_fail_to_pass" in summary
    assert "base-code-artifact-name" in summary


def test_a_test_that_passes_on_both_is_no_evidence(github_hub: Hub, tmp_path: Path) -> None:
    s = f2p_scenario(github_hub)
    add_test_run(s, base_code_xml(s.pull.base_sha, s.head.sha, fails=False))
    result, _, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required")
    assert "3 tests pass on both, which is no evidence of a fix" in summary


#: Only conftest.py on the evidence chain: an edit of f2p.yml leaves ci.yml's run counting,
#: so what is judged below is the base-code run alone (f2p.yml is its producer).
NARROW_CHAIN = REQUIRE + "evidence_chain:\n  paths: [conftest.py]\n"


def _with_f2p_workflow(github_hub: Hub, *, the_pr_edits_it: bool) -> Scenario:
    """The head's tests from the owner's ci.yml; the base-code artifact (with its own head
    JUnit) from f2p.yml, a workflow on the base branch that the PR edits, or leaves alone."""
    s = f2p_scenario(github_hub, base_files={F2P_WORKFLOW: F2P_TEXT}, files=(
        {F2P_WORKFLOW: F2P_TEXT + "# the agent's copy\n"} if the_pr_edits_it else {}),
        policy=NARROW_CHAIN)
    add_test_run(s, None)
    add_test_run(s, base_code_xml(s.pull.base_sha, s.head.sha), path=F2P_WORKFLOW)
    return s


def test_a_base_code_artifact_from_a_workflow_the_pr_changed_does_not_count(
        github_hub: Hub, tmp_path: Path) -> None:
    s = _with_f2p_workflow(github_hub, the_pr_edits_it=True)
    result, files, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required"), summary
    # the one reason: the head's own run (ci.yml) still counts
    assert "**Reason:** unverified: `no_fail_to_pass`" in summary
    assert "does not count (producer_modified)" in summary
    assert f"the PR itself edits {F2P_WORKFLOW}" in summary
    assert "x-fail-to-pass" not in record_verdict(files)


def test_control_the_same_artifact_from_a_workflow_the_pr_left_alone_counts(
        github_hub: Hub, tmp_path: Path) -> None:
    s = _with_f2p_workflow(github_hub, the_pr_edits_it=False)
    result, files, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (0, "success"), summary
    assert record_verdict(files)["x-fail-to-pass"] == [FIXED_TEST]


def test_a_base_code_report_bound_to_another_base_does_not_count(
        github_hub: Hub, tmp_path: Path) -> None:
    s = f2p_scenario(github_hub)
    other = "0123456789abcdef" * 2 + "01234567"
    add_test_run(s, base_code_xml(other, s.head.sha))
    result, _, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required"), summary
    assert "no_fail_to_pass" in summary
    assert f"ran over the code of {other[:12]}, not the base {s.pull.base_sha[:12]}" in summary


def test_a_base_code_report_of_another_head_does_not_count(
        github_hub: Hub, tmp_path: Path) -> None:
    s = f2p_scenario(github_hub)
    add_test_run(s, base_code_xml(s.pull.base_sha, s.repo.branches["main"]))
    result, _, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required"), summary
    assert "no_fail_to_pass" in summary


def test_a_base_code_artifact_on_the_base_branch_is_never_its_baseline(
        github_hub: Hub, tmp_path: Path) -> None:
    # The base branch's push run holds only an artifact named like base-code-artifact-name
    # (and like junit-*): it is no baseline JUnit, so no test of it counts as removed.
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]),
                 base_files={POLICY_PATH: REQUIRE}, baseline=())
    at = T0 - timedelta(hours=3)
    github_hub.add_workflow_run(
        s.repo, head_sha=s.repo.branches["main"], event="push", head_branch="main",
        path=".github/workflows/ci.yml", conclusion="success", run_started_at=at,
        created_at=at, updated_at=at + timedelta(minutes=3), name="CI on main",
        artifacts=[ArtifactSpec("junit-base-code", zip_bytes(
            {"reports/base-code.xml": junit_xml(passed=4)}))])
    add_test_run(s, base_code_xml(s.pull.base_sha, s.head.sha))
    result, _, summary = gate(s, tmp_path)
    assert "test_case_3" not in summary + result.stdout
    assert "cannot be compared: it has no JUnit artifact" in result.stdout + summary


def test_a_coverage_file_beside_the_base_code_report_is_skipped_not_broken(
        github_hub: Hub, tmp_path: Path) -> None:
    # A file that is no JUnit report is skipped (a typed note), not a failure to read.
    s = f2p_scenario(github_hub)
    s.runs.append(s.hub.add_workflow_run(
        s.repo, head_sha=s.head.sha, path=".github/workflows/ci.yml", pull_requests=[s.pull],
        conclusion="success", run_started_at=T0 + timedelta(minutes=6),
        created_at=T0 + timedelta(minutes=6), updated_at=T0 + timedelta(minutes=8),
        artifacts=[ArtifactSpec("junit-results", zip_bytes(
                       {"reports/junit.xml": junit_xml(commit=s.head.sha)})),
                   ArtifactSpec("junit-base-code", zip_bytes(
                       {"reports/base-code.xml": base_code_xml(s.pull.base_sha, s.head.sha),
                        "reports/coverage.xml": '<coverage version="7"/>'}))]))
    result, files, summary = gate(s, tmp_path)
    assert (result.code, s.check().conclusion) == (0, "success"), summary
    assert record_verdict(files)["x-fail-to-pass"] == [FIXED_TEST]
