"""What claim-gate defends against: one row per attack, each through the GitHub stand-in.

Every row builds the attack in the stand-in (repository, PR, pushes, runs, checks, statuses,
deployments), runs the action from a real example event payload, and checks two things:
the outcome (the check run's conclusion) and that the reason shown to a reviewer (the
check run's title and summary) names the attack in plain words. docs/trust-model.md's "What
claim-gate defends against" table lists the same rows (a test keeps them in step).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from gate.claim.schema import validator
from tests.action_support import (
    REPO,
    ROOT,
    T0,
    Scenario,
    act,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin import ArtifactSpec, DeploymentStatusSpec, JobSpec, zip_bytes
from tests.github_standin.events import merge_group_event
from tests.github_standin.hub import Hub

CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3))])
WORKFLOW = ".github/workflows/ci.yml"
WORKFLOW_TEXT = "on: pull_request\njobs:\n  test:\n    runs-on: ubuntu-latest\n"


@dataclass(frozen=True)
class Seen:
    """What a reviewer sees: the check's conclusion and its words; and the record."""

    conclusion: str | None
    words: str
    record: dict[str, Any] | None


def _seen(s: Scenario, files_summary: str, claim_json_path: str | None) -> Seen:
    [check] = s.hub.check_runs(head_sha=s.head.sha, name="completion-claim",
                               app=s.hub.actions_app)
    record = json.loads(Path(claim_json_path).read_text("utf-8")) if claim_json_path else None
    # The job summary ends with the completed claim as JSON (folded); the reviewer's words
    # must come from the readable part, so the record's own messages cannot satisfy the check.
    readable = re.sub(r"<details><summary>The completed claim.*?</details>", "", files_summary,
                      flags=re.S)
    words = "\n".join([check.title or "", check.summary or "", readable])
    return Seen(check.conclusion, words, record)


def _run(s: Scenario, tmp_path: Path, **inputs: str) -> Seen:
    result, files = act(s, tmp_path, **inputs)
    outputs = files.outputs()
    summary = files.summary.read_text("utf-8") if files.summary.exists() else ""
    claim_json = outputs.get("claim-json")
    seen = _seen(s, summary, str(files.workspace / claim_json) if claim_json else None)
    assert result.code != 0 or seen.conclusion == "success", result.stdout
    return seen


def _base_run(s: Scenario, xml: str, conclusion: str = "failure") -> None:
    """A push run of the same workflow on the base branch, before the PR."""
    base_sha = s.repo.branches["main"]
    s.hub.add_workflow_run(
        s.repo, head_sha=base_sha, event="push", head_branch="main", conclusion=conclusion,
        run_started_at=T0 - timedelta(hours=2), created_at=T0 - timedelta(hours=2),
        updated_at=T0 - timedelta(hours=2) + timedelta(minutes=3),
        artifacts=[ArtifactSpec("junit-results", zip_bytes({"reports/junit.xml": xml}))],
    )


def _head_without(name: str, *, skipped: bool = False) -> str:
    """The head's JUnit: the passing tests, and `name` gone or marked skipped."""
    xml = junit_xml(passed=3)
    if skipped:
        xml = xml.replace("</testsuite>", f'<testcase classname="tests.test_app" name="{name}">'
                          '<skipped message="flaky"/></testcase></testsuite>')
    return xml


# -- the attacks ------------------------------------------------------------------------------


def claim_evidence_with_the_gates_id(hub: Hub, tmp_path: Path) -> Seen:
    forged = {
        "check_type": "test_run", "at": "2026-03-02T09:05:00Z", "covers": ["m1"],
        "expected": {"failures": 0}, "observed_value": {"failures": 0},
        "verifier": {"id": "claim-gate/junit@0.1.0", "kind": "independent"},
    }
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))], evidence=[forged]))
    seen = _run(s, tmp_path)
    assert seen.record is not None
    evidence = seen.record["evidence"]
    assert isinstance(evidence, list)
    assert evidence[0]["verifier"]["kind"] == "self_attested"
    assert evidence[0]["verifier"]["x-claimed-kind"] == "independent"
    return seen


