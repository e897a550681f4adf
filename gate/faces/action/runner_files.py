"""Writing what a step leaves behind: outputs, the job summary, workflow commands."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path

from gate.claim.errors import CouldNotDecide
from gate.report.github_commands import command


def workflow_command(name: str, message: str, **properties: str | int) -> str:
    """A workflow command line, escaped as the runner unescapes it (see github_commands)."""
    return command(name, message, properties)


def write_outputs(path: Path | None, outputs: Mapping[str, str]) -> None:
    """GITHUB_OUTPUT with a random delimiter per value, so no value can forge another."""
    if path is None:
        return
    lines = []
    for name, value in outputs.items():
        delimiter = f"claim_gate_{secrets.token_hex(8)}"
        lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines))
    except OSError as exc:
        raise CouldNotDecide(f"{path}: cannot write the step outputs: {exc.strerror}") from None


def append_summary(path: Path | None, markdown: str) -> None:
    if path is None:
        return
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(markdown + "\n")
    except OSError as exc:
        raise CouldNotDecide(f"{path}: cannot write the job summary: {exc.strerror}") from None


def write_timelines(workspace: Path, pictures: Sequence[str]) -> list[str]:
    """Each claim's time line as `.claim-gate/timeline.svg` (`timeline-N.svg` for several),
    named relative to the workspace as `claim-json` is (the container's workspace is
    another path on the runner; later steps start in the workspace either way)."""
    folder = workspace / ".claim-gate"
    names = (["timeline.svg"] if len(pictures) == 1
             else [f"timeline-{n}.svg" for n in range(1, len(pictures) + 1)])
    try:
        if pictures:
            folder.mkdir(parents=True, exist_ok=True)
        for name, picture in zip(names, pictures, strict=False):
            (folder / name).write_text(picture, encoding="utf-8")
    except OSError as exc:
        raise CouldNotDecide(f"{folder}: cannot write the time line: {exc.strerror}") from None
    return [f".claim-gate/{name}" for name in names[:len(pictures)]]
