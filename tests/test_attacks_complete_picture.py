"""Issue 10 (round 2), classes 1, 2, 5 and 9: `verified` needs a complete picture.

Each row is an attack through the GitHub stand-in beside its honest control (the same
scenario without the attack), which must get `success`; the attack must not, and what a
reviewer sees must name it. The README's "What claim-gate defends against" table lists the
same rows (the test at the end keeps them in step). A second table injects each failure
mode of the collectors touched here into an otherwise honest scenario: none may give
`success`.
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

from tests.action_support import (
    REPO,
    ROOT,
    T0,
    Scenario,
    add_baseline,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin import ArtifactSpec, zip_bytes
from tests.github_standin.events import (
    merge_group_event,
    pull_request_event,
    workflow_run_event,
)
from tests.github_standin.hub import Hub

CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3))])
LINT = ".github/workflows/lint.yml"


@dataclass(frozen=True)
class Seen:
    conclusion: str | None
    words: str
    code: int


def _act(s: Scenario, tmp_path: Path, *, event: str = "pull_request", action: str = "synchronize",
         payload: Any = None, env: dict[str, str] | None = None, **inputs: str) -> Seen:
    """Run the action once and read the configured check on the head (GitHub Actions')."""
    if payload is None:
        payload = (workflow_run_event(s.hub, s.runs[-1]) if event == "workflow_run"
                   else pull_request_event(s.hub, s.pull, action=action))
    tmp_path.mkdir(parents=True, exist_ok=True)
    files = runner_files(tmp_path, payload)
    inputs.setdefault("artifact_name", "junit-*")
    result = run_action({**runner_env(s.hub, files, event, REPO, **inputs), **(env or {})})
    checks = s.hub.check_runs(head_sha=s.head.sha, name="completion-claim",
                              app=s.hub.actions_app)
    latest = max(checks, key=lambda c: c.id) if checks else None
    summary = files.summary.read_text("utf-8") if files.summary.exists() else ""
    summary = re.sub(r"<details><summary>The completed claim.*?</details>", "", summary,
                     flags=re.S)
    words = "\n".join([latest.title or "", latest.summary or "", summary] if latest else
                      [summary, result.stdout])
    seen = Seen(latest.conclusion if latest else None, words, result.code)
    assert seen.code != 0 or seen.conclusion == "success", result.stdout
    return seen


def _artifact(xml: str, name: str = "junit-results") -> ArtifactSpec:
    return ArtifactSpec(name, zip_bytes({"reports/junit.xml": xml}))


# -- class 1: the PR's base is the agent's choice ---------------------------------------------


def _agent_base(s: Scenario) -> str:
    """A branch the agent pushed, whose policy and workflow it wrote."""
    s.hub.add_commit(s.repo, {".github/workflows/ci.yml": "# always green\n",
                              ".github/claim-policy.yml": "id: mine\nrequires: []\n"},
                     branch="copilot/base", parents=[s.repo.branches["main"]],
                     pushed_at=T0 - timedelta(minutes=2))
    return "copilot/base"


def pr_into_a_branch_the_agent_pushed(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    s = scenario(hub, CLAIM)
    if attack:
        hub.retarget_pull(s.pull, _agent_base(s))
    s.add_run(junit_xml(passed=5))
    return _act(s, tmp_path)


def retargeted_after_a_green_run_for_another_base(hub: Hub, tmp_path: Path,
                                                  attack: bool) -> Seen:
    s = scenario(hub, CLAIM)
    if attack:  # the run was made while the PR targeted the agent's branch
        main = s.pull.base_ref
        hub.retarget_pull(s.pull, _agent_base(s))
        s.add_run(junit_xml(passed=5))
        hub.retarget_pull(s.pull, main)
    else:
        s.add_run(junit_xml(passed=5))
    return _act(s, tmp_path, action="edited")


def workflow_run_naming_two_prs(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """One head, two PRs: the first into the agent's branch, the second into main."""
    s = scenario(hub, CLAIM)
    pulls = [s.pull]
    if attack:
        agent = hub.add_user("copilot-swe-agent[bot]", type="Bot")
        side = hub.add_pull(s.repo, head="copilot/fix-parser", base=_agent_base(s), user=agent)
        pulls = [side, s.pull]
    s.add_run(junit_xml(passed=5), pull_requests=pulls)
    seen = _act(s, tmp_path, event="workflow_run")
    decided = {c.external_id for c in hub.check_runs(head_sha=s.head.sha,
                                                     name="completion-claim")}
    assert decided == {f"claim-gate pr={p.number} base={p.base_ref}" for p in pulls}
    return seen


# -- class 2: incomplete CI counted as complete ------------------------------------------------


def second_workflow_still_running(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    s = scenario(hub, CLAIM, baseline=(".github/workflows/ci.yml", LINT))
    s.add_run(junit_xml(passed=5))
    if attack:
        s.add_run(None, name="Lint", path=LINT, status="in_progress", conclusion=None)
    else:
        s.add_run(junit_xml(passed=3), name="Lint", path=LINT)
    return _act(s, tmp_path)


def _failed_run(conclusion: str) -> Callable[[Hub, Path, bool], Seen]:
    def build(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
        """The job that failed uploaded nothing; the passing job's JUnit is all there is."""
        s = scenario(hub, CLAIM)
        s.add_run(junit_xml(passed=5), conclusion=conclusion if attack else "success")
        return _act(s, tmp_path)
    build.__name__ = f"run_that_ended_{conclusion}_with_passing_junit"
    return build


def malformed_artifact_beside_a_passing_one(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    s = scenario(hub, CLAIM, baseline=(".github/workflows/ci.yml", LINT))
    s.add_run(junit_xml(passed=5))
    broken = b"not a zip at all" if attack else zip_bytes({"r/junit.xml": junit_xml(passed=3)})
    s.runs.append(hub.add_workflow_run(
        s.repo, head_sha=s.head.sha, name="Other", path=LINT, pull_requests=[s.pull],
        created_at=T0 + timedelta(minutes=5), run_started_at=T0 + timedelta(minutes=5),
        updated_at=T0 + timedelta(minutes=7), artifacts=[ArtifactSpec("junit-other", broken)]))
    return _act(s, tmp_path)


def expired_artifact_of_a_counted_run(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    s = scenario(hub, CLAIM, baseline=(".github/workflows/ci.yml", LINT))
    s.add_run(junit_xml(passed=5))
    s.add_run(None, name="Other", path=LINT)
    hub.add_artifact(s.runs[-1], ArtifactSpec(
        "junit-other", zip_bytes({"r/junit.xml": junit_xml(passed=3)}), expired=attack))
    return _act(s, tmp_path)


# -- class 5: unreadable baselines and clocks read as fine -------------------------------------


def baseline_artifact_expired_and_the_failing_test_deleted(hub: Hub, tmp_path: Path,
                                                            attack: bool) -> Seen:
    s = scenario(hub, CLAIM, baseline=())
    run = add_baseline(hub, s.repo, xml=junit_xml(passed=3, failed=1 if attack else 0),
                       conclusion="failure" if attack else "success")
    if attack:
        for artifact in run.artifacts:
            artifact.expired = True
    s.add_run(junit_xml(passed=3))  # the failing test is gone from the head
    return _act(s, tmp_path)


def force_push_to_an_old_green_sha_with_activity_unreadable(hub: Hub, tmp_path: Path,
                                                            attack: bool) -> Seen:
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=5))
    if attack:
        hub.add_commit(s.repo, {"app/parser.py": "x = 3\n"}, branch="copilot/fix-parser",
                       pushed_at=T0 + timedelta(minutes=20))
        hub.push(s.repo, "copilot/fix-parser", s.head.sha, at=T0 + timedelta(minutes=40),
                 force=True)
        hub.update_pull_head(s.pull)
        hub.fail("GET /repos/{owner}/{repo}/activity", times=20, status=404)
    return _act(s, tmp_path)


# -- class 9: the gate's own shape -------------------------------------------------------------


def several_claim_files_one_unverified(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """Not an attack on the gate but on the PR: the required name must always appear."""
    deploy = {"id": "d1", "kind": "deploy", "target": "production",
              "at": "2026-03-02T08:57:00Z"}  # nothing observed the deployment
    bad = claim_json([edit(at=T0 - timedelta(minutes=3)), deploy])
    s = scenario(hub, None, files={"claims/a.json": CLAIM,
                                   "claims/b.json": bad if attack else CLAIM})
    s.add_run(junit_xml(passed=5))
    seen = _act(s, tmp_path, claim_path="claims/*.json")
    names = {c.name for c in hub.check_runs(head_sha=s.head.sha)}
    assert {"completion-claim (claims/a.json)", "completion-claim (claims/b.json)",
            "completion-claim"} <= names
    return seen


@dataclass(frozen=True)
class Row:
    name: str  # as in the README table
    build: Callable[[Hub, Path, bool], Seen]
    code: str  # the reason code a reviewer sees ("-": none)
    words: tuple[str, ...]


ROWS = [
    Row("a PR into a branch the agent pushed (its own policy and workflows)",
        pr_into_a_branch_the_agent_pushed, "-",
        ("the PR targets 'copilot/base', which is not a protected base ('main')",)),
    Row("a PR retargeted to main after a green run made for another base",
        retargeted_after_a_green_run_for_another_base, "other_base",
        ("was made while the PR targeted 'copilot/base', not its base now ('main')",)),
    Row("a workflow_run naming two PRs with one head, the first into the agent's branch",
        workflow_run_naming_two_prs, "-", ("which is not a protected base",)),
    Row("a second test workflow still in progress on the head",
        second_workflow_still_running, "ci_incomplete",
        ("CI on the head is not finished", "'Lint'", "is in_progress")),
    *(Row(f"a run that ended {c} lends its passing jobs' JUnit", _failed_run(c),
          "run_not_successful", (f"a run that ended {c}", "never supports verified"))
      for c in ("failure", "timed_out", "startup_failure")),
    Row("a run that ended cancelled beside nothing else", _failed_run("cancelled"),
        "ci_failed", ("ended cancelled", "did not succeed")),
    Row("a malformed artifact beside another passing artifact",
        malformed_artifact_beside_a_passing_one, "unreadable_artifact",
        ("an artifact of a counted run could not be read", "'junit-other'")),
    Row("an expired artifact of a counted run beside a passing one",
        expired_artifact_of_a_counted_run, "unreadable_artifact",
        ("'junit-other'", "it has expired")),
    Row("the base branch's JUnit artifact expired and the PR deleted the failing test",
        baseline_artifact_expired_and_the_failing_test_deleted, "no_baseline",
        ("could not be compared with the base branch's", "has expired")),
    Row("a force-push back to an older green SHA while the activity cannot be read",
        force_push_to_an_old_green_sha_with_activity_unreadable, "arrival_unknown",
        ("activity could not be read", "no CI run can be shown to have tested it")),
    Row("several claim files (claim-path glob), one of them unverified",
        several_claim_files_one_unverified, "-",
        ("unverified: 2 claim files (1 verified, 1 unverified)",)),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_honest_control_is_verified(github_hub: Hub, tmp_path: Path, row: Row) -> None:
    seen = row.build(github_hub, tmp_path, False)
    assert (seen.conclusion, seen.code) == ("success", 0), seen.words


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_the_attack_is_not_verified(github_hub: Hub, tmp_path: Path, row: Row) -> None:
    seen = row.build(github_hub, tmp_path, True)
    assert seen.conclusion == "action_required", seen.words
    assert seen.code == 1
    flat = " ".join(seen.words.split()).replace("\\", "")
    for words in row.words + ((f"`{row.code}`",) if row.code != "-" else ()):
        assert words in flat, f"{words!r} not in what the reviewer sees:\n{seen.words}"


def test_the_attack_table_lists_every_row() -> None:
    """The table lives in docs/trust-model.md once the README is a front door; until then
    in the README."""
    doc = ROOT / "docs" / "trust-model.md"
    text = (doc if doc.exists() else ROOT / "README.md").read_text("utf-8")
    section = text.split("## What claim-gate defends against", 1)[1].split("\n## ", 1)[0]
    for row in ROWS:
        code = f"`{row.code}`" if row.code != "-" else "-"
        found = re.search(rf"^\| {re.escape(row.name)} \| [^|]+ \| (.+) \|$", section, re.M)
        assert found is not None, row.name
        assert found[1] == code, row.name


# -- the gate's own run, protected bases named by the operator, the merge queue ---------------


def test_the_gates_own_run_in_progress_is_not_waited_for(github_hub: Hub,
                                                         tmp_path: Path) -> None:
    """Same-job set-up: the gate's own run is in progress on the head by definition."""
    s = scenario(github_hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    own = s.add_run(None, name="Tests", path=".github/workflows/tests.yml",
                    status="in_progress", conclusion=None)
    seen = _act(s, tmp_path, env={"GITHUB_RUN_ID": str(own.id)})
    assert seen.conclusion == "success", seen.words
    assert "is the gate's own run" in seen.words
    other = _act(s, tmp_path / "again", env={"GITHUB_RUN_ID": "999999"})
    assert other.conclusion == "action_required"
    assert "`ci_incomplete`" in other.words


#: The stand-in lists a PR's files against its base's tip, so after a retarget to `release` the
#: release-only NOTES file shows as changed; the owner exempts it (claims vs the diff, issue 12).
RELEASE_POLICY = "id: release\nrequires: [test_run]\nunclaimed_ok: [NOTES]\n"


def test_a_base_the_operator_names_is_decided_and_a_pattern_is_refused(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM)
    github_hub.add_commit(s.repo, {"NOTES": "r\n"}, branch="release",
                          parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=5))
    add_baseline(github_hub, s.repo, branch="release", at=T0 - timedelta(hours=4))
    github_hub.retarget_pull(s.pull, "release")
    s.add_run(junit_xml(passed=5))
    refused = _act(s, tmp_path / "a")
    assert refused.conclusion == "action_required"
    assert "which is not a protected base ('main')" in " ".join(refused.words.split())
    seen = _act(s, tmp_path / "b", protected_bases="main, release", policy=RELEASE_POLICY)
    assert seen.conclusion == "success", seen.words
    pattern = _act(s, tmp_path / "c", protected_bases="release/*")
    assert pattern.code == 3


def test_the_merge_queue_refuses_a_check_decided_for_another_base(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The PR was verified into `release`, then retargeted to main and queued there."""
    s = scenario(github_hub, CLAIM)
    github_hub.add_commit(s.repo, {"NOTES": "r\n"}, branch="release",
                          parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=5))
    add_baseline(github_hub, s.repo, branch="release", at=T0 - timedelta(hours=4))
    github_hub.retarget_pull(s.pull, "release")
    s.add_run(junit_xml(passed=5))
    assert _act(s, tmp_path / "pr", protected_bases="main, release",
                policy=RELEASE_POLICY).conclusion == "success"
    github_hub.retarget_pull(s.pull, "main")
    group = github_hub.add_merge_group(s.repo, [s.pull], pushed_at=T0 + timedelta(minutes=50))
    files = runner_files(tmp_path, merge_group_event(github_hub, group))
    result = run_action(runner_env(github_hub, files, "merge_group", REPO))
    [check] = github_hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    assert (result.code, check.conclusion) == (1, "failure")
    assert "was decided for the base 'release', but the PR targets 'main'" in " ".join(
        (check.summary or "").split())


# -- no fault, unread input or unfinished run gives success ------------------------------------

_RUNS = "GET /repos/{owner}/{repo}/actions/runs"
_ARTIFACTS = "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"
_DOWNLOAD = "GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"
_COMPARE = "GET /repos/{owner}/{repo}/compare/{basehead}"
_TIMELINE = "GET /repos/{owner}/{repo}/issues/{issue_number}/timeline"
_PULLS_OF_COMMIT = "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls"


def _fault(endpoint: str, status: int) -> Callable[[Scenario], None]:
    def inject(s: Scenario) -> None:
        s.hub.fail(endpoint, times=50, status=status)
    return inject


def _head_run(**kwargs: Any) -> Callable[[Scenario], None]:
    def inject(s: Scenario) -> None:
        s.runs[-1].status = kwargs.get("status", "completed")
        s.runs[-1].conclusion = kwargs.get("conclusion")
    return inject


def _expire(which: str) -> Callable[[Scenario], None]:
    def inject(s: Scenario) -> None:
        runs = [r for r in s.hub.runs.values() if (r.event == "push") == (which == "base")]
        for run in runs:
            for artifact in run.artifacts:
                artifact.expired = True
    return inject


def _retarget(s: Scenario) -> None:
    s.hub.add_commit(s.repo, {"x": "1\n"}, branch="other", parents=[s.repo.branches["main"]],
                     pushed_at=T0 - timedelta(hours=1))
    s.hub.retarget_pull(s.pull, "other")


def _no_baseline(s: Scenario) -> None:
    for run in [r for r in s.hub.runs.values() if r.event == "push"]:
        del s.hub.runs[run.id]


FAILURE_MODES: dict[str, Callable[[Scenario], None]] = {
    "activity 404": _fault("GET /repos/{owner}/{repo}/activity", 404),
    "activity 500": _fault("GET /repos/{owner}/{repo}/activity", 500),
    "head runs 500": _fault(_RUNS, 500),
    "artifact list 500": _fault(_ARTIFACTS, 500),
    "artifact download 500": _fault(_DOWNLOAD, 500),
    "comparison 500": _fault(_COMPARE, 500),
    "timeline 500": _fault(_TIMELINE, 500),
    "pulls holding the head 500": _fault(_PULLS_OF_COMMIT, 500),
    "pull 500": _fault("GET /repos/{owner}/{repo}/pulls/{pull_number}", 500),
    "head artifact expired": _expire("head"),
    "baseline artifact expired": _expire("base"),
    "no baseline run": _no_baseline,
    "head run queued": _head_run(status="queued"),
    "head run in progress": _head_run(status="in_progress"),
    "head run waiting for approval": _head_run(conclusion="action_required"),
    "head run stale": _head_run(conclusion="stale"),
    "head run failure": _head_run(conclusion="failure"),
    "head run timed out": _head_run(conclusion="timed_out"),
    "head run startup failure": _head_run(conclusion="startup_failure"),
    "head run cancelled": _head_run(conclusion="cancelled"),
    "PR retargeted to an unprotected base": _retarget,
}


@pytest.mark.parametrize("mode", list(FAILURE_MODES))
def test_no_fault_unread_input_or_unfinished_run_gives_success(
    github_hub: Hub, tmp_path: Path, mode: str
) -> None:
    s = scenario(github_hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    FAILURE_MODES[mode](s)
    seen = _act(s, tmp_path)
    assert seen.conclusion != "success", seen.words
    assert seen.code != 0


def test_the_failure_table_has_a_working_control(github_hub: Hub, tmp_path: Path) -> None:
    """Without a failure mode the same scenario passes, so every row above is meaningful."""
    s = scenario(github_hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    seen = _act(s, tmp_path)
    assert (seen.conclusion, seen.code) == ("success", 0), seen.words
    assert json.dumps(seen.words)  # the words are text