def pr_edits_the_workflow_that_produced_the_junit(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM, files={WORKFLOW: WORKFLOW_TEXT + "    # tests: echo ok\n"})
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.record is not None
    [evidence] = seen.record["evidence"]
    assert evidence["verifier"]["kind"] == "self_attested", "downgraded: the PR made it"
    assert evidence["x-claim-gate"]["problem"]["code"] == "producer_modified"
    assert evidence["x-provenance"]["changed_by_pr"] == [WORKFLOW]
    return seen


def pr_edits_conftest(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM, files={"tests/conftest.py": "def pytest_runtest_call(): pass\n"})
    s.add_run(junit_xml(passed=5))
    return _run(s, tmp_path)


def pr_deletes_a_test_that_failed_on_base(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    _base_run(s, junit_xml(passed=3, failed=1))
    s.add_run(_head_without("test_case_failing_0"))
    return _run(s, tmp_path)


def pr_marks_the_failing_test_skipped(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    _base_run(s, junit_xml(passed=3, failed=1))
    s.add_run(_head_without("test_case_failing_0", skipped=True))
    return _run(s, tmp_path)


def claim_policy_requires_nothing(hub: Hub, tmp_path: Path) -> Seen:
    weak = claim_json([edit(at=T0 - timedelta(minutes=3))],
                      policy={"id": "agents-own", "requires": []})
    s = scenario(hub, weak)
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path, policy="id: owners\nrequires: [test_run, endpoint_health]\n")
    assert seen.record is not None
    policy = seen.record["policy"]
    assert isinstance(policy, dict)
    assert policy["id"] == "owners"
    assert policy["requires"] == ["test_run", "endpoint_health"]
    return seen


def run_on_the_previous_head(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    older = s.repo.commits[s.head.parents[0]]
    s.add_run(junit_xml(passed=5), head_sha=older.sha)
    return _run(s, tmp_path)


def run_started_before_the_head_arrived(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    # The head SHA is pushed again (to a new branch name) much later: that arrival counts.
    hub.push(s.repo, "copilot/fix-parser", s.head.sha, at=T0 + timedelta(minutes=30),
             force=True)
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=5))
    return _run(s, tmp_path)


def backdated_commit(hub: Hub, tmp_path: Path) -> Seen:
    """The commit says it was made a month ago; it reached GitHub at T0+30min. A run at
    T0+5min is older than the push, whatever the commit's dates say."""
    repo = hub.add_repo(REPO, files={"app/parser.py": "x = 1\n"}, pushed_at=T0 - timedelta(days=40))
    head = hub.add_commit(repo, {"app/parser.py": "x = 2\n", ".claim.json": claim_json(
        [edit(at=T0 - timedelta(days=30))])}, branch="copilot/fix-parser",
        author_date=T0 - timedelta(days=30), committer_date=T0 - timedelta(days=30),
        pushed_at=T0 + timedelta(minutes=30))
    pull = hub.add_pull(repo, head="copilot/fix-parser",
                        user=hub.add_user("copilot-swe-agent[bot]", type="Bot"))
    s = Scenario(hub, repo, head, pull, [])
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=5))
    seen = _run(s, tmp_path)
    assert seen.record is not None
    arrival = seen.record["x-verification"]["head_arrival"]
    assert arrival["at"] == "2026-03-02T09:30:00Z"
    assert arrival["commit_dates_used"] is False
    return seen


