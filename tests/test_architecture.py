"""The house's arrows and shape, as tests: import-linter contracts, one caller of `decide`,
short functions, and docs/architecture.md naming the parts the contracts name."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GATE = ROOT / "gate"
MAX_FUNCTION_LINES = 80
_LINT = (
    "import sys\n"
    "from importlinter.cli import lint_imports\n"
    "sys.exit(lint_imports(no_cache=True, no_logo=True))\n"
)


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", _LINT], cwd=root, env=env, text=True,
                          capture_output=True, timeout=300, check=False)


def test_the_import_contracts_hold() -> None:
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(("module", "line"), [
    ("gate/engine/decide.py", "import gate.evidence.junit"),
    ("gate/engine/trust.py", "import pathlib"),
    ("gate/evidence/junit.py", "import gate.report.text"),
    ("gate/claim/model.py", "import gate.engine.results"),
    ("gate/evidence/junit_events.py", "import gate.evidence.junit_reader"),
    ("gate/evidence/junit_counter.py", "import gate.evidence.junit_events"),
])
def test_a_wrong_arrow_breaks_a_contract(tmp_path: Path, module: str, line: str) -> None:
    copy = tmp_path / "repo"
    shutil.copytree(GATE, copy / "gate", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / module
    text = target.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    target.write_text(text.replace(marker, f"{marker}\n{line}  # noqa\n", 1), encoding="utf-8")
    result = _lint(copy)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout


def _calls_of(name: str) -> list[str]:
    found = []
    for path in sorted(GATE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = node.func
                label = called.id if isinstance(called, ast.Name) else (
                    called.attr if isinstance(called, ast.Attribute) else None)
                if label == name:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_decide_has_one_production_caller_the_pipeline() -> None:
    calls = _calls_of("decide")
    assert len(calls) == 1, calls
    assert calls[0].startswith("gate/pipeline.py:")


def test_no_function_in_the_gate_is_over_80_lines() -> None:
    long = []
    for path in sorted(GATE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({length})")
    assert not long, long


def test_the_architecture_page_names_the_contracts_layers() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    layers = next(c["layers"] for c in contracts if c["type"] == "layers")
    parts = [p.strip() for layer in layers for p in layer.split("|")]
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for part in parts:
        shown = "gate/" + part.removeprefix("gate.").replace(".", "/")
        assert f"`{shown}/`" in page or f"`{shown}.py`" in page, part


MAX_FACE_LINES = 200


def test_no_face_module_is_over_200_lines() -> None:
    """A face reads inputs, calls the pipeline and posts: anything longer is deciding."""
    long = []
    for path in sorted((GATE / "faces").rglob("*.py")):
        name, lines = str(path.relative_to(ROOT)), len(path.read_text("utf-8").splitlines())
        if lines > MAX_FACE_LINES:
            long.append(f"{name} ({lines})")
    assert not long, long
