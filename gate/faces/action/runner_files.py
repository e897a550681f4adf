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


#: Where the step leaves its files, relative to the workspace (the container's workspace is
#: another path on the runner; later steps start in the workspace either way).
STEP_FOLDER = Path(".claim-gate")


def write_step_file(workspace: Path, name: str, text: str, what: str) -> str:
    """Write `.claim-gate/NAME` under the workspace; its path relative to the workspace.
    A file that cannot be written is CouldNotDecide naming it and `what` it is."""
    relative = STEP_FOLDER / name
    target = workspace / relative
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)  # an OSError raised without an errno has none
        raise CouldNotDecide(f"{target}: cannot write the {what}: {reason}") from None
    return str(relative)


def write_timelines(workspace: Path, pictures: Sequence[str]) -> list[str]:
    """Each claim's time line as `.claim-gate/timeline.svg` (`timeline-N.svg` for several)."""
    names = (["timeline.svg"] if len(pictures) == 1
             else [f"timeline-{n}.svg" for n in range(1, len(pictures) + 1)])
    return [write_step_file(workspace, name, picture, "time line")
            for name, picture in zip(names, pictures, strict=False)]