def green_check_from_another_app(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    impostor = hub.add_app("helpful-bot")
    hub.add_check_run(s.repo, head_sha=s.head.sha, name="completion-claim", app=impostor,
                      conclusion="success", title="verified")
    seen = _run(s, tmp_path)
    theirs = hub.check_runs(head_sha=s.head.sha, name="completion-claim", app=impostor)
    assert [c.conclusion for c in theirs] == ["success"], "the impostor's check is left as is"
    assert seen.record is not None
    assert seen.record["evidence"] == [], "nothing was read as evidence"
    return seen


def status_with_the_gates_name(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    hub.add_status(s.repo, sha=s.head.sha, state="success", context="completion-claim",
                   description="verified")
    seen = _run(s, tmp_path)
    assert seen.record is not None
    assert seen.record["evidence"] == [], "nothing was read as evidence"
    return seen


def job_skipped_by_a_condition(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    s.add_run(None, conclusion="success", jobs=[JobSpec("test", conclusion="skipped")])
    s.add_run(junit_xml(passed=5), conclusion="skipped")
    return _run(s, tmp_path)


def deployment_success_from_an_untrusted_creator(hub: Hub, tmp_path: Path) -> Seen:
    deploy = {"id": "d1", "kind": "deploy", "target": "production",
              "at": "2026-03-02T08:58:00Z"}
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3)), deploy]))
    s.add_run(junit_xml(passed=5))
    stranger = hub.add_user("someone-else")
    hub.add_deployment(s.repo, sha=s.head.sha, environment="production", created_at=T0,
                       creator=stranger, statuses=[DeploymentStatusSpec(
                           "success", creator=stranger, created_at=T0 + timedelta(minutes=10))])
    return _run(s, tmp_path, policy="id: owners\nrequires: [test_run]\n"
                "deployment_creators: [deploy-bot]\n")


def force_push_back_to_an_older_green_sha(hub: Hub, tmp_path: Path) -> Seen:
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=5))  # green on the first visit
    newer = hub.add_commit(s.repo, {"app/parser.py": "x = 3\n"}, branch="copilot/fix-parser",
                           pushed_at=T0 + timedelta(minutes=20))
    hub.push(s.repo, "copilot/fix-parser", s.head.sha, at=T0 + timedelta(minutes=40),
             force=True)
    hub.update_pull_head(s.pull)
    assert newer.sha != s.head.sha
    assert s.pull.head_sha == s.head.sha
    return _run(s, tmp_path)


def second_pr_on_the_same_head(hub: Hub, tmp_path: Path) -> Seen:
    """The agent opens a second PR with the same head into a branch it made (whose workflow
    it wrote): that PR's pull_request run is on the same commit, but not this PR's."""
    s = scenario(hub, CLAIM)
    agent = hub.add_user("copilot-swe-agent[bot]", type="Bot")
    hub.add_commit(s.repo, {".github/workflows/ci.yml": "# always green\n"},
                   branch="copilot/base", parents=[s.repo.branches["main"]],
                   pushed_at=T0 - timedelta(minutes=2))
    other = hub.add_pull(s.repo, head="copilot/fix-parser", base="copilot/base", user=agent)
    hub.add_workflow_run(
        s.repo, head_sha=s.head.sha, pull_requests=[other],
        created_at=T0 + timedelta(minutes=5), run_started_at=T0 + timedelta(minutes=5),
        updated_at=T0 + timedelta(minutes=7),
        artifacts=[ArtifactSpec("junit-results", zip_bytes({"junit.xml": junit_xml()}))])
    return _run(s, tmp_path)


@dataclass(frozen=True)
class Attack:
    name: str  # as in the table of docs/trust-model.md
    build: Callable[[Hub, Path], Seen]
    conclusion: str
    code: str  # the reason code a reviewer sees ("-": none, nothing was read)
    words: tuple[str, ...]  # each must appear in what the reviewer sees


