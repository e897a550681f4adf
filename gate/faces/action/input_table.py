"""The Action's inputs, described once for every face that offers them.

`claim-gate scan` turns each input that makes sense read-only into a flag of the same name
and default, and hands the values to the Action's own `read_inputs` as `INPUT_*`, so both
faces parse, check and default them the same way. A test holds this table against
action.yml: an input added there and not here fails it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputSpec:
    name: str  # as in action.yml (and the flag: --NAME)
    default: str  # as in action.yml
    help: str
    several: bool = False  # takes several values (commas or new lines; the flag repeats)
    metavar: str = "VALUE"
    not_for_scan: str = ""  # why a read-only scan has no such flag (empty: it has one)


ACTION_INPUTS: tuple[InputSpec, ...] = (
    InputSpec("github-token", "${{ github.token }}", "the token",
              not_for_scan="the token comes from GH_TOKEN or GITHUB_TOKEN, never the"
              " command line (where it would stay in the shell's history)"),
    InputSpec("claim-path", ".claim.json", "path (or glob) of the claim file in the PR's head"
              " commit; without one, a ```completion-claim block in the PR body is read",
              metavar="PATH"),
    InputSpec("policy", "", "path of a policy file read from the PR's BASE branch (never"
              " from the PR), or inline YAML; default: require a test_run", metavar="PATH_OR_YAML"),
    InputSpec("check-name", "completion-claim", "name of the check run it would post",
              metavar="NAME"),
    InputSpec("junit", "", "workspace JUnit globs",
              not_for_scan="workspace JUnit is evidence of the Action's own job; a scan reads"
              " the PR's CI through the API (for local files use `claim-gate verify --junit`)"),
    InputSpec("artifact-name", "", "glob of artifact names holding JUnit XML, read from the"
              " workflow runs on the PR's head commit; repeatable", several=True,
              metavar="GLOB"),
    InputSpec("base-code-artifact-name", "", "glob of artifact names holding the JUnit of the"
              " head's tests run over the base's code (claim-gate base-code), read from the same"
              " runs as artifact-name; repeatable", several=True, metavar="GLOB"),
    InputSpec("mode", "enforce", "enforce or observe: the check it would post (observe:"
              " neutral); the exit code is the verdict's either way", metavar="enforce|observe"),
    InputSpec("require-claim", "always", "always, or agents: only an agent's PRs"
              " (--agent-presets, --agent-authors; needs one of them)", metavar="always|agents"),
    InputSpec("agent-authors", "", "login glob, id:ACCOUNT_ID or app:APP_SLUG of agents;"
              " repeatable", several=True, metavar="GLOB"),
    InputSpec("agent-branches", "", "branch glob that only adds PRs to the gated set, e.g."
              " copilot/*; repeatable", several=True, metavar="GLOB"),
    InputSpec("agent-presets", "", "a known agent matched by account id, app and login:"
              " copilot, devin, codex, claude, cursor, jules or all; repeatable", several=True,
              metavar="NAME"),
    InputSpec("trusted-verifiers", "", "glob of verifier ids whose evidence inside the claim"
              " file counts as independent; repeatable", several=True, metavar="PATTERN"),
    InputSpec("protected-bases", "", "a base branch a PR may be verified into, named exactly;"
              " repeatable (default: the repository's default branch)", several=True,
              metavar="BRANCH"),
    InputSpec("pr", "", "pull request number",
              not_for_scan="the PR is the command's argument (OWNER/REPO#N or its URL)"),
    InputSpec("api-url", "", "REST API URL (GitHub Enterprise Server: https://HOST/api/v3);"
              " default: from the PR URL's host, else $GITHUB_API_URL, else"
              " https://api.github.com", metavar="URL"),
    InputSpec("app-id", "", "the gate's GitHub App",
              not_for_scan="an App identity is for posting; a scan posts nothing"),
    InputSpec("app-private-key", "", "the App's key",
              not_for_scan="an App identity is for posting; a scan posts nothing"),
)

SCAN_INPUTS: tuple[InputSpec, ...] = tuple(i for i in ACTION_INPUTS if not i.not_for_scan)


def dest(spec: InputSpec) -> str:
    """The argparse attribute of an input's flag."""
    return spec.name.replace("-", "_")
