"""Issue 20 item 8 through the GitHub stand-in: evidence counts only when bound to what was
claimed by something the agent cannot choose. A `deploy` mutation that names no environment
is covered by no environment's deployment (the PR's preview cannot stand for production) and
is unverified with a reason saying to name it. Each attack beside its honest control."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, act, claim_json, edit, junit_xml, scenario
from tests.github_standin import DeploymentStatusSpec
from tests.github_standin.hub import Hub
from tests.test_claims_in_practice import shown

POLICY = ("id: deploys\nrequires: [test_run]\ndeployment_creators: [octo]\n"
          "deployment_success_counts: true\n")


@pytest.mark.parametrize(("target", "environment", "expected"), [
    ("production", "production", (0, "success")),  # control: the deploy named and seen
    (None, "preview", (1, "action_required")),  # the preview stood in for any environment
    (None, "production", (1, "action_required")),  # even the right one: it is not bound
    ("", "production", (1, "action_required")),
    ("production", "preview", (1, "action_required")),  # another environment never counts
])
def test_a_deploy_is_covered_only_by_the_environment_it_names(
    github_hub: Hub, tmp_path: Path, target: str | None, environment: str,
    expected: tuple[int, str],
) -> None:
    deploy: dict[str, object] = {"id": "d1", "kind": "deploy", "at": "2026-03-02T08:58:00Z"}
    if target is not None:
        deploy["target"] = target
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3)), deploy]))
    s.add_run(junit_xml())
    github_hub.add_deployment(s.repo, sha=s.head.sha, environment=environment, created_at=T0,
                              statuses=[DeploymentStatusSpec(
                                  "success", created_at=T0 + timedelta(minutes=58))])
    result, _ = act(s, tmp_path, policy=POLICY)
    check = s.check()
    assert (result.code, check.conclusion) == expected
    if not target:
        assert "mutation d1 (deploy) names no environment" in shown(check.summary)
        assert "name the environment in the claim" in shown(check.summary)
