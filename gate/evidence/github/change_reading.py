"""The PR's own files at its head SHA, from GitHub's contents API, for the change reading.

On GitHub the JUnit artifact comes from a job that ran the PR's code, and nothing in that job
can vouch for itself. The gate reads the change instead: each added or modified file of the
PR as GitHub stores it at the head SHA (never a checkout the PR's job could rewrite), handed
to the pure reading (`gate/evidence/change_reach.py`). A symlink, a file the API cannot give
and a PR longer than GitHub lists are recorded as unread, so the reading is incomplete.
"""

from __future__ import annotations

from collections.abc import Callable

from gate.claim.change_facts import ChangeReading, UnreadChange
from gate.claim.changed_paths import ChangedPaths
from gate.claim.errors import CouldNotDecide
from gate.evidence.change_reach import UnreadableFile, fetch_order, read_change
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.reads import Reads

#: Files read ahead together, at most: what is held in memory before the reading takes it.
READ_AHEAD = 32


def read_pull_change(api: GitHubApi, changed: ChangedPaths, head_sha: str) -> ChangeReading:
    """Every file the PR adds or modifies (a rename's new path), read at `head_sha`."""
    wanted = [f.filename for f in changed.files if f.status != "removed"]

    def one(path: str) -> bytes:
        try:
            entry = api.entry_at(path, head_sha)
        except CouldNotDecide as exc:
            raise UnreadableFile(f"GitHub could not give it: {exc}") from None
        if entry is None:
            raise UnreadableFile(f"GitHub has no such file at {head_sha[:12]}")
        if entry.kind != "file" or entry.path != path or entry.data is None:
            raise UnreadableFile(f"a {entry.kind if entry.path == path else 'symlink'} at the"
                                 " head, not a regular file: what it points to is not read")
        return entry.data

    fetch = _ReadAhead(api.reads, one, fetch_order(wanted))
    reading = read_change(f"{changed.source} at {head_sha[:12]}", wanted, fetch)
    if changed.complete:
        return reading
    # GitHub lists 3,000 files at most: the rest of the PR was never seen, so never read.
    rest = UnreadChange("(files GitHub does not list)",
                        f"GitHub listed {changed.listed} of the PR's {changed.expected} files")
    return ChangeReading(reading.source, reading.findings, (*reading.unread, rest),
                         reading.files_read)



class _ReadAhead:
    """`fetch` for the reading: the files it will ask for next, `READ_AHEAD` at a time, are
    read together; each answer (bytes, or why not) is handed over once, as asked."""

    def __init__(self, reads: Reads, one: Callable[[str], bytes], order: list[str]) -> None:
        self._reads, self._one, self._order = reads, one, order
        self._at = {path: index for index, path in enumerate(order)}
        self._ready: dict[str, bytes | UnreadableFile] = {}

    def _outcome(self, path: str) -> bytes | UnreadableFile:
        try:
            return self._one(path)
        except UnreadableFile as exc:
            return exc

    def __call__(self, path: str) -> bytes:
        if path not in self._ready and path in self._at:
            start = self._at[path]
            window = self._order[start:start + READ_AHEAD]
            self._ready = dict(zip(window, self._reads.each(self._outcome, window), strict=True))
        found = self._ready.pop(path) if path in self._ready else self._outcome(path)
        if isinstance(found, UnreadableFile):
            raise found
        return found
