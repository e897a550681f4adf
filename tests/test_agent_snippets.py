"""Every shipped agent snippet, run as an agent would run it, ends in a claim that verifies.

Each snippet's ```sh block runs in a throwaway clone after an agent-like change (add,
modify, delete, rename, odd names); the claim it commits verifies under a policy requiring
test_run with CI's JUnit report bound to the head commit, and is unverified without it.
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
import yaml

from gate.claim.changed_paths import ChangedPaths
from gate.claim.github_facts import ContentEntry
from gate.evidence.github.claims import find_claims, load_found
from tests.agent_repo import (
    AgentRepo,
    agent_change,
    ci_junit,
    last_mutation_time,
    make_agent_repo,
    policy_requiring_test_run,
    read_claim,
    verify,
)
from tests.gitrepo import git

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ROOT / "examples" / "agents"
DOCS = ROOT / "docs" / "agents.md"

#: The places agents read instructions; Codex reads AGENTS.md.
SNIPPETS = (
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
    ".cursor/rules/claim-gate.mdc",
    "devin-knowledge.md",
    "devin-playbook.md",
)


def sh_block(text: str) -> str:
    blocks = re.findall(r"^```sh\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, "a snippet holds exactly one block of commands to run"
    return str(blocks[0])


def inline_claim_commands(text: str) -> list[str]:
    """The optional `claim-gate claim add ...` commands the prose offers."""
    return [" ".join(found.split()) for found in re.findall(r"`(claim-gate\s+claim\s+add\s[^`]+)`",
                                                             text)]


#: A PR that changes no file: only its body can hold a claim.
NO_CHANGES = ChangedPaths.of((), 0, "a PR with no changed file")


class NoFiles:
    """A head commit without a claim file: the gate falls back to the PR body."""

    def entry_at(self, path: str, ref: str) -> ContentEntry | None:
        return None


@pytest.fixture
def repo(tmp_path: Path) -> AgentRepo:
    return make_agent_repo(tmp_path)


def _verifies_with_ci_and_not_without(repo: AgentRepo, claim: Path) -> None:
    last = last_mutation_time(read_claim(claim))
    policy = policy_requiring_test_run(repo.root)
    now = last + timedelta(minutes=5)
    code, verdict = verify(repo, claim, policy, ci_junit(repo, last), now)
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])
    code, verdict = verify(repo, claim, policy, None, now)
    assert (code, verdict["state"]) == (1, "unverified")


@pytest.mark.parametrize("name", SNIPPETS)
def test_the_snippet_writes_a_claim_that_verifies(repo: AgentRepo, name: str) -> None:
    script = sh_block((AGENTS / name).read_text("utf-8"))
    changed = agent_change(repo)
    result = repo.shell(script)
    assert result.returncode == 0, result.stdout + result.stderr
    assert git(repo.path, "status", "--porcelain") == ""  # the claim is committed
    assert git(repo.path, "ls-files", ".claim.json") == ".claim.json"
    claim = repo.path / ".claim.json"
    assert sorted(m["target"] for m in read_claim(claim)["mutations"]) == sorted(changed)
    _verifies_with_ci_and_not_without(repo, claim)


@pytest.mark.parametrize("name", SNIPPETS)
def test_the_snippets_optional_commands_work(repo: AgentRepo, name: str) -> None:
    text = (AGENTS / name).read_text("utf-8")
    commands = inline_claim_commands(text)
    assert any("--kind deploy" in c for c in commands)
    assert any("--kind state_write" in c and "--expected" in c for c in commands)
    assert repo.run("claim-gate", "claim", "new", "--task", "T", "--outcome", "o").returncode == 0
    for command in commands:
        result = repo.shell(command)
        assert result.returncode == 0, f"{command}: {result.stderr}"
    check = repo.run("claim-gate", "claim", "check")
    assert check.returncode == 0
    assert "deploy" in check.stdout
    assert "state_write" in check.stdout


def test_the_cursor_rule_is_always_applied() -> None:
    text = (AGENTS / ".cursor/rules/claim-gate.mdc").read_text("utf-8")
    front = text.split("---\n")[1]
    meta = yaml.safe_load(front)
    assert meta["alwaysApply"] is True
    assert isinstance(meta["description"], str)
    assert meta["description"]


def test_the_pr_body_snippet_prints_a_block_the_gate_reads(repo: AgentRepo) -> None:
    script = sh_block((AGENTS / "pr-body-claim.md").read_text("utf-8"))
    changed = agent_change(repo)
    result = repo.shell(script, TMPDIR=str(repo.root))
    assert result.returncode == 0, result.stderr
    assert git(repo.path, "status", "--porcelain") == ""  # nothing written into the repository
    body = "Fix add().\n\n" + result.stdout[result.stdout.index("```completion-claim"):]
    found = find_claims(NoFiles(), ".claim.json", repo.head(), body, 7, NO_CHANGES).found
    assert [f.label for f in found] == ["PR #7 body"]
    loaded = load_found(found[0])
    assert sorted(m.target or "" for m in loaded.claim.mutations) == sorted(changed)
    claim = repo.root / "from-body.json"
    claim.write_bytes(found[0].data)
    _verifies_with_ci_and_not_without(repo, claim)


def test_the_pr_body_example_is_a_claim_the_gate_finds(repo: AgentRepo) -> None:
    body = (AGENTS / "pr-body.md").read_text("utf-8")
    found = find_claims(NoFiles(), ".claim.json", "0" * 40, body, 7, NO_CHANGES).found
    assert len(found) == 1
    loaded = load_found(found[0])
    assert loaded.claim.task.id == "FIX-7"
    claim = repo.root / "example.json"
    claim.write_bytes(found[0].data)
    result = repo.run("claim-gate", "claim", "check", "--file", str(claim))
    assert result.returncode == 0, result.stderr


def test_the_docs_explain_every_snippet() -> None:
    docs = DOCS.read_text("utf-8")
    for name in (*SNIPPETS, "pr-body-claim.md", "pr-body.md"):
        assert f"examples/agents/{name}" in docs, name
    assert "Codex" in docs
    assert "````markdown\n" + (AGENTS / "pr-body.md").read_text("utf-8") + "````" in docs
