"""Issue 20 item 10 through the GitHub stand-in: the check run itself (not only the job
summary) lists every claim found, and which were ignored and why; the agent's invisible
characters are shown escaped on the check. Each case beside its honest control."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, act, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.test_claims_in_practice import shown

EARLIER = T0 - timedelta(minutes=3)
BLOCK = "```completion-claim\n" + claim_json([edit(at=EARLIER)]) + "\n```\n"


@pytest.mark.parametrize(("file", "body", "listed"), [
    (True, None, [".claim.json@", "counted: this PR adds or modifies it"]),
    (False, BLOCK, ["body: counted: the ```completion-claim block"]),
    (True, "Also see:\n\n" + BLOCK, [
        "counted: this PR adds or modifies it",
        "body: ignored: its ```completion-claim block is not read because this PR has a claim"
        " file, which takes precedence"]),
])
def test_the_check_lists_the_claims_found_and_which_were_ignored(
    github_hub: Hub, tmp_path: Path, file: bool, body: str | None, listed: list[str]
) -> None:
    s = scenario(github_hub, claim_json([edit(at=EARLIER)]) if file else None, body=body)
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    check = s.check()
    assert (result.code, check.conclusion) == (0, "success")  # the file claim is verified
    summary = shown(check.summary)
    assert "### Claims found" in summary
    for line in listed:
        assert line in summary


@pytest.mark.parametrize("outcome", ["Fixed the parser; all tests pass.",
                                     "Fixed the parser\u202e; all tests pass\u2066."])
def test_invisible_characters_from_the_claim_are_escaped_on_the_check(
    github_hub: Hub, tmp_path: Path, outcome: str
) -> None:
    s = scenario(github_hub, claim_json([edit(at=EARLIER)]).replace(
        "Fixed the parser; all tests pass.", json.dumps(outcome)[1:-1]))
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    check = s.check()
    assert (result.code, check.conclusion) == (0, "success")
    seen = (check.summary or "") + (check.text or "") + (check.title or "")
    assert "\u202e" not in seen
    assert "\u2066" not in seen
    assert json.loads(check.text or "{}")["claimed_outcome"] == outcome
    if "\u202e" in outcome:
        assert "\\u202e" in shown(check.summary)
