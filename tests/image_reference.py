"""The image reference action.yml names, and the one the release commit names instead.

action.yml on main names `docker://ghcr.io/OWNER/claim-gate:v<__version__>`. `OWNER` is a
placeholder that is not a valid image name (upper case), so an unreleased commit fails to pull
rather than pull whatever someone published under a real account of that name. The release
workflow (.github/workflows/release.yml, step `name the published image in action.yml`) replaces
that line on the release commit with the publishing account, lower-cased as registries require,
and the pushed image's digest; `released` is that rewrite, and tests/test_release_workflow.py runs
the workflow's own script to keep the two equal.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
FROM_SOURCE = ROOT / "from-source" / "action.yml"
PLACEHOLDER = "OWNER"
REGISTRY = "ghcr.io"
NAME = "claim-gate"
#: The account the tests release as: mixed case, so the release's lower-casing is exercised.
RELEASE_OWNER = "Octo-Org"
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


def action_image(path: Path = ACTION) -> str:
    """`runs.image` as the file says it (`docker://…` or a Dockerfile path)."""
    spec = yaml.safe_load(path.read_text("utf-8"))
    image = spec["runs"]["image"]
    assert isinstance(image, str)
    return image


def unreleased(version: str) -> str:
    """What action.yml names between releases: the version to be released, owner unfilled."""
    return f"docker://{REGISTRY}/{PLACEHOLDER}/{NAME}:v{version}"


def released(image: str, owner: str, digest: str | None = None) -> str:
    """What the release commit's action.yml names: the account filled in, and the digest."""
    prefix = f"docker://{REGISTRY}/{PLACEHOLDER}/{NAME}:"
    if not image.startswith(prefix):
        raise ValueError(f"{image!r} is not the unreleased form {prefix}<tag>")
    if digest is not None and not _DIGEST.fullmatch(digest):
        raise ValueError(f"{digest!r} is not a sha256 digest")
    named = f"docker://{REGISTRY}/{owner.lower()}/{NAME}:{image.removeprefix(prefix)}"
    return named if digest is None else f"{named}@{digest}"


def pulled(image: str) -> str:
    """What the runner passes to `docker pull` for a `docker://` image."""
    if not image.startswith("docker://"):
        raise ValueError(f"{image!r} is not a docker:// image")
    return image.removeprefix("docker://")
