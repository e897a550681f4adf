"""The README's tables and workflows say what the code does (issue 24 items 3, 4 and 12).

- One permissions table: its scopes are the ones the gate reads (gate/evidence/github/
  permissions.py, which names them in a 403) and writes; the trial workflow grants exactly its
  trial column; action.yml and docs/action.md agree with it or point to it.
- The inputs table lists every input of action.yml, in order, with action.yml's defaults, and
  every output.
- The README's workflows name their agents as the gate recommends (`agent-presets`), read by
  the action's own input parser: a PR the REST API shows as Copilot's is gated.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.claim.agents import PRESETS, AgentRule
from gate.claim.github_facts import PullRequestRef
from gate.evidence.github.permissions import _NEEDS, WRITES
from gate.faces.action.inputs import read_inputs

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text("utf-8")
ACTION = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
COLUMNS = ("trial", "app", "scan")


def _table(heading: str) -> list[list[str]]:
    section = README.split(f"### {heading}\n", 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]


def _permissions() -> dict[str, dict[str, str]]:
    return {scope.strip("`"): dict(zip(COLUMNS, cells, strict=False))
            for scope, *cells in _table("Permissions")}


def _workflows() -> list[dict[Any, Any]]:  # YAML reads `on:` as the key True
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.S)
    return [w for w in map(yaml.safe_load, blocks) if isinstance(w, dict) and "jobs" in w]


def _gate_inputs(workflow: dict[Any, Any]) -> dict[str, str]:
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    return next(s["with"] for s in steps if "claim-gate" in s.get("uses", ""))


def _levels(text: str) -> dict[str, str]:
    return dict(re.findall(r"\b([a-z-]+): (read|write)\b", text))


def test_the_table_holds_every_scope_the_gate_uses_and_no_other() -> None:
    used = _levels(", ".join([needed for _, needed in _NEEDS] + list(WRITES)))
    table = _permissions()
    assert set(table) == set(used), f"table {sorted(table)}, gate {sorted(used)}"
    for scope, level in used.items():
        assert table[scope]["trial"] == table[scope]["app"] == level, scope
        assert table[scope]["scan"] == "read", scope


def test_the_trial_workflow_grants_the_trial_column() -> None:
    trial = next(w for w in _workflows() if "pull_request" in w[True])
    granted = trial["permissions"]
    assert granted == {scope: cells["trial"] for scope, cells in _permissions().items()}
    assert _gate_inputs(trial)["mode"] == "observe"


def test_the_recommended_workflow_holds_the_key_in_an_environment() -> None:
    gate = next(w for w in _workflows() if "workflow_run" in w[True])
    assert set(gate[True]) == {"workflow_run"}, "the App's key only on a default-branch event"
    assert gate["permissions"] == {"contents": "read"}, "the App holds the rest"
    job = next(iter(gate["jobs"].values()))
    assert job["environment"] == "claim-gate"
    assert _gate_inputs(gate)["app-private-key"] == "${{ secrets.CLAIM_GATE_APP_KEY }}"


def test_action_yml_and_the_action_page_agree_with_the_table() -> None:
    token = ACTION["inputs"]["github-token"]["description"]
    trial = {scope: cells["trial"] for scope, cells in _permissions().items()}
    assert _levels(token) == trial, token
    assert "README" in token
    page = (ROOT / "docs" / "action.md").read_text("utf-8")
    prose = re.sub(r"```.*?```", "", page, flags=re.S)
    assert "../README.md#permissions" in page
    assert "Permissions each set-up needs" not in prose, "a second list drifts from the table"


def test_the_inputs_table_is_action_yml() -> None:
    rows = _table("Inputs and outputs")
    assert [name.strip("`") for name, *_ in rows] == list(ACTION["inputs"])
    for name, default, _ in rows:
        declared = str(ACTION["inputs"][name.strip("`")].get("default", ""))
        if declared:
            assert default == f"`{declared}`", name
    outputs = README.split("### Inputs and outputs", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{name}`" in outputs for name in ACTION["outputs"])


def _copilot_pr(branch: str) -> PullRequestRef:
    """As the REST API shows a Copilot PR (docs/agent-prs.md: posit-dev/ark#1001)."""
    return PullRequestRef(number=7, head_sha="a" * 40, head_ref=branch, head_repo="o/r",
                          base_ref="main", base_repo="o/r", author="Copilot", body="",
                          author_id=198982749, author_type="Bot")


def _rule(inputs: dict[str, str]) -> AgentRule:
    """The workflow's `with:` as the runner hands it over; the App's values are expressions
    the runner fills in, so the token stands in for them."""
    env = {f"INPUT_{k.upper()}": str(v) for k, v in inputs.items()
           if k not in ("app-id", "app-private-key")}
    env["INPUT_GITHUB-TOKEN"] = "t"
    read = read_inputs(env)
    return AgentRule.parse(read.agent_authors, read.agent_presets, read.agent_branches)


@pytest.mark.parametrize("index", range(len(_workflows())))
def test_every_readme_workflow_gates_a_copilot_pr(index: int) -> None:
    inputs = _gate_inputs(_workflows()[index])
    assert inputs["require-claim"] == "agents"
    assert "agent-authors" not in inputs, "name agents by preset: ids and apps, not globs"
    assert set(re.split(r"[,\s]+", inputs["agent-presets"].strip())) <= set(PRESETS) | {"all"}
    assert _rule(inputs).gated_because(_copilot_pr("fix/parser"), lambda: None) is not None


def _agents_only_workflows() -> list[tuple[str, dict[str, str]]]:
    """Every documented or example workflow whose gate asks claims of agents only."""
    texts = [(f"{doc.name} block {i}", block) for doc in sorted((ROOT / "docs").glob("*.md"))
             for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", doc.read_text("utf-8"),
                                                  re.S))]
    texts += [(p.name, p.read_text("utf-8"))
              for p in sorted((ROOT / "examples" / "workflows").glob("*.yml"))]
    found = []
    for name, text in texts:
        workflow = yaml.safe_load(text)
        if not (isinstance(workflow, dict) and "jobs" in workflow):
            continue
        steps = [s for job in workflow["jobs"].values() if isinstance(job, dict)
                 for s in job.get("steps", []) if isinstance(s, dict)]
        found += [(name, s["with"]) for s in steps if "claim-gate" in str(s.get("uses", ""))
                  and s.get("with", {}).get("require-claim") == "agents"]
    return found


AGENTS_ONLY = _agents_only_workflows()


@pytest.mark.parametrize(("name", "inputs"), AGENTS_ONLY, ids=[n for n, _ in AGENTS_ONLY])
def test_every_documented_agents_only_workflow_gates_a_copilot_pr(
    name: str, inputs: dict[str, str]
) -> None:
    """No page teaches a login glob that the REST API's `Copilot` author never matches."""
    assert _rule(inputs).gated_because(_copilot_pr("fix/parser"), lambda: None) is not None, name


def test_the_old_login_glob_missed_copilot() -> None:
    """The check above can fail: the README's old inputs let Copilot's PR through."""
    old = {"require-claim": "agents", "agent-branches": "copilot/*, codex/*",
           "agent-authors": "copilot-swe-agent*, devin-ai-integration[bot]"}
    assert _rule(old).gated_because(_copilot_pr("fix/parser"), lambda: None) is None
