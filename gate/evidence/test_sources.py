"""Each collected test module's bytes against the commit's blob, when collected and at the end.

The clean-tree check runs once, at session start. Code that runs after it (a conftest, the code
under test imported during collection) can rewrite a test file before pytest imports it and put
it back at exit, and the start check never sees it. So the plugin hashes every collected test
module in git's blob form (`git hash-object`) as its collector starts and again at session end,
and asks git once for the commit's blobs of those paths: a module whose bytes were not the
commit's when collected or at the end, or that is not in the commit at all, is named.

The hash taken in process is of the raw bytes: the first look, cheap, and right for most
repositories. Where the checkout is not the blob byte for byte (`core.autocrlf`, an `eol`
or `filter` attribute such as LFS, a SHA-256 repository), a module whose raw hash differs is
asked of git once more, all such modules in one `git hash-object` (filters and the object
format applied): bytes that git stores as the commit's blob are the commit's. The collected
hash is of the bytes then; it counts as the commit's when it is the raw hash of a file that
git confirms at the end (the same bytes).
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from gate.evidence.git_probe import run_git
from gate.evidence.git_settings import GitView, settings_moved
from gate.evidence.git_tree import GitRunner, ls_tree

#: At most this many differing modules are listed (the count says how many there were).
MAX_LISTED = 20


def blob_id(data: bytes) -> str:
    """git's object id of a file with these bytes, unfiltered (`git hash-object
    --no-filters`, SHA-1 repositories): the first look, confirmed by `filtered_blobs`."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)  # not joined to the header first: a test module can be megabytes
    return digest.hexdigest()


def file_blob(path: Path) -> str | None:
    try:
        return blob_id(path.read_bytes())
    except OSError:
        return None


def _shown(path: Path, rootdir: Path) -> str | None:
    try:
        return path.resolve().relative_to(rootdir.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def commit_blobs(
    rootdir: Path, commit: str, paths: Sequence[str], run: GitRunner = run_git,
    full_tree: bool = False,
) -> dict[str, str]:
    """The commit's blob id of each path (relative to `rootdir`, or to the repository's top
    with `full_tree`) that it holds."""
    entries = ls_tree(run, rootdir, commit, paths, full_tree=full_tree)
    return {path: entry.oid for path, entry in entries.items() if entry.kind == "blob"}


def filtered_blobs(rootdir: Path, paths: Sequence[str], run: GitRunner = run_git) -> dict[str, str]:
    """git's blob id of each file as git would store it now (clean filters, end-of-line
    conversion and the repository's object format applied); a path git cannot hash (gone, or
    a filter that fails) is left out, so it stays differing."""
    found: dict[str, str] = {}
    present = [p for p in paths if (rootdir / p).is_file()]
    for start in range(0, len(present), 500):
        batch = present[start:start + 500]
        try:
            out = run(["hash-object", "--", *batch], rootdir)
        except (OSError, subprocess.SubprocessError):
            continue
        ids = out.decode("ascii", "replace").split()
        if len(ids) == len(batch):
            found.update(zip(batch, ids, strict=True))
    return found


class SourceWatch:
    """The blobs of the session's test modules as collected; compared at the end."""

    def __init__(self, rootdir: Path) -> None:
        self._rootdir = rootdir
        self._collected: dict[str, set[str | None]] = {}
        self._unread: list[str] = []

    def collected(self, paths: Iterable[Path]) -> None:
        """Hash these modules now: before pytest imports one (its collector starts) and after
        collection, so bytes put back by the module itself on import still show."""
        for path in paths:
            shown = _shown(path, self._rootdir)
            if shown is not None:
                self._collected.setdefault(shown, set()).add(file_blob(path))

    def collected_ids(self, node_ids: Iterable[str]) -> None:
        """The modules of tests collected elsewhere (xdist's workers, whose node ids are
        relative to the rootdir): hashed when their collection reaches the controller."""
        files = dict.fromkeys(node_id.split("::", 1)[0] for node_id in node_ids)
        self.collected(self._rootdir / name for name in files if name)

    def taken(self) -> dict[str, list[str | None]]:
        """Every blob taken of each module (rootdir-relative path): what an xdist worker
        hands its controller (`xdist_channel`)."""
        return {shown: sorted(blobs, key=str) for shown, blobs in self._collected.items()}

    def seen(self, blobs: Mapping[str, Iterable[str | None]]) -> None:
        """Blobs another process took of these modules (rootdir-relative paths) before it
        imported them: an xdist worker's (`taken` there)."""
        for shown, taken in blobs.items():
            self._collected.setdefault(shown, set()).update(taken)

    def unread(self, why: str) -> None:
        """Hashes the session needed and did not get (a worker that sent none): a problem,
        never "nothing differed"."""
        self._unread.append(why[:300])

    def facts(self, commit: str | None, run: GitRunner = run_git) -> dict[str, Any]:
        """What the inventory records: how many modules were checked and those that differ
        (`skipped` without a commit to compare with; `problem` when git could not answer)."""
        facts: dict[str, Any] = {"checked": len(self._collected), "differing": []}
        if self._unread:
            facts["problem"] = "; ".join(self._unread[:MAX_LISTED])
        if commit is None:
            facts["skipped"] = "no commit to compare with (the record says why)"
            return facts
        try:
            blobs = commit_blobs(self._rootdir, commit, sorted(self._collected), run)
        except (OSError, subprocess.SubprocessError) as exc:
            facts["problem"] = "; ".join([
                *self._unread[:MAX_LISTED],
                f"git ls-tree could not list the commit's test modules: {exc}"[:300]])
            return facts
        at_end = {path: file_blob(self._rootdir / path) for path in self._collected}
        unsure = [path for path, seen in sorted(self._collected.items())
                  if path in blobs and (seen != {blobs[path]} or at_end[path] != blobs[path])]
        confirmed = filtered_blobs(self._rootdir, unsure, run) if unsure else {}
        differing = []
        for path, seen in sorted(self._collected.items()):
            expected = blobs.get(path)
            same = {expected} | ({at_end[path]} if confirmed.get(path) == expected else set())
            if expected is None or not seen <= same or at_end[path] not in same:
                differing.append({"path": path, "commit": expected, "end": at_end[path],
                                  "collected": sorted(b or "unreadable" for b in seen)})
        facts["differing_count"] = len(differing)
        facts["differing"] = differing[:MAX_LISTED]
        return facts


def end_facts(
    sources: SourceWatch, start: Any, rootdir: Path, ignored: list[Path],
    git: GitView, import_roots: Iterable[Path], written: Iterable[str] = (),
) -> dict[str, Any]:
    """The test modules against the commit, and the tree probed again at session end (a file
    rewritten after the start check and not yet restored shows here), with git as the plugin
    found it at load (`git_settings`: its environment; settings that moved are said); and of
    the Python files `written` during the session (heard as it happened, `audit_watch`), those
    the commit holds (all of them, where git cannot tell)."""
    from gate.evidence.git_probe import probe_tree

    end = probe_tree(rootdir, ignored, git.environ, git.run, import_roots)
    commit = start.commit if start.source == "git" else None
    dirty = list(end.dirty_paths[:MAX_LISTED])
    paths = [_dirty_path(entry) for entry in dirty]
    try:  # files the tests create are ordinary; a committed file changed is not
        tracked = sorted(commit_blobs(rootdir, commit, paths, git.run, full_tree=True)) if (
            commit and paths) else []
    except (OSError, subprocess.SubprocessError):
        tracked = paths
    return {
        "test_sources": sources.facts(commit, git.run),
        "tree_at_end": {"start_clean": start.clean, "clean": end.clean,
                        "dirty_paths": dirty, "changed_committed": tracked,
                        "written_committed": _committed(rootdir, commit, written, git),
                        "unread": _unread_at_end(start, end, git, rootdir)},
    }


def _committed(rootdir: Path, commit: str | None, written: Iterable[str],
               git: GitView) -> list[str]:
    """The files under the rootdir among `written` that the commit holds (one `git ls-tree`,
    only when any was written); every one of them where git cannot say."""
    paths = sorted({shown for file in written if (shown := _shown(Path(file), rootdir))})
    if not paths:
        return []
    try:
        held = commit_blobs(rootdir, commit, paths, git.run) if commit else dict.fromkeys(paths)
    except (OSError, subprocess.SubprocessError):
        held = dict.fromkeys(paths)
    return sorted(held)[:MAX_LISTED]


def _dirty_path(entry: str) -> str:
    """The path of a dirty entry ("path (skip-worktree)": the path)."""
    return entry.split(" (", 1)[0]


def _unread_at_end(start: Any, end: Any, git: GitView, rootdir: Path) -> str | None:
    """Why the end probe says nothing about the tree the session started on: git could not
    answer (a tree that could not be read is not a clean one), HEAD moved (a commit made
    during the run leaves a clean tree against the new HEAD), or what git reads the tree with
    changed (its settings, or a `.gitattributes` written during the run)."""
    if start.source != "git" or start.clean is not True:
        return None  # no clean git start to hold the end to (the record says so already)
    if end.source != "git" or end.problem:
        return f"git could not read the tree at session end: {end.problem or 'no git'}"[:300]
    if end.commit != start.commit:
        return f"HEAD moved from {start.commit[:12]} to {str(end.commit)[:12]} during the session"
    attributes = [p for p in end.dirty_paths  # all of them, not the first MAX_LISTED
                  if PurePosixPath(_dirty_path(p)).name == ".gitattributes"]
    if attributes:
        return f"a .gitattributes was written during the session: {attributes[0]}"[:300]
    return settings_moved(git, rootdir, Path(end.git_dir.strip()) if end.git_dir else None)
