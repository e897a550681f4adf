"""Cold start of the action's two forms, on the container tests' local Debian base.

Run (root, with buildah and podman): python3 -m bench.action_start_bench

- `uses: OWNER/claim-gate@v0` (the default, pre-built): action.yml names the image the release
  built (`docker://ghcr.io/OWNER/claim-gate:vX.Y.Z@sha256:…`); the runner pulls it, then starts
  it. Timed here: `podman load` of the built image from an archive on local disk into empty
  storage (standing in for the pull; no registry is reachable here), then the first container run
  under the reference the release commit's action.yml names.
- `uses: OWNER/claim-gate/from-source@v0`: the runner builds the image from the Dockerfile on
  every run, then starts it. Timed here: a build with empty layer storage, then the first run.

Both exclude fetching the base image (the Dockerfile's pinned slim Python is a 47.8 MB download
on GitHub; the local base is imported before timing) and network transfer of the pre-built
image (its archive size is printed). The run is the action's entrypoint on an event it refuses at
once (`push`), i.e. container start, interpreter start, imports and the first output line.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.container.base import base_tarball
from tests.container.engine import (
    Build,
    Engine,
    Limits,
    as_released,
    build_image,
    configure,
    import_base,
)
from tests.container.runner import RunnerDirs, run_like_runner
from tests.image_reference import RELEASE_OWNER, action_image, pulled, released

CACHE = Path(tempfile.gettempdir()) / "claim-gate-container-cache"


def fresh_engine(root: Path) -> tuple[Engine, str]:
    engine = configure(root, Limits.of_this_process())
    return engine, import_base(engine, base_tarball(CACHE))


def first_run(engine: Engine, image: str, work: Path) -> float:
    dirs = RunnerDirs.create(work, event={"ref": "refs/heads/main"})
    started = time.monotonic()
    result = run_like_runner(engine, image, dirs, env={"GITHUB_EVENT_NAME": "push"},
                             inputs={"github-token": "t"})
    seconds = time.monotonic() - started
    if "claim-gate" not in result.stdout + result.stderr:
        raise RuntimeError(f"the action did not answer: {result}")
    return seconds


@dataclass(frozen=True)
class Pulled:
    """The released image loaded into empty storage from an archive (the pull's stand-in)."""

    engine: Engine
    image: str
    seconds: float
    archive_bytes: int


def pull_stand_in(root: Path, shipped: Build, source: Engine) -> Pulled:
    archive = root / "image.tar"
    reference = shipped.image.split("@", 1)[0]
    source.tool("podman", "save", "--format", "oci-archive", "-o", str(archive), reference)
    loader, _ = fresh_engine(root / "pull")
    started = time.monotonic()
    loader.tool("podman", "load", "-i", str(archive))
    seconds = time.monotonic() - started
    # Pin the loaded image by its digest in this storage, as the release pins the pushed one.
    pinned = as_released(loader, Build(reference, 0.0, ""), reference)
    return Pulled(loader, pinned.image, seconds, archive.stat().st_size)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="claim-gate-start-") as temp:
        root = Path(temp)
        engine, base = fresh_engine(root / "build")
        build = build_image(engine, base=base)
        run_after_build = first_run(engine, build.image, root / "run1")
        shipped = as_released(engine, build, pulled(released(action_image(), RELEASE_OWNER)))
        pull = pull_stand_in(root, shipped, engine)
        run_after_pull = first_run(pull.engine, pull.image, root / "run2")
        build_total = build.seconds + run_after_build
        image_total = pull.seconds + run_after_pull
        print(json.dumps({
            "uses_pre_built_image": {"image": pull.image,
                                     "load_s": round(pull.seconds, 1),
                                     "first_run_s": round(run_after_pull, 2),
                                     "total_s": round(image_total, 1),
                                     "archive_mb": round(pull.archive_bytes / 1e6, 1)},
            "uses_from_source": {"build_s": round(build.seconds, 1),
                                 "first_run_s": round(run_after_build, 2),
                                 "total_s": round(build_total, 1)},
            "from_source_over_pre_built": round(build_total / image_total, 1),
        }, indent=2))


if __name__ == "__main__":
    main()
