"""What a submodule bump changes, so the producer rule sees inside it.

`git diff` shows a bumped submodule as one path (its gitlink), and `.gitmodules`'
`ignore = all` (the change's own file) hides even that; a conftest inside the bumped submodule
would then never be seen as an edit of the evidence chain. The diff is read with
`--ignore-submodules=none` (`git_diff`), and each gitlink it changes is expanded here to the
paths the bump changes inside the submodule, prefixed with the submodule's path. A submodule
whose commits this clone cannot read is an error, never "nothing changed".
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from gate.evidence.git_diff import DiffRange, GitDiffError, GitUnavailable
from gate.evidence.git_probe import run_git
from gate.evidence.git_tree import GitRunner

_GITLINK = "160000"
_NO_COMMIT = "0" * 40


@dataclass(frozen=True)
class SubmoduleBump:
    path: str
    old: str | None  # None: the change adds the submodule
    new: str | None  # None: the change removes it


class UnreadableSubmodule(GitDiffError):  # noqa: N818 - named for what happened
    """The change moves a submodule to commits this clone does not hold."""


def parse_raw(output: bytes) -> list[SubmoduleBump]:
    """The gitlink entries of `git diff --raw -z --no-renames` output."""
    tokens = output.split(b"\0")
    bumps = []
    for index in range(0, len(tokens) - 1, 2):
        fields = tokens[index].decode("ascii", "replace").lstrip(":").split()
        if len(fields) < 5 or _GITLINK not in fields[:2]:
            continue
        old = fields[2] if fields[0] == _GITLINK and fields[2].strip("0") else None
        new = fields[3] if fields[1] == _GITLINK and fields[3].strip("0") else None
        bumps.append(SubmoduleBump(tokens[index + 1].decode("utf-8", "surrogateescape"),
                                   old, new))
    return bumps


def submodule_bumps(resolved: DiffRange, run: GitRunner = run_git) -> list[SubmoduleBump]:
    args = ["diff", "--raw", "-z", "--no-renames", "--no-relative", "--no-ext-diff",
            "--ignore-submodules=none", "--abbrev=40", resolved.merge_base, resolved.head, "--"]
    try:
        return parse_raw(run(args, resolved.toplevel))
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitUnavailable(f"git diff --raw failed in {resolved.toplevel}: {exc}") from None


def inside(bump: SubmoduleBump, top: Path, run: GitRunner = run_git) -> tuple[str, ...]:
    """The paths the bump changes inside the submodule, as paths of the outer repository."""
    if bump.new is None:
        return ()
    where = top / bump.path
    args = (["ls-tree", "-r", "-z", "--name-only", bump.new] if bump.old is None else
            ["diff", "--name-only", "-z", "--no-renames", "--no-relative", bump.old, bump.new,
             "--"])
    try:
        if not (where / ".git").exists():
            raise FileNotFoundError(f"{where} is not checked out")
        output = run(args, where)
    except (OSError, subprocess.SubprocessError):
        moved = f"{(bump.old or 'nothing')[:12]} to {bump.new[:12]}"
        raise UnreadableSubmodule(
            f"the change moves the submodule {bump.path} from {moved}, and this clone cannot"
            " read what that changes inside it (a conftest or test set-up there would be an"
            " edit of the evidence chain); check the submodules out with their history in the"
            " gate's job (git submodule update --init, or actions/checkout with"
            " submodules: true and fetch-depth: 0)"
        ) from None
    names = [n for n in output.split(b"\0") if n]
    return tuple(f"{bump.path}/{n.decode('utf-8', 'surrogateescape')}" for n in names)
