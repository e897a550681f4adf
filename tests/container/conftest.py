"""Session fixtures for the container tests: one private engine and one built image per run.

pytest-xdist workers share the engine (its storage sits in the run's common temp folder) and
take turns through file locks, so the base is imported and the image built once per run; the
debootstrapped base itself is cached across runs under the system temp folder.

Tests that run the action's image (the Action scenarios against the GitHub stand-in) belong in
this folder: they take `container_engine` and `gate_image` and call
`tests.container.runner.run_like_runner(...)` with their inputs, environment and mounts.
`gate_image.image` is the reference the release commit's action.yml names (the local build
tagged so, pinned by its digest): what is tested is what the runner pulls.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.container.base import base_tarball
from tests.container.engine import (
    Build,
    Engine,
    Limits,
    as_released,
    build_image,
    configure,
    import_base,
    locked,
    skip_reason,
)
from tests.image_reference import RELEASE_OWNER, action_image, pulled, released

#: Stable across runs (so the ~50 s debootstrap happens once per machine); keyed by a hash inside.
BASE_CACHE = Path(tempfile.gettempdir()) / "claim-gate-container-cache"


@pytest.fixture(scope="session")
def container_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """A podman/buildah set-up private to this test run, or a skip saying what is missing."""
    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)
    base_temp = tmp_path_factory.getbasetemp()
    # Under pytest-xdist each worker has its own basetemp inside the run's common one.
    run_temp = base_temp.parent if os.environ.get("PYTEST_XDIST_WORKER") else base_temp
    root = run_temp / "containers"
    with locked(run_temp / "containers.lock"):
        return configure(root, Limits.of_this_process())


@pytest.fixture(scope="session")
def gate_image(container_engine: Engine) -> Build:
    """The action's image built from the repository's Dockerfile on the local Debian base, under
    the reference the release commit's action.yml names (`ghcr.io/octo-org/claim-gate:vX.Y.Z`,
    pinned `@sha256:…`)."""
    with locked(container_engine.root / "build.lock"):
        base = import_base(container_engine, base_tarball(BASE_CACHE))
        build = build_image(container_engine, base=base)
        reference = pulled(released(action_image(), RELEASE_OWNER))
        return as_released(container_engine, build, reference)
