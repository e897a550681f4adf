"""Issue 20 item 7 through the GitHub stand-in: a maintainer's acceptance is refused for every
agent by the same rule that gates PRs (ids, apps, presets, logins), and it is bound to the
sha256 of the claim accepted, so an agent editing a PR-body claim without a push loses it.
Each attack has its honest control beside it, which gets `success`."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, Scenario, claim_json, edit, scenario
from tests.github_standin.hub import Hub
from tests.github_standin.model import User
from tests.test_claims_in_practice import record_of, review_event, shown

EARLIER = T0 - timedelta(minutes=3)
BODY_CLAIM = claim_json([edit(at=EARLIER)])


def _line(claim: str | bytes, reason: str) -> str:
    data = claim.encode("utf-8") if isinstance(claim, str) else claim
    return f"/claim-gate accept sha256:{hashlib.sha256(data).hexdigest()[:16]} {reason}"


def _reviewer(s: Scenario, who: str) -> tuple[User, dict[str, str]]:
    """The reviewer and the inputs naming the agents; "maintainer" is the honest control."""
    hub = s.hub
    if who == "maintainer":
        user, inputs = hub.add_user("mona"), {"agent_presets": "devin"}
    elif who == "agent-by-id":
        user = hub.add_user("renamed-helper", type="Bot")
        inputs = {"agent_authors": f"copilot-swe-agent[bot],id:{user.id}"}
    elif who == "agent-by-app":
        user = hub.add_user("my-agent[bot]", type="Bot")
        inputs = {"agent_authors": "copilot-swe-agent[bot],app:my-agent"}
    elif who == "agent-by-preset":
        user, inputs = hub.add_user("devin-ai-integration[bot]", type="Bot"), {
            "agent_presets": "devin,copilot"}
    else:  # a login glob with a bot's brackets, taken literally
        user = hub.add_user("claude[bot]", type="Bot")
        inputs = {"agent_authors": "copilot-swe-agent[bot],claude[bot]"}
    hub.set_permission(s.repo, user, "write")
    return user, inputs


@pytest.mark.parametrize("who", ["maintainer", "agent-by-id", "agent-by-app",
                                 "agent-by-preset", "agent-by-login"])
def test_no_agent_accepts_a_claim_however_it_is_named(
    github_hub: Hub, tmp_path: Path, who: str
) -> None:
    claim = claim_json([edit(at=EARLIER)])
    s = scenario(github_hub, claim)  # unverified: no CI run wrote test evidence
    user, inputs = _reviewer(s, who)
    review = github_hub.add_review(s.pull, user, _line(claim, "looks fine to me"))
    result, _ = review_event(s, tmp_path, review, **inputs)
    check = s.check()
    if who == "maintainer":
        assert (result.code, check.conclusion) == (0, "success")
        assert record_of(s)["x-override"]["accepted_by"] == "mona"
        return
    assert (result.code, check.conclusion) == (1, "action_required")
    assert "x-override" not in record_of(s)
    assert f"review {review.id} by @{user.login}: it is an agent's account" in shown(
        check.summary)


@pytest.mark.parametrize("edited", [False, True])
def test_an_edited_body_claim_voids_the_acceptance(
    github_hub: Hub, tmp_path: Path, edited: bool
) -> None:
    """The maintainer accepts the PR-body claim; the agent then edits the body (no push) to
    claim more. The edited claim is another claim: it is decided on its own."""
    s = scenario(github_hub, None, body="Fixes it.\n\n```completion-claim\n" + BODY_CLAIM
                 + "\n```\n")
    mona = github_hub.add_user("mona")
    github_hub.set_permission(s.repo, mona, "maintain")
    review = github_hub.add_review(s.pull, mona, _line(BODY_CLAIM, "checked by hand"))
    more = claim_json([edit(at=EARLIER), edit("m2", at=EARLIER, path="app/other.py")])
    if edited:
        s.pull.body = "Fixes it.\n\n```completion-claim\n" + more + "\n```\n"
    result, _ = review_event(s, tmp_path, review)
    check = s.check()
    if not edited:
        assert (result.code, check.conclusion) == (0, "success")
        assert record_of(s)["x-override"]["claim_sha256"] == hashlib.sha256(
            BODY_CLAIM.encode()).hexdigest()
        return
    assert (result.code, check.conclusion) == (1, "action_required")
    summary = shown(check.summary)
    assert "a changed claim voids an acceptance" in summary
    assert _line(more, "<reason>") in summary  # the line that would accept the new claim


def test_an_acceptance_naming_no_claim_is_refused_and_the_check_shows_the_line(
    github_hub: Hub, tmp_path: Path
) -> None:
    claim = claim_json([edit(at=EARLIER)])
    s = scenario(github_hub, claim)
    mona = github_hub.add_user("mona")
    github_hub.set_permission(s.repo, mona, "admin")
    review = github_hub.add_review(s.pull, mona, "/claim-gate accept checked by hand")
    result, _ = review_event(s, tmp_path, review)
    check = s.check()
    assert (result.code, check.conclusion) == (1, "action_required")
    summary = shown(check.summary)
    assert f"review {review.id} by @mona: it names no claim" in summary
    assert _line(claim, "<reason>") in summary
