"""Issue 20 item 9 through the GitHub stand-in: one check per commit, verdicts per PR. Only
PRs into protected bases are decided; among PRs with the same head into the same base the
best verdict is what the commit ends with; an unprotected-base or outsider PR (a fork PR
reusing the honest PR's head commit) never lowers another PR's check, and an outsider's "not
required" never raises an agent's. Availability cases get `success`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from gate.engine.bases import PostCandidate, posting_order
from tests.action_support import (
    REPO,
    T0,
    Scenario,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin.events import workflow_run_event
from tests.github_standin.hub import Hub
from tests.github_standin.model import Pull, WorkflowRun

EARLIER = T0 - timedelta(minutes=3)
BLOCK = "```completion-claim\n" + claim_json([edit(at=EARLIER)]) + "\n```\n"


def _outsider_pull(s: Scenario, body: str | None = None) -> Pull:
    """Anyone can fork and open a PR whose head is the honest PR's head commit."""
    outsider = s.hub.add_user("mallory")
    fork = s.hub.add_repo("mallory/app", fork_of=s.repo)
    return s.hub.add_pull(s.repo, head="copilot/fix-parser", head_repo=fork, user=outsider,
                          body=body)


def _agent_side_pull(s: Scenario) -> Pull:
    """A second PR of the agent's with the same head, into a branch the agent pushed."""
    s.hub.add_commit(s.repo, {"notes.md": "side\n"}, branch="copilot/base",
                     parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=1))
    agent = s.hub.add_user("copilot-swe-agent[bot]", type="Bot")
    return s.hub.add_pull(s.repo, head="copilot/fix-parser", base="copilot/base", user=agent)


def _wake(s: Scenario, tmp_path: Path, run: WorkflowRun, **inputs: str) -> tuple[int, str]:
    """A workflow_run naming no PR (a fork's run does not): the gate decides every PR on
    the commit. Returns the exit code and the conclusion the commit ends with."""
    files = runner_files(tmp_path, workflow_run_event(s.hub, run))
    inputs.setdefault("artifact_name", "junit-*")
    result = run_action(runner_env(s.hub, files, "workflow_run", REPO, **inputs))
    checks = s.hub.check_runs(head_sha=s.head.sha, name="completion-claim",
                              app=s.hub.actions_app)
    latest = max(checks, key=lambda c: c.id)
    return result.code, latest.conclusion or ""


def _push_run(s: Scenario) -> WorkflowRun:
    """The honest evidence: a push run of the PR's branch on its head (no PR attribution)."""
    return s.add_run(junit_xml(passed=5), event="push", head_branch="copilot/fix-parser",
                     pull_requests=[])


@pytest.mark.parametrize("other", ["none", "outsider-not-required", "outsider-required",
                                   "agent-into-unprotected-base"])
def test_no_other_pr_on_the_head_lowers_the_honest_prs_check(
    github_hub: Hub, tmp_path: Path, other: str
) -> None:
    s = scenario(github_hub, None, body="Fixes the parser.\n\n" + BLOCK)  # a PR-body claim
    inputs = {}
    if other.startswith("outsider"):
        _outsider_pull(s, body="no claim here")  # its body has no claim: unverified there
        if other == "outsider-required":
            inputs["require_claim"] = "always"
    elif other == "agent-into-unprotected-base":
        _agent_side_pull(s)
    run = _push_run(s)
    code, conclusion = _wake(s, tmp_path, run, **inputs)
    assert (code, conclusion) == (0, "success")


def test_an_outsiders_not_required_pr_never_raises_an_agents_check(
    github_hub: Hub, tmp_path: Path
) -> None:
    """The agent's claim is unverified (no test evidence); an outsider's PR on the same head is
    not an agent's ("no claim required", neutral, which branch protection would pass)."""
    s = scenario(github_hub, claim_json([edit(at=EARLIER)]))
    _outsider_pull(s)
    run = s.add_run(None, event="push", head_branch="copilot/fix-parser", pull_requests=[])
    code, conclusion = _wake(s, tmp_path, run)
    assert (code, conclusion) == (1, "action_required")


def test_control_the_agents_pr_alone_is_verified(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=EARLIER)]))
    run = _push_run(s)
    assert _wake(s, tmp_path, run) == (0, "success")


def _c(base: str, protected: bool, required: bool, severity: int) -> PostCandidate:
    return PostCandidate(base, protected, required, severity)


@pytest.mark.parametrize(("candidates", "chosen"), [
    ([_c("main", True, True, 0)], [0]),
    # the same base: the best stands, whoever is first
    ([_c("main", True, True, 1), _c("main", True, True, 0)], [1]),
    ([_c("main", True, True, 9), _c("main", True, True, 0)], [1]),
    # an unprotected base is never chosen beside a protected one, nor is "not required"
    ([_c("agent", False, True, 0), _c("main", True, True, 1)], [1]),
    ([_c("main", True, False, -1), _c("main", True, True, 1)], [1]),
    # alone, they are what there is
    ([_c("agent", False, True, 1)], [0]),
    ([_c("main", True, False, -1)], [0]),
    # two protected bases: each its best, the worst posted last
    ([_c("release", True, True, 2), _c("main", True, True, 0), _c("main", True, True, 1)],
     [1, 0]),
])
def test_the_posting_order(candidates: list[PostCandidate], chosen: list[int]) -> None:
    assert posting_order(candidates) == chosen
