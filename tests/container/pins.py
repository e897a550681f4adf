"""What the action's image must hold: pyproject.toml's exact pins plus image-constraints.txt."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "image-constraints.txt"
#: Installed to build the package, then removed from the runtime environment by the Dockerfile.
BUILD_ONLY = frozenset({"pip", "setuptools", "wheel"})
_PIN = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!-]+)")


def normalize(name: str) -> str:
    """PEP 503 name normalisation, so `PyYAML` and `pyyaml`, `rpds_py` and `rpds-py` agree."""
    return re.sub(r"[-_.]+", "-", name).lower()


def parse_pins(lines: list[str], source: str) -> dict[str, str]:
    """`name==version` lines (comments and blanks skipped); anything looser is an error."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _PIN.fullmatch(line)
        if match is None:
            raise ValueError(f"{source}:{number}: {raw!r} is not an exact name==version pin")
        name = normalize(match.group(1))
        if name in pins:
            raise ValueError(f"{source}:{number}: {name} is pinned twice")
        pins[name] = match.group(2)
    return pins


def project_pins() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return parse_pins(list(project["dependencies"]), "pyproject.toml [project] dependencies")


def constraint_pins() -> dict[str, str]:
    return parse_pins(CONSTRAINTS.read_text(encoding="utf-8").splitlines(), CONSTRAINTS.name)


def expected_runtime() -> dict[str, str]:
    """Every distribution the runtime image should hold, besides claim-gate itself."""
    pins = {**constraint_pins(), **project_pins()}
    return {name: version for name, version in pins.items() if name not in BUILD_ONLY}
