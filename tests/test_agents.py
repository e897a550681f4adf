"""Who is an agent (issue 10, class 6): account id, app and login match; a branch only adds;
an app that cannot be read never exempts a PR."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gate.claim.agents import PRESETS, AgentRule
from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.github_facts import PullRequestRef


def pull(login: str, *, ident: int | None = None, kind: str = "User",
         branch: str = "fix/parser") -> PullRequestRef:
    return PullRequestRef(1, "a" * 40, branch, "o/r", "main", "o/r", login, "",
                          author_id=ident, author_type=kind)


def no_app() -> str | None:
    return None


def unreadable() -> str | None:
    raise CouldNotDecide("GET issues/1 answered 403")


@pytest.mark.parametrize(("rule", "who", "app", "because"), [
    (AgentRule.parse((), ("copilot",), ()), pull("Copilot", ident=198982749, kind="Bot"),
     no_app, "account id 198982749"),
    (AgentRule.parse((), ("copilot",), ()), pull("renamed-bot", ident=198982749, kind="Bot"),
     no_app, "account id 198982749"),
    (AgentRule.parse((), ("copilot",), ()), pull("copilot-swe-agent[bot]", kind="Bot"),
     no_app, "bot of the agent app 'copilot-swe-agent'"),
    (AgentRule.parse(("app:my-agent",), (), ()), pull("my-agent[bot]", kind="Bot"),
     no_app, "bot of the agent app 'my-agent'"),
    (AgentRule.parse(("id:42",), (), ()), pull("someone", ident=42), no_app, "account id 42"),
    (AgentRule.parse(("DEVIN-*",), (), ()), pull("devin-ai-integration[bot]"), no_app,
     "matches an agent login"),
    # a bot's login written out: `[bot]` is literal, not fnmatch's class of b, o, t
    (AgentRule.parse(("devin-ai-integration[bot]",), (), ()),
     pull("devin-ai-integration[bot]", kind="Bot"), no_app, "matches an agent login"),
    (AgentRule.parse((), ("codex",), ()), pull("octo-dev"), lambda: "chatgpt-codex-connector",
     "opened through the agent app 'chatgpt-codex-connector'"),
    (AgentRule.parse((), ("codex",), ()), pull("octo-dev"), unreadable,
     "could not be read (GET issues/1 answered 403), so it is not exempt"),
    (AgentRule.parse((), ("codex",), ()), pull("octo-dev", branch="codex/x"), unreadable,
     "its branch codex/x matches an agent branch glob"),
    (AgentRule.parse((), ("all",), ()), pull("google-labs-jules[bot]", kind="Bot"), no_app,
     "bot of the agent app 'google-labs-jules'"),
])
def test_an_agent_is_recognised(rule: AgentRule, who: PullRequestRef,
                                app: Callable[[], str | None], because: str) -> None:
    assert because in (rule.gated_because(who, app) or "")


@pytest.mark.parametrize("who", [pull("octo-dev"), pull("renovate[bot]", kind="Bot")])
def test_a_person_or_another_bot_is_not_gated(who: PullRequestRef) -> None:
    rule = AgentRule.parse((), ("all",), ())
    assert rule.gated_because(who, no_app) is None


def test_unknown_presets_and_bad_entries_are_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="unknown preset"):
        AgentRule.parse((), ("copilot", "skynet"), ())
    with pytest.raises(InvalidInput, match="is not id:<number> or app:<slug>"):
        AgentRule.parse(("id:abc",), (), ())


def test_every_preset_names_how_its_prs_show() -> None:
    for agent in PRESETS.values():
        assert agent.logins, agent.name
        assert agent.apps, agent.name
