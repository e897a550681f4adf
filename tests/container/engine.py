"""Build the action's image with buildah and run it with podman the way the GitHub runner does.

There is no Docker engine and no reachable registry on the machines this project runs on, so the
tests make a Debian base with debootstrap, import it, build the real `Dockerfile` on it
(`--build-arg BASE=localhost/base:bookworm`) and start containers with the runner's mounts,
working directory and environment. Each setting below says why this machine needs it.

Everything here is plain functions over a frozen `Engine` (where the configuration and storage
live), so the later Action tests can reuse `run_like_runner` with their own inputs and mounts.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
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
SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEBOOTSTRAP_OPTIONS = (
    "--variant=minbase",
    "--include=python3,python3-venv,python3-pip,ca-certificates",
)
#: Bump when the way the base is made changes, so cached bases made the old way are not reused.
BASE_RECIPE = "1"
EXTRA_CA_DIR = Path("/usr/local/share/ca-certificates")

#: Where the runner puts things inside a Docker action's container.
WORKSPACE = "/github/workspace"
EVENT_PATH = "/github/workflow/event.json"
HOME = "/github/home"
FILE_COMMANDS = "/github/file_commands"
OUTPUT_NAME = "set_output"
SUMMARY_NAME = "step_summary"
#: podman's own exit codes (it failed; the container's command never ran, or could not start).
PODMAN_OWN_FAILURES = frozenset({125, 126, 127})


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
            raise EngineError(_failure([tool, *args], result))
        return result

    def image_exists(self, image: str) -> bool:
        return self.tool("podman", "image", "exists", image, check=False).returncode == 0

    def image_size(self, image: str) -> int:
        """The image's unpacked size in bytes, as `podman images` reports it."""
        out = self.tool("podman", "image", "inspect", "--format", "{{.Size}}", image).stdout
        return int(out.strip())

    def image_config(self, image: str) -> dict[str, object]:
        out = self.tool("podman", "image", "inspect", image).stdout
        inspected = json.loads(out)
        config = inspected[0]["Config"]
        assert isinstance(config, dict)
        return config


def _failure(command: Sequence[str], result: subprocess.CompletedProcess[str]) -> str:
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


# ---- the base image -------------------------------------------------------------------------


def apt_mirror(sources: Sequence[Path] | None = None) -> str:
    """The Debian mirror this machine's apt uses for the main suite (deb822 or one-line format)."""
    if sources is None:
        sources = [
            Path("/etc/apt/sources.list"),
            *sorted(Path("/etc/apt/sources.list.d").glob("*.sources")),
            *sorted(Path("/etc/apt/sources.list.d").glob("*.list")),
        ]
    for source in sources:
        if not source.is_file():
            continue
        for uri, suites in _apt_entries(source.read_text(encoding="utf-8", errors="replace")):
            if any("-" not in suite for suite in suites) and "/debian" in uri:
                return uri.rstrip("/")
    return DEFAULT_MIRROR


def _apt_entries(text: str) -> Iterator[tuple[str, list[str]]]:
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            line = line.strip()
            if line.startswith("#") or not line:
                continue
            one_line = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
            if one_line:
                yield one_line.group(1), [one_line.group(2)]
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key.strip().lower()] = value.strip()
        if fields.get("types", "").split()[:1] == ["deb"] and "uris" in fields:
            for uri in fields["uris"].split():
                yield uri, fields.get("suites", "").split()


def extra_ca_certificates(directory: Path = EXTRA_CA_DIR) -> list[Path]:
    """Certificates the host trusts beyond Debian's: pip in the build needs them too."""
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.rglob("*.crt") if path.is_file())


