"""The action's inputs, as the runner passes them: `INPUT_<NAME>` with hyphens kept.

Parsed once into a frozen object; every value is checked and a bad one is invalid input
naming the input, so a misconfigured workflow fails loudly instead of gating nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gate.claim.decimal_text import decimal
from gate.claim.errors import InvalidInput
from gate.report.check_run import Mode

DEFAULT_CHECK_NAME = "completion-claim"
DEFAULT_CLAIM_PATH = ".claim.json"


def _input(env: Mapping[str, str], name: str, default: str = "") -> str:
    return env.get(f"INPUT_{name.upper()}", default).strip()


def _list(value: str) -> tuple[str, ...]:
    """Inputs that take several values accept commas or new lines."""
    parts = [p.strip() for line in value.splitlines() for p in line.split(",")]
    return tuple(p for p in parts if p)


@dataclass(frozen=True)
class ActionInputs:
    token: str
    claim_path: str
    policy: str
    check_name: str
    junit: tuple[str, ...]
    artifact_names: tuple[str, ...]
    mode: Mode
    require_claim: str
    agent_authors: tuple[str, ...]
    agent_branches: tuple[str, ...]
    api_url: str
    trusted_verifiers: tuple[str, ...]
    pr: int | None
    app_id: str = ""
    app_private_key: str = ""
    #: Base branches a PR may be verified into (empty: the repository's default branch).
    protected_bases: tuple[str, ...] = ()
    agent_presets: tuple[str, ...] = ()  # names from gate/claim/agents.py PRESETS
    #: Artifact globs holding the head's tests run over the base's code (fail-to-pass).
    base_code_artifact_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunnerContext:
    event_name: str
    event_path: Path
    workspace: Path
    output_file: Path | None
    summary_file: Path | None
    repository: str
    server_url: str
    run_id: str | None
    workflow_ref: str | None = None

    @property
    def workflow_path(self) -> str | None:
        """This job's workflow file, from `owner/repo/.github/workflows/x.yml@ref`."""
        if not self.workflow_ref:
            return None
        path = self.workflow_ref.split("@", 1)[0]
        prefix = f"{self.repository}/"
        return path[len(prefix):] if path.startswith(prefix) else None

    @property
    def details_url(self) -> str | None:
        if not self.run_id:
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


def read_inputs(env: Mapping[str, str]) -> ActionInputs:
    source = "action inputs"
    token = _input(env, "github-token")
    app_id = _input(env, "app-id")
    app_key = env.get("INPUT_APP-PRIVATE-KEY", "").strip()
    if bool(app_id) != bool(app_key):
        raise InvalidInput(source, "app-id" if not app_id else "app-private-key",
                           "`app-id` and `app-private-key` go together",
                           "pass both (the key from a secret), or neither")
    if app_id and decimal(app_id) is None:
        raise InvalidInput(source, "app-id", f"{app_id!r} is not a GitHub App id (a number)")
    if not token and not app_id:
        raise InvalidInput(source, "github-token", "no token", "pass `github-token`")
    mode_text = _input(env, "mode", "enforce") or "enforce"
    try:
        mode = Mode(mode_text)
    except ValueError:
        raise InvalidInput(source, "mode", f"{mode_text!r} is not enforce or observe") from None
    require = _input(env, "require-claim", "always") or "always"
    if require not in ("always", "agents"):
        raise InvalidInput(source, "require-claim", f"{require!r} is not always or agents")
    authors = _list(_input(env, "agent-authors"))
    branches = _list(_input(env, "agent-branches"))
    presets = tuple(p.lower() for p in _list(_input(env, "agent-presets")))
    if require == "agents" and not (authors or presets):
        # Branch names are the agent's choice: they can add PRs to the gated set, never
        # define it (an agent would name its branch to fall outside the globs).
        raise InvalidInput(
            source, "require-claim", "`agents` needs `agent-authors` or `agent-presets`"
            + (" (`agent-branches` can only add PRs: the agent names its branch)"
               if branches else ""),
            "name the agents (e.g. agent-presets: copilot, codex), or use `always`",
        )
    pr_text = _input(env, "pr")
    try:
        pr = int(pr_text) if pr_text else None
    except ValueError:
        raise InvalidInput(source, "pr", f"{pr_text!r} is not a pull request number") from None
    protected = _list(_input(env, "protected-bases"))
    globbed = [b for b in protected if any(c in b for c in "*?[")]
    if globbed:
        raise InvalidInput(source, "protected-bases", f"{globbed[0]!r} is a pattern",
                           "name each protected branch exactly: a pattern would match branches"
                           " the agent can create")
    api_url = _input(env, "api-url") or env.get("GITHUB_API_URL", "") or "https://api.github.com"
    return ActionInputs(
        token=token,
        claim_path=_input(env, "claim-path") or DEFAULT_CLAIM_PATH,
        policy=env.get("INPUT_POLICY", "").strip(),
        check_name=_input(env, "check-name") or DEFAULT_CHECK_NAME,
        junit=_list(_input(env, "junit")),
        artifact_names=_list(_input(env, "artifact-name")),
        base_code_artifact_names=_list(_input(env, "base-code-artifact-name")),
        mode=mode,
        require_claim=require,
        agent_authors=authors,
        agent_branches=branches,
        api_url=api_url,
        trusted_verifiers=_list(_input(env, "trusted-verifiers")),
        pr=pr,
        app_id=app_id,
        app_private_key=app_key,
        protected_bases=protected,
        agent_presets=presets,
    )


def read_runner(env: Mapping[str, str]) -> RunnerContext:
    source = "runner environment"
    for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_REPOSITORY"):
        if not env.get(name):
            raise InvalidInput(source, name, "is not set", "run claim-gate as a GitHub Action step")
    output = env.get("GITHUB_OUTPUT")
    summary = env.get("GITHUB_STEP_SUMMARY")
    return RunnerContext(
        event_name=env["GITHUB_EVENT_NAME"],
        event_path=Path(env["GITHUB_EVENT_PATH"]),
        workspace=Path(env.get("GITHUB_WORKSPACE") or "."),
        output_file=Path(output) if output else None,
        summary_file=Path(summary) if summary else None,
        repository=env["GITHUB_REPOSITORY"],
        server_url=env.get("GITHUB_SERVER_URL", "https://github.com"),
        run_id=env.get("GITHUB_RUN_ID"),
        workflow_ref=env.get("GITHUB_WORKFLOW_REF") or None,
    )
