"""Start the action's image the way the GitHub runner starts a Docker action.

The runner runs roughly `docker run --rm --workdir /github/workspace -e INPUT_<NAME>=... -e
GITHUB_* ... -v WORKSPACE:/github/workspace -v EVENT:/github/workflow/event.json:ro -v
FILE_COMMANDS:/github/file_commands IMAGE ARGS`; `run_like_runner` does the same with podman so the
Action tests can run the real image with their own inputs, environment and mounts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.container.engine import Engine, EngineError, failure_message

#: Where the runner puts things inside a Docker action's container.
WORKSPACE = "/github/workspace"
EVENT_PATH = "/github/workflow/event.json"
HOME = "/github/home"
FILE_COMMANDS = "/github/file_commands"
OUTPUT_NAME = "set_output"
SUMMARY_NAME = "step_summary"
#: podman's own exit codes (it failed; the container's command never ran, or could not start).
PODMAN_OWN_FAILURES = frozenset({125, 126, 127})


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
    # The runner pulls a `docker://` image in a step of its own before `docker run`; here the
    # local build tagged as that reference stands in for the pull, and nothing is fetched.
    command = ["run", "--rm", "--pull=never", "--network", "host", "--workdir", WORKSPACE]
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
        raise EngineError(failure_message(["podman", *command], result))
    return RunResult(result.returncode, result.stdout, result.stderr)
