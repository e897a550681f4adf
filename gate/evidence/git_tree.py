"""One runner type and one `git ls-tree` reader for every module that asks git about a commit.

Each reader of a commit's tree (the claim at the head, the change's files at the head, the
test modules the session collected) parsed `ls-tree -z` on its own; they now share this one,
so an entry git prints is read the same way everywhere: `MODE SP KIND SP OID TAB PATH`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

GitRunner = Callable[[Sequence[str], Path], bytes]
"""Runs `git ARGS` in a directory and returns stdout; raises OSError or CalledProcessError."""

#: Paths per `git ls-tree` command line (a long change must not overflow the argument list).
LS_TREE_BATCH = 500


@dataclass(frozen=True)
class TreeEntry:
    """One path of a commit's tree as `git ls-tree` names it."""

    mode: str  # "100644", "100755", "120000" (link), "160000" (submodule), "040000" (tree)
    kind: str  # "blob", "tree" or "commit"
    oid: str


def parse_ls_tree(output: bytes) -> dict[str, TreeEntry]:
    """path -> entry of `git ls-tree -z` output; a line not of git's shape is left out."""
    found: dict[str, TreeEntry] = {}
    for line in output.split(b"\0"):
        meta, _, name = line.partition(b"\t")
        parts = meta.decode("ascii", "replace").split(" ")
        if name and len(parts) == 3:
            found[name.decode("utf-8", "surrogateescape")] = TreeEntry(*parts)
    return found


def ls_tree(run: GitRunner, directory: Path, commit: str, paths: Sequence[str], *,
            full_tree: bool) -> dict[str, TreeEntry]:
    """The entries of `paths` at `commit` (paths from the repository's top with `full_tree`,
    else from `directory`); raises what `run` raises."""
    found: dict[str, TreeEntry] = {}
    scope = ["--full-tree"] if full_tree else []
    for start in range(0, len(paths), LS_TREE_BATCH):
        batch = paths[start:start + LS_TREE_BATCH]
        found.update(parse_ls_tree(run(["ls-tree", "-z", *scope, commit, "--", *batch],
                                       directory)))
    return found