def base_key(mirror: str, certificates: Sequence[Path]) -> str:
    """A hash of everything the base depends on, so a cache made otherwise is never reused."""
    digest = hashlib.sha256()
    digest.update(json.dumps([BASE_RECIPE, SUITE, mirror, list(DEBOOTSTRAP_OPTIONS)]).encode())
    for cert in certificates:
        digest.update(cert.name.encode() + b"\0" + cert.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def base_tarball(cache_dir: Path) -> Path:
    """The debootstrapped base as a tar, made once and then reused from cache_dir."""
    mirror = apt_mirror()
    certificates = extra_ca_certificates()
    tarball = cache_dir / f"base-{SUITE}-{base_key(mirror, certificates)}.tar"
    with locked(cache_dir / "base.lock"):
        if tarball.is_file():
            return tarball
        if shutil.which("debootstrap") is None:
            raise EngineError("no cached base image and no debootstrap to make one")
        tree = cache_dir / f"root-{os.getpid()}"
        shutil.rmtree(tree, ignore_errors=True)
        try:
            _debootstrap(tree, mirror, certificates)
            partial = tarball.with_suffix(".partial")
            _check(["tar", "--numeric-owner", "-C", str(tree), "-cf", str(partial), "."], 300)
            partial.replace(tarball)
        finally:
            shutil.rmtree(tree, ignore_errors=True)
    return tarball


def _debootstrap(tree: Path, mirror: str, certificates: Sequence[Path]) -> None:
    _check(["debootstrap", *DEBOOTSTRAP_OPTIONS, SUITE, str(tree), mirror], 900)
    if certificates:
        target = tree / "usr/local/share/ca-certificates"
        target.mkdir(parents=True, exist_ok=True)
        for cert in certificates:
            shutil.copyfile(cert, target / cert.name)
        _check(["chroot", str(tree), "update-ca-certificates"], 120)
    # Downloaded packages and indexes are dead weight in an image.
    for leftover in (tree / "var/cache/apt/archives").glob("*.deb"):
        leftover.unlink()
    shutil.rmtree(tree / "var/lib/apt/lists", ignore_errors=True)
    (tree / "var/lib/apt/lists/partial").mkdir(parents=True)


def _check(command: Sequence[str], timeout: float) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise EngineError(_failure(command, result))


def import_base(engine: Engine, tarball: Path, image: str = BASE_IMAGE) -> str:
    """Import the base tar as `image` unless this engine already holds it."""
    if not engine.image_exists(image):
        engine.tool("podman", "import", "--quiet", str(tarball), image, timeout=600)
    return image


# ---- build and run --------------------------------------------------------------------------


@dataclass(frozen=True)
class Build:
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


@dataclass(frozen=True)
class RunnerDirs:
    """The host side of what the runner mounts into a Docker action's container."""

    workspace: Path
    event: Path
    file_commands: Path
    home: Path

    @classmethod
    def create(cls, root: Path, event: Mapping[str, object] | None = None) -> RunnerDirs:
        dirs = cls(
            workspace=root / "workspace",
            event=root / "workflow" / "event.json",
            file_commands=root / "file_commands",
            home=root / "home",
        )
        for directory in (dirs.workspace, dirs.event.parent, dirs.file_commands, dirs.home):
            directory.mkdir(parents=True, exist_ok=True)
        dirs.event.write_text(json.dumps(event or {}), encoding="utf-8")
        (dirs.file_commands / OUTPUT_NAME).touch()
        (dirs.file_commands / SUMMARY_NAME).touch()
        return dirs

    @property
    def output_file(self) -> Path:
        return self.file_commands / OUTPUT_NAME

    @property
    def summary_file(self) -> Path:
        return self.file_commands / SUMMARY_NAME


@dataclass(frozen=True)
class Mount:
    host: Path
    container: str
    read_only: bool = False

    def option(self) -> str:
        return f"{self.host}:{self.container}" + (":ro" if self.read_only else "")


@dataclass(frozen=True)
class RunResult:
    returncode: int
    stdout: str
    stderr: str


def input_variable(name: str) -> str:
    """The runner's name for an action input: upper-cased, spaces to '_', hyphens kept."""
    return "INPUT_" + name.replace(" ", "_").upper()


def run_like_runner(
    engine: Engine,
    image: str,
    dirs: RunnerDirs,
    *,
    inputs: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
    mounts: Sequence[Mount] = (),
    entrypoint: Sequence[str] | None = None,
    timeout: float = 300,
) -> RunResult:
    """Start `image` as the runner starts a Docker action, and wait for it.

    `inputs` are action inputs by their action.yml names (`claim-path`); `env` is extra
    environment (GITHUB_API_URL, GITHUB_REPOSITORY, ...) and wins over the runner's defaults;
    `entrypoint` replaces the image's ENTRYPOINT (exec form) when given.
    """
    environment = {
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "HOME": HOME,
        "GITHUB_WORKSPACE": WORKSPACE,
        "GITHUB_EVENT_PATH": EVENT_PATH,
        "GITHUB_OUTPUT": f"{FILE_COMMANDS}/{OUTPUT_NAME}",
        "GITHUB_STEP_SUMMARY": f"{FILE_COMMANDS}/{SUMMARY_NAME}",
    }
    environment.update({input_variable(k): v for k, v in (inputs or {}).items()})
    environment.update(env or {})
    command = ["run", "--rm", "--network", "host", "--workdir", WORKSPACE]
    for name, value in environment.items():
        command += ["--env", f"{name}={value}"]
    all_mounts = [
        Mount(dirs.workspace, WORKSPACE),
        Mount(dirs.event, EVENT_PATH, read_only=True),
        Mount(dirs.file_commands, FILE_COMMANDS),
        Mount(dirs.home, HOME),
        *mounts,
    ]
    for mount in all_mounts:
        command += ["--volume", mount.option()]
    if entrypoint is not None:
        command += ["--entrypoint", json.dumps(list(entrypoint))]
    command += [image, *args]
    result = engine.tool("podman", *command, timeout=timeout, check=False)
    if result.returncode in PODMAN_OWN_FAILURES:
        raise EngineError(_failure(["podman", *command], result))
    return RunResult(result.returncode, result.stdout, result.stderr)
