"""Cold start of the action's two forms, on the container tests' local Debian base.

Run (root, with buildah and podman): python3 -m bench.action_start_bench

- `uses: OWNER/claim-gate@v0`: the runner builds the image from the Dockerfile on every run, then
  starts it. Timed here: a build with empty layer storage, then the first container run.
- `uses: docker://ghcr.io/OWNER/claim-gate:v0`: the runner pulls the released image, then
  starts it. Timed here: `podman load` of the built image from an archive on local disk
  (standing in for the pull; no registry is reachable here), then the first container run.

Both exclude fetching the base image (the Dockerfile's pinned slim Python is a 47.8 MB download
on GitHub; the local base is imported before timing) and network transfer of the pre-built
image (its compressed size is printed). The run is the action's entrypoint on an event it
refuses at once (`push`), i.e. interpreter start, imports and the first output line.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from tests.container.base import base_tarball
from tests.container.engine import Engine, Limits, build_image, configure, import_base
from tests.container.runner import RunnerDirs, run_like_runner

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


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="claim-gate-start-") as temp:
        root = Path(temp)
        engine, base = fresh_engine(root / "build")
        build = build_image(engine, base=base)
        run_after_build = first_run(engine, build.image, root / "run1")
        archive = root / "image.tar"
        engine.tool("podman", "save", "--format", "oci-archive", "-o", str(archive), build.image)
        loader, _ = fresh_engine(root / "pull")
        started = time.monotonic()
        loader.tool("podman", "load", "-i", str(archive))
        loaded = time.monotonic() - started
        run_after_load = first_run(loader, build.image, root / "run2")
        print(json.dumps({
            "uses_repository": {"build_s": round(build.seconds, 1),
                                "first_run_s": round(run_after_build, 2),
                                "total_s": round(build.seconds + run_after_build, 1)},
            "uses_docker_image": {"load_s": round(loaded, 1),
                                  "first_run_s": round(run_after_load, 2),
                                  "total_s": round(loaded + run_after_load, 1),
                                  "archive_mb": round(archive.stat().st_size / 1e6, 1)},
        }, indent=2))


if __name__ == "__main__":
    main()
