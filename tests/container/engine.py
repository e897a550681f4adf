"""A private podman/buildah set-up, and building the action's image with it.

There is no Docker engine and no reachable registry on the machines this project runs on, so the
tests import a Debian base made with debootstrap (`tests/container/base.py`), build the real
`Dockerfile` on it (`--build-arg BASE=localhost/base:bookworm`) and start containers the way the
runner does (`tests/container/runner.py`). Each setting below says why this machine needs it.
"""

from __future__ import annotations

import fcntl
import json
import os
import resource
import shutil
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE_IMAGE = "localhost/base:bookworm"
GATE_IMAGE = "localhost/claim-gate:test"
TOOLS = ("podman", "buildah", "runc")


class EngineError(RuntimeError):
    """A container tool failed; the message carries its command and output."""


def missing_tools() -> list[str]:
    """Tools the tests need that are missing (debootstrap only matters without a cached base)."""
    return [tool for tool in TOOLS if shutil.which(tool) is None]


def skip_reason() -> str | None:
    """Why the container tests cannot run here, or None when they can."""
    missing = missing_tools()
    if missing:
        return (
            f"container tests need {', '.join(missing)} (Debian: apt-get install buildah podman "
            "runc debootstrap; .ci/run installs them)"
        )
    if os.geteuid() != 0:
        return "container tests need root (debootstrap, rootful podman with overlay storage)"
    return None


@dataclass(frozen=True)
class Limits:
    """Hard limits the container may not exceed: podman's defaults are above them here."""

    nofile: int
    nproc: int

    @classmethod
    def of_this_process(cls) -> Limits:
        nofile = _finite(resource.getrlimit(resource.RLIMIT_NOFILE)[1], 1_048_576)
        pid_max = int(Path("/proc/sys/kernel/pid_max").read_text(encoding="ascii").strip())
        nproc = min(_finite(resource.getrlimit(resource.RLIMIT_NPROC)[1], pid_max), pid_max)
        return cls(nofile=nofile, nproc=nproc)


def _finite(value: int, fallback: int) -> int:
    return fallback if value == resource.RLIM_INFINITY else value


@dataclass(frozen=True)
class Engine:
    """One private podman/buildah set-up: its configuration files and storage under `root`."""

    root: Path

    @property
    def containers_conf(self) -> Path:
        return self.root / "containers.conf"

    @property
    def storage_conf(self) -> Path:
        return self.root / "storage.conf"

    def environment(self) -> dict[str, str]:
        """The environment for podman and buildah (never the container's: see run_like_runner)."""
        env = dict(os.environ)
        env["CONTAINERS_CONF"] = str(self.containers_conf)
        env["CONTAINERS_STORAGE_CONF"] = str(self.storage_conf)
        env["TMPDIR"] = str(self.root / "tmp")
        return env

    def tool(
        self, tool: str, *args: str, timeout: float = 300, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run podman or buildah with this engine's configuration."""
        result = subprocess.run(
            [tool, *args],
            env=self.environment(),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise EngineError(failure_message([tool, *args], result))
        return result

    def image_exists(self, image: str) -> bool:
        return self.tool("podman", "image", "exists", image, check=False).returncode == 0

    def image_size(self, image: str) -> int:
        """The image's unpacked size in bytes, as `podman images` reports it."""
        out = self.tool("podman", "image", "inspect", "--format", "{{.Size}}", image).stdout
        return int(out.strip())

    def image_digest(self, image: str) -> str:
        """The image's manifest digest (`sha256:…`), the part after `@` in a pinned reference."""
        out = self.tool("podman", "image", "inspect", "--format", "{{.Digest}}", image).stdout
        return out.strip()

    def image_config(self, image: str) -> dict[str, object]:
        out = self.tool("podman", "image", "inspect", image).stdout
        inspected = json.loads(out)
        config = inspected[0]["Config"]
        assert isinstance(config, dict)
        return config


def failure_message(command: Sequence[str], result: subprocess.CompletedProcess[str]) -> str:
    return (
        f"{' '.join(command)} exited {result.returncode}\n"
        f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    )


def configure(root: Path, limits: Limits) -> Engine:
    """Write containers.conf and storage.conf for a private engine whose storage lives in root."""
    for sub in ("storage", "run", "tmp", "libpod-tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    engine = Engine(root)
    engine.containers_conf.write_text(
        "\n".join(
            [
                "[containers]",
                # Containers reach servers the tests start on 127.0.0.1.
                'netns = "host"',
                # podman's defaults exceed this machine's hard limits (setrlimit: not permitted).
                f'default_ulimits = ["nofile={limits.nofile}:{limits.nofile}", '
                f'"nproc={limits.nproc}:{limits.nproc}"]',
                "",
                "[engine]",
                # crun refuses this kernel's hybrid cgroup layout.
                'runtime = "runc"',
                # No systemd runs here to manage cgroups or take journal events.
                'cgroup_manager = "cgroupfs"',
                'events_logger = "file"',
                f'events_logfile_path = "{root / "events.log"}"',
                # Nothing shared with other podman users of this machine (/run/libpod, /var/tmp).
                f'tmp_dir = "{root / "libpod-tmp"}"',
                f'image_copy_tmp_dir = "{root / "tmp"}"',
                "",
            ]
        ),
        encoding="utf-8",
    )
    engine.storage_conf.write_text(
        "\n".join(
            [
                "[storage]",
                # overlay: vfs copies the whole image for every container (seconds per run).
                'driver = "overlay"',
                f'graphroot = "{root / "storage"}"',
                f'runroot = "{root / "run"}"',
                "",
            ]
        ),
        encoding="utf-8",
    )
    return engine


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock shared by pytest-xdist workers (and by concurrent test runs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def import_base(engine: Engine, tarball: Path, image: str = BASE_IMAGE) -> str:
    """Import the base tar as `image` unless this engine already holds it."""
    if not engine.image_exists(image):
        engine.tool("podman", "import", "--quiet", str(tarball), image, timeout=600)
    return image


# ---- build --------------------------------------------------------------------------


@dataclass(frozen=True)
class Build:
    """A built image: `image` is the reference the tests run (see `as_released`)."""

    image: str
    seconds: float
    log: str


def build_image(
    engine: Engine,
    *,
    base: str,
    tag: str = GATE_IMAGE,
    context: Path = ROOT,
    build_args: Mapping[str, str] | None = None,
) -> Build:
    """Build context/Dockerfile as CONTAINER.md does: chroot isolation, host network, layers."""
    args = {"BASE": base, **(build_args or {})}
    command = ["build", "--isolation", "chroot", "--network", "host", "--layers", "-t", tag]
    for name, value in args.items():
        command += ["--build-arg", f"{name}={value}"]
    command += ["-f", str(context / "Dockerfile"), str(context)]
    started = time.monotonic()
    result = engine.tool("buildah", *command, timeout=900)
    return Build(image=tag, seconds=time.monotonic() - started, log=result.stdout + result.stderr)


def as_released(engine: Engine, build: Build, reference: str) -> Build:
    """The local build under `reference` (`name:tag` as the release commit's action.yml names
    it), pinned by the build's digest as the release pins it: `name:tag@sha256:…`.

    No registry is reachable here, so the build is tagged with the name the runner would pull;
    podman then resolves the pinned reference only when the stored image has that digest.
    """
    if "@" in reference:
        raise EngineError(f"{reference} already names a digest; give the name:tag to tag")
    engine.tool("podman", "tag", build.image, reference)
    digest = engine.image_digest(reference)
    return Build(image=f"{reference}@{digest}", seconds=build.seconds, log=build.log)
