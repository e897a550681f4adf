"""The action's inputs and the runner's variables: every bad value is invalid input (exit 3)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.faces.action.inputs import read_inputs, read_runner
from gate.faces.action.main import main
from gate.report.check_run import Mode
from tests.action_support import action_inputs


def test_defaults_from_action_yml() -> None:
    inputs = read_inputs(action_inputs())
    assert inputs.claim_path == ".claim.json"
    assert inputs.check_name == "completion-claim"
    assert inputs.mode is Mode.ENFORCE
    assert inputs.require_claim == "always"


def test_lists_take_commas_and_new_lines() -> None:
    inputs = read_inputs(action_inputs(require_claim="agents",
                                       agent_authors="copilot-swe-agent*, devin[bot]\nbob",
                                       agent_branches="copilot/*"))
    assert inputs.agent_authors == ("copilot-swe-agent*", "devin[bot]", "bob")


@pytest.mark.parametrize(
    ("overrides", "place"),
    [
        ({"github_token": ""}, "github-token"),
        ({"mode": "sometimes"}, "mode"),
        ({"require_claim": "never"}, "require-claim"),
        ({"require_claim": "agents"}, "require-claim"),
        ({"pr": "twelve"}, "pr"),
    ],
)
def test_bad_inputs_name_the_input(overrides: dict[str, str], place: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        read_inputs(action_inputs(**overrides))
    assert caught.value.place == place


@pytest.mark.parametrize("missing", ["GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"])
def test_outside_a_runner_it_says_so_and_exits_3(tmp_path: Path, missing: str) -> None:
    event = tmp_path / "event.json"
    event.write_text("{}", encoding="utf-8")
    env = {**action_inputs(), "GITHUB_EVENT_NAME": "pull_request",
           "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r"}
    del env[missing]
    with pytest.raises(InvalidInput, match=missing):
        read_runner(env)
    out = io.StringIO()
    assert main(env, out=out) == 3
    assert out.getvalue().startswith("::error")


@pytest.mark.parametrize("content", ["", "{", "[]", "\x00\x01"])
def test_an_unreadable_event_payload_exits_3(tmp_path: Path, content: str) -> None:
    event = tmp_path / "event.json"
    event.write_text(content, encoding="utf-8")
    env = {**action_inputs(), "GITHUB_EVENT_NAME": "pull_request",
           "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "o/r"}
    out = io.StringIO()
    assert main(env, out=out) == 3
    assert str(event) in out.getvalue()
