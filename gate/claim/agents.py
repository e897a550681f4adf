"""Whose PR needs a claim (`require-claim: agents`): matched by account, app and login.

A login glob alone misses agents: the REST API names a Copilot coding agent PR's author
`Copilot` (a Bot account), not `copilot-swe-agent[bot]`; Codex and Cursor may open PRs under
the requesting person's own account, with the agent's GitHub App recorded only as the issue's
`performed_via_github_app`. So an agent is recognised by any of: its account id, its App (the
`performed_via_github_app` slug, or a Bot account `<slug>[bot]`), its login. Presets carry
what is known of the common agents (docs/agent-prs.md says how each shows and what is not
confirmed). Branch globs are the agent's own choice of name, so they can only add PRs to the
gated set, never exempt one: `agents` needs authors or presets, branches alone are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase

from gate.claim.decimal_text import decimal
from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.github_facts import PullRequestRef
from gate.claim.wording import listed


@dataclass(frozen=True)
class Agent:
    """One coding agent as the REST API shows its PRs."""

    name: str
    logins: tuple[str, ...] = ()
    ids: tuple[int, ...] = ()
    apps: tuple[str, ...] = ()
    branches: tuple[str, ...] = ()


#: What is known of the common agents (sources and gaps: docs/agent-prs.md).
PRESETS: Mapping[str, Agent] = {
    agent.name: agent for agent in (
        Agent("copilot", logins=("Copilot", "copilot-swe-agent[bot]"), ids=(198982749,),
              apps=("copilot-swe-agent",), branches=("copilot/*",)),
        Agent("devin", logins=("devin-ai-integration[bot]",), apps=("devin-ai-integration",),
              branches=("devin/*",)),
        Agent("codex", logins=("chatgpt-codex-connector[bot]",),
              apps=("chatgpt-codex-connector",), branches=("codex/*",)),
        Agent("claude", logins=("claude[bot]",), apps=("claude",), branches=("claude/*",)),
        Agent("cursor", logins=("cursor[bot]",), apps=("cursor",), branches=("cursor/*",)),
        Agent("jules", logins=("google-labs-jules[bot]",), apps=("google-labs-jules",)),
    )
}
ALL = "all"
SOURCE = "action inputs"


@dataclass(frozen=True)
class AgentRule:
    """The operator's answer to "is this PR an agent's?"; any match gates the PR."""

    logins: tuple[str, ...] = ()  # globs, compared case-insensitively (logins ignore case)
    ids: frozenset[int] = frozenset()
    apps: frozenset[str] = frozenset()
    branches: tuple[str, ...] = ()

    @classmethod
    def parse(
        cls, authors: Sequence[str], presets: Sequence[str], branches: Sequence[str]
    ) -> AgentRule:
        """`authors`: login globs, `id:<account id>` or `app:<app slug>`; `presets`: names
        from PRESETS or `all`."""
        unknown = sorted(set(presets) - set(PRESETS) - {ALL})
        if unknown:
            raise InvalidInput(SOURCE, "agent-presets", f"unknown {listed('preset', unknown)}",
                               f"choose from {', '.join(PRESETS)} or {ALL}")
        chosen = list(PRESETS.values()) if ALL in presets else [PRESETS[p] for p in presets]
        logins = [login for agent in chosen for login in agent.logins]
        ids = {i for agent in chosen for i in agent.ids}
        apps = {slug for agent in chosen for slug in agent.apps}
        for entry in authors:
            kind, _, value = entry.partition(":")
            if kind == "id" and decimal(value) is not None:
                ids.add(int(value))
            elif kind == "app" and value:
                apps.add(value.lower())
            elif kind in ("id", "app"):
                raise InvalidInput(SOURCE, "agent-authors", f"{entry!r} is not id:<number> or"
                                   " app:<slug>")
            else:
                logins.append(entry)
        globs = [*branches, *(b for agent in chosen for b in agent.branches)]
        return cls(tuple(logins), frozenset(ids), frozenset(apps), tuple(dict.fromkeys(globs)))

    def account_is_agent(self, login: str, account_id: int | None) -> str | None:
        """Why an account is an agent's (by id, by the bot of an agent app, by login), or
        None: the one test for a PR's author and for a reviewer who would accept a claim."""
        lowered = login.lower()
        if account_id is not None and account_id in self.ids:
            return f"account id {account_id} is an agent's"
        bot_app = lowered.removesuffix("[bot]") if lowered.endswith("[bot]") else None
        if bot_app is not None and bot_app in self.apps:
            return f"{login} is the bot of the agent app {bot_app!r}"
        if any(fnmatchcase(lowered, _login_glob(glob)) for glob in self.logins):
            return f"{login} matches an agent login"
        return None

    def gated_because(
        self, pull: PullRequestRef, performed_by: Callable[[], str | None]
    ) -> str | None:
        """Why the PR is an agent's, or None. `performed_by` reads the App that opened it
        (asked only when nothing else matched); if it cannot be read, the PR is gated."""
        if (why := self.account_is_agent(pull.author, pull.author_id)) is not None:
            return f"its author's {why}" if why.startswith("account") else f"its author {why}"
        if any(fnmatchcase(pull.head_ref, glob) for glob in self.branches):
            return f"its branch {pull.head_ref} matches an agent branch glob"
        if not self.apps:
            return None
        try:
            app = performed_by()
        except CouldNotDecide as exc:
            return f"the app that opened it could not be read ({exc}), so it is not exempt"
        if app is not None and app.lower() in self.apps:
            return f"it was opened through the agent app {app!r}"
        return None


def _login_glob(glob: str) -> str:
    """A login glob with `[` taken literally: logins hold no character classes, but bots end
    in `[bot]`, which fnmatch would read as one of b, o, t (so `devin-ai-integration[bot]`
    would never match itself and the agent's PR would go ungated)."""
    return glob.lower().replace("[", "[[]")