ATTACKS = [
    Attack("evidence in the claim labelled independent, with the gate's own verifier id",
           claim_evidence_with_the_gates_id, "action_required", "untrusted_verifier",
           ("under the gate's own id", "which the agent can type")),
    Attack("the PR edits the workflow that produced the JUnit",
           pr_edits_the_workflow_that_produced_the_junit, "action_required", "producer_modified",
           ("producer_modified", "the PR itself edits .github/workflows/ci.yml, the workflow"
            " that produced this evidence")),
    Attack("the PR edits the test set-up (conftest.py) behind the JUnit",
           pr_edits_conftest, "action_required", "producer_modified",
           ("producer_modified", "edits the evidence chain (tests/conftest.py)")),
    Attack("the PR deletes a test that failed on base",
           pr_deletes_a_test_that_failed_on_base, "action_required", "removed_tests",
           ("removed_tests", "tests.test_app::test_case_failing_0 (failed on base, missing on"
            " head)", "Deleting or skipping a test is not fixing it")),
    Attack("the PR marks a test that failed on base skipped",
           pr_marks_the_failing_test_skipped, "action_required", "removed_tests",
           ("removed_tests", "tests.test_app::test_case_failing_0 (failed on base, skipped on"
            " head)")),
    Attack("the claim's own policy says requires: []",
           claim_policy_requires_nothing, "action_required", "missing_check_type",
           ("the policy requires endpoint_health", "Policy `owners`")),
    Attack("a CI run on the previous head",
           run_on_the_previous_head, "action_required", "missing_check_type",
           ("no workflow run on the head commit", "runs on earlier commits of the PR say"
            " nothing about the code as it is now")),
    Attack("a CI run started before the head commit arrived",
           run_started_before_the_head_arrived, "action_required", "before_arrival",
           ("before_arrival", "before the head commit arrived on GitHub")),
    Attack("a backdated commit (committer date in the past)",
           backdated_commit, "action_required", "before_arrival",
           ("before_arrival", "commit dates are the pusher's and are never used")),
    Attack("a green check run with the gate's name from another app",
           green_check_from_another_app, "action_required", "-",
           ("from the app 'helpful-bot' (success)", "it is not read as evidence")),
    Attack("a commit status with the gate's name",
           status_with_the_gates_name, "action_required", "-",
           ("a commit status 'completion-claim' (success", "it is not read as evidence")),
    Attack("a job skipped by a condition that reports success",
           job_skipped_by_a_condition, "action_required", "missing_check_type",
           ("ended skipped: that is absence", "has no artifact named like")),
    Attack("a deployment status success from an untrusted creator",
           deployment_success_from_an_untrusted_creator, "action_required", "untrusted_creator",
           ("untrusted_creator", "posted by someone-else, not by a creator the policy"
            " trusts (deploy-bot)")),
    Attack("a second PR with the same head, into a branch the agent made",
           second_pr_on_the_same_head, "action_required", "missing_check_type",
           ("ran for pull request #", "not this PR's evidence")),
    Attack("a force-push back to an older SHA that had green runs",
           force_push_back_to_an_older_green_sha, "action_required", "before_arrival",
           ("before_arrival", "force_push", "it tested an earlier push, not this one")),
]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.build.__name__ for a in ATTACKS])
def test_the_attack_does_not_fool_the_gate(
    github_hub: Hub, tmp_path: Path, attack: Attack
) -> None:
    seen = attack.build(github_hub, tmp_path)
    assert seen.conclusion == attack.conclusion, seen.words
    flat = " ".join(seen.words.split()).replace("\\", "")
    for words in attack.words + ((f"`{attack.code}`",) if attack.code != "-" else ()):
        assert words in flat, f"{words!r} not in what the reviewer sees:\n{seen.words}"


