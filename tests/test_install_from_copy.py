"""The README's install commands work from a copy of this repository, with nothing published
(issue 24 item 1).

"Install the command" gives two forms: pip from a tag of your copy (a `git+` URL) and a wheel
built in a clone. Each runs here as the README writes it, offline: the copy is a real git
repository of this checkout's package files, tagged as the README says; the URL points at it
(`file://localhost/...` for `https://github.com/OWNER/claim-gate`); pip is told `--no-index`
(nothing is fetched) and `--no-build-isolation` (the build uses the setuptools installed here);
a fresh virtual environment sees the dependencies already installed here through a `.pth`
file, and nothing of this checkout. The command installed there then verifies the spec's
example claim.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import version
from pathlib import Path

import pytest

import gate
from tests.gitrepo import commit_all, git, init_repo

ROOT = Path(__file__).resolve().parent.parent
SECTION = (ROOT / "README.md").read_text("utf-8").split("## Install the command", 1)[1] \
    .split("\n## ", 1)[0]
BLOCKS = re.findall(r"```sh\n(.*?)```", SECTION, re.S)
URL = "https://github.com/OWNER/claim-gate"
OFFLINE = ["--no-index", "--no-build-isolation", "--disable-pip-version-check", "-q"]
#: What a clone holds that the package is built from (the Dockerfile copies the same).
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE")


def _pip_env() -> dict[str, str]:
    """No machine pip configuration (indexes, find-links): only what the test passes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INPUT="1")
    return env


def _copy(where: Path) -> Path:
    """A copy of claim-gate as the README's user has it: a git repository tagged `v0`."""
    copy = where / "claim-gate"
    copy.mkdir()
    for name in PACKAGE_FILES:
        shutil.copy(ROOT / name, copy / name)
    shutil.copytree(ROOT / "gate", copy / "gate",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    init_repo(copy)
    commit_all(copy, "a copy of claim-gate")
    git(copy, "tag", "v0")
    return copy


def _installed_dependencies(where: Path) -> Path:
    """This environment's installed packages, less claim-gate itself (here an editable
    install of the checkout), as one directory a fresh environment can put on its path."""
    farm = where / "installed"
    farm.mkdir()
    for entry in Path(sysconfig.get_path("purelib")).iterdir():
        lower = entry.name.lower()
        if lower.startswith(("claim_gate", "__editable__", "gate")) or lower.endswith(".pth"):
            continue
        (farm / entry.name).symlink_to(entry)
    return farm


def _fresh_environment(where: Path, dependencies: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "installed-dependencies.pth").write_text(f"{dependencies}\n", "utf-8")
    return python


def _pip(words: list[str], cwd: Path, python: Path | None) -> None:
    """One `pip ...` line of the README, offline, into `python`'s environment if given."""
    assert words[0] == "pip", words
    target = ["--python", str(python)] if python is not None and words[1] == "install" else []
    expanded = [str(match) for word in words[2:]
                for match in (sorted(cwd.glob(word)) if "*" in word else [word])]
    ran = subprocess.run([sys.executable, "-m", "pip", *target, words[1], *OFFLINE, *expanded],
                         cwd=cwd, env=_pip_env(), capture_output=True, text=True, check=False,
                         timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def _readme_lines(block: str, copy: Path) -> list[list[str]]:
    """The block's commands, `&&` chains split, the copy's URL in place of GitHub's."""
    lines = [part.strip() for line in block.splitlines() for part in line.split("&&")]
    return [shlex.split(line.replace(URL, f"file://localhost{copy}")) for line in lines if line]


def _run_block(block: str, tmp_path: Path) -> Path:
    """Run one README block; returns the fresh environment's python it installed into."""
    installed = version("setuptools")
    assert tuple(int(part) for part in installed.split(".")[:2]) >= (70, 1), (
        f"setuptools {installed} cannot build a wheel without the `wheel` package; the test"
        " extras pin a newer one: pip install -e '.[test]'")
    copy = _copy(tmp_path)
    python = _fresh_environment(tmp_path / "venv", _installed_dependencies(tmp_path))
    cwd = tmp_path
    for words in _readme_lines(block, copy):
        if words[:2] == ["git", "clone"]:
            continue  # the copy above is the clone
        if words[0] == "cd":
            cwd = copy
            continue
        _pip(words, cwd, python)
    return python


def test_the_readme_gives_both_forms_and_names_the_wheel() -> None:
    assert len(BLOCKS) >= 2, SECTION
    assert f"pip install \"claim-gate @ git+{URL}@v0\"" in BLOCKS[0]
    assert "pip wheel --no-deps -w dist ." in BLOCKS[1]
    assert f"dist/claim_gate-{gate.__version__}-py3-none-any.whl" in SECTION
    assert "pip install -e" not in SECTION, "an editable install needs the checkout kept"


@pytest.mark.parametrize("form", [0, 1], ids=["from-a-tag", "from-a-wheel"])
def test_the_readme_install_gives_a_working_command(form: int, tmp_path: Path) -> None:
    python = _run_block(BLOCKS[form], tmp_path)
    where = subprocess.run([str(python), "-c", "import gate; print(gate.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True)
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv"), where.stdout
    command = python.parent / "claim-gate"
    verdict = subprocess.run(
        [str(command), "verify", str(ROOT / "examples" / "claim.json"),
         "--trusted-verifier", "gitreal-gate/*", "--now", "2026-08-27T18:04:10Z"],
        cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120)
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    assert "verified" in verdict.stdout
    if form == 1:
        built = sorted(p.name for p in (tmp_path / "claim-gate" / "dist").iterdir())
        assert built == [f"claim_gate-{gate.__version__}-py3-none-any.whl"]
