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
from gate.evidence.git_probe import GitRunner, run_git

_FILE_MODES = frozenset({"100644", "100755"})


def _modes(resolved: DiffRange, paths: Sequence[str], run: GitRunner) -> dict[str, str]:
    """path -> (mode, object id) of each path at HEAD, in one `git ls-tree`."""
    try:
        out = run(["ls-tree", "-z", "--full-tree", resolved.head, "--", *paths],
                  resolved.toplevel)
    except (OSError, subprocess.SubprocessError) as exc:
        raise UnreadableFile(f"git ls-tree failed: {exc}") from None
    found: dict[str, str] = {}
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        if path:
            found[path] = meta
    return found


def read_git_change(resolved: DiffRange, changes: Sequence[ChangedPath],
                    run: GitRunner = run_git) -> ChangeReading:
    """Every added or modified file of `merge_base...head`, read at head."""
    wanted = [c.path for c in changes if c.status is not ChangeStatus.DELETED]
    source = f"git diff {resolved.merge_base[:12]}...{resolved.head[:12]}"
    readable_paths = [p for p in wanted if readable(p)]
    try:
        modes = _modes(resolved, readable_paths, run) if readable_paths else {}
    except UnreadableFile as exc:
        problem = str(exc)
        modes = {}
    else:
        problem = ""

    def fetch(path: str) -> bytes:
        meta = modes.get(path)
        if meta is None:
            raise UnreadableFile(problem or "not found at the head commit")
        mode, kind, oid = [*meta.split(" "), "", "", ""][:3]
        if kind != "blob" or mode not in _FILE_MODES:
            raise UnreadableFile(f"not a regular file at the head commit (mode {mode}): what"
                                 " it points to is not read")
        try:
            return run(["cat-file", "blob", oid], resolved.toplevel)
        except (OSError, subprocess.SubprocessError) as exc:
            raise UnreadableFile(f"git cat-file failed: {exc}") from None

    return read_change(source, wanted, fetch)