def test_without_the_attack_the_same_scenario_is_verified(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The control row: the honest version of the scenarios above passes."""
    s = scenario(github_hub, CLAIM)
    _base_run(s, junit_xml(passed=3), conclusion="success")
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "success", seen.words
    assert seen.record is not None
    verification = seen.record["x-verification"]
    assert isinstance(verification, dict)
    assert verification["removed_tests"][0]["compared"] is True
    assert verification["removed_tests"][0]["removed"] == []
    names = [entry["name"] for entry in verification["inputs"]]
    assert any(name.startswith("baseline workflow run 'CI'") for name in names), names
    assert validator("#/$defs/completed").is_valid(seen.record)


# -- the merge queue ---------------------------------------------------------------------------


def _merge_group(hub: Hub, tmp_path: Path, verified: bool, *, impostor: bool = False) -> tuple[
        int, str, str | None]:
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5) if verified else junit_xml(passed=3, failed=1),
              conclusion="success" if verified else "failure")
    if impostor:
        hub.add_check_run(s.repo, head_sha=s.head.sha, name="completion-claim",
                          app=hub.add_app("helpful-bot"), conclusion="success")
    else:
        act(s, tmp_path / "pr")  # the gate's own check on the PR head
    group = hub.add_merge_group(s.repo, [s.pull], pushed_at=T0 + timedelta(minutes=50))
    work = tmp_path / "group"
    work.mkdir()
    files = runner_files(work, merge_group_event(hub, group))
    result = run_action(runner_env(hub, files, "merge_group", REPO))
    [check] = hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    return result.code, check.conclusion or "", check.summary


@pytest.fixture
def pr_dir(tmp_path: Path) -> Path:
    (tmp_path / "pr").mkdir()
    return tmp_path


def test_merge_group_with_the_pr_verified_passes(github_hub: Hub, pr_dir: Path) -> None:
    code, conclusion, summary = _merge_group(github_hub, pr_dir, verified=True)
    assert (code, conclusion) == (0, "success"), summary
    assert "Every PR in the merge group has a verified completion claim" in (summary or "")


def test_merge_group_with_the_pr_unverified_fails_naming_it(
    github_hub: Hub, pr_dir: Path
) -> None:
    code, conclusion, summary = _merge_group(github_hub, pr_dir, verified=False)
    assert (code, conclusion) == (1, "failure")
    assert re.search(r"PR #\d+'s 'completion-claim' check on its head [0-9a-f]{12} is failure,"
                     r" not verified", summary or ""), summary


def test_merge_group_ignores_a_green_check_from_another_app(
    github_hub: Hub, pr_dir: Path
) -> None:
    code, conclusion, summary = _merge_group(github_hub, pr_dir, verified=True, impostor=True)
    assert (code, conclusion) == (1, "failure")
    assert "has no 'completion-claim' check from github-actions" in (summary or "")
    assert "from helpful-bot is ignored: only the gate's own App counts" in (summary or "")


def test_the_trust_model_lists_every_attack() -> None:
    doc = (ROOT / "docs" / "trust-model.md").read_text("utf-8")
    section = doc.split("## What claim-gate defends against", 1)[1].split("\n## ", 1)[0]
    for attack in ATTACKS:
        code = f"`{attack.code}`" if attack.code != "-" else "-"
        row = re.search(rf"^\| {re.escape(attack.name)} \| [^|]+ \| (.+) \|$", section, re.M)
        assert row is not None, attack.name
        assert row[1] == code, attack.name


def test_merge_group_fails_when_the_verified_check_is_on_an_older_head(
    github_hub: Hub, pr_dir: Path
) -> None:
    """A new push is a new head and a new check: the old head's green check carries over
    to nothing."""
    s = scenario(github_hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    act(s, pr_dir / "pr")
    assert s.check().conclusion == "success"
    github_hub.add_commit(s.repo, {"app/parser.py": "x = 4\n"}, branch="copilot/fix-parser",
                          pushed_at=T0 + timedelta(minutes=30))
    github_hub.update_pull_head(s.pull)
    group = github_hub.add_merge_group(s.repo, [s.pull], pushed_at=T0 + timedelta(minutes=50))
    work = pr_dir / "group"
    work.mkdir()
    files = runner_files(work, merge_group_event(github_hub, group))
    result = run_action(runner_env(github_hub, files, "merge_group", REPO))
    [check] = github_hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    assert (result.code, check.conclusion) == (1, "failure")
    assert f"PR #{s.pull.number} has no 'completion-claim' check from github-actions on its" \
        f" head {s.pull.head_sha[:12]}" in (check.summary or "")


def test_a_merge_group_naming_no_pr_fails(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM)
    group = github_hub.add_merge_group(s.repo, [s.pull])
    payload = merge_group_event(github_hub, group)
    payload["merge_group"]["head_ref"] = "refs/heads/gh-readonly-queue/main/something-else"
    files = runner_files(tmp_path, payload)
    result = run_action(runner_env(github_hub, files, "merge_group", REPO))
    [check] = github_hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    assert (result.code, check.conclusion) == (1, "failure")
    assert "head_ref names no pull request" in (check.summary or "")
