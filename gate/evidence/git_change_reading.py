"""The change's own files at the head commit, from git, for the change reading.

`verify --diff-base` already knows which files the branch changed (`git_diff.changed_in`);
this reads each added or modified one as git stores it at HEAD (`git cat-file blob`), never
from the working tree the test job may have rewritten, and hands the bytes to the pure
reading (`gate/evidence/change_reach.py`). A symbolic link, a submodule or a blob git cannot
give is recorded as unread, not skipped.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

from gate.claim.change_facts import ChangeReading
from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.evidence.change_reach import UnreadableFile, read_change, readable
from gate.evidence.git_diff import DiffRange
from gate.evidence.git_probe import run_git
from gate.evidence.git_tree import GitRunner, TreeEntry, ls_tree

_FILE_MODES = frozenset({"100644", "100755"})


def _entries(resolved: DiffRange, paths: Sequence[str], run: GitRunner) -> dict[str, TreeEntry]:
    """Each path's entry at HEAD, from `git ls-tree`."""
    try:
        return ls_tree(run, resolved.toplevel, resolved.head, paths, full_tree=True)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UnreadableFile(f"git ls-tree failed: {exc}") from None


def read_git_change(resolved: DiffRange, changes: Sequence[ChangedPath],
                    run: GitRunner = run_git) -> ChangeReading:
    """Every added or modified file of `merge_base...head`, read at head."""
    wanted = [c.path for c in changes if c.status is not ChangeStatus.DELETED]
    source = f"git diff {resolved.merge_base[:12]}...{resolved.head[:12]}"
    readable_paths = [p for p in wanted if readable(p)]
    try:
        entries = _entries(resolved, readable_paths, run) if readable_paths else {}
    except UnreadableFile as exc:
        problem = str(exc)
        entries = {}
    else:
        problem = ""

    def fetch(path: str) -> bytes:
        entry = entries.get(path)
        if entry is None:
            raise UnreadableFile(problem or "not found at the head commit")
        if entry.kind != "blob" or entry.mode not in _FILE_MODES:
            raise UnreadableFile(f"not a regular file at the head commit (mode {entry.mode}):"
                                 " what it points to is not read")
        try:
            return run(["cat-file", "blob", entry.oid], resolved.toplevel)
        except (OSError, subprocess.SubprocessError) as exc:
            raise UnreadableFile(f"git cat-file failed: {exc}") from None

    return read_change(source, wanted, fetch)
