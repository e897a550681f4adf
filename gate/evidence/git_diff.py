"""Which files a branch changed, from git: `git diff --name-status -z -M BASE...HEAD`.

The same record a PR's file list gives on GitHub, read from a local clone, so that any CI
(and an agent writing its claim) can see it. A collector with typed values and typed
errors: it never guesses. An unknown base, a clone too shallow to find the merge base, or
a git that cannot answer each raise a `GitDiffError` subclass instead of returning a
shorter list, because "could not read" is never "nothing changed".

File names are taken from NUL-separated output (no quoting, any byte but NUL and `/` in a
name); bytes that are not UTF-8 are kept with `surrogateescape`, so a caller can name them
in an error but never mistake them for another file.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.claim.timefmt import TimestampError, parse_rfc3339
from gate.evidence.git_probe import run_git
from gate.evidence.git_tree import GitRunner


class GitDiffError(Exception):
    """The diff could not be read; the message says why and what to do."""


class UnknownBase(GitDiffError):  # noqa: N818 - named for what happened, like the others
    """The base (or head) names no commit here, or the two share no history."""


class ShallowClone(GitDiffError):  # noqa: N818
    """A shallow clone can lack the merge base, and then any diff would be a guess."""


class GitUnavailable(GitDiffError):  # noqa: N818
    """git is missing, failed, or the directory is not inside a repository."""


class RewrittenHistory(GitDiffError):  # noqa: N818
    """The clone rewrites its history locally (grafts): parents are not the commits' own."""


def _why(exc: Exception) -> str:
    if isinstance(exc, FileNotFoundError):
        return "git is not installed"
    if isinstance(exc, subprocess.CalledProcessError):
        lines = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return lines[0] if lines else f"git exited {exc.returncode}"
    if isinstance(exc, subprocess.TimeoutExpired):
        return "git did not answer in time"
    return str(exc)


def _git(run: GitRunner, args: Sequence[str], directory: Path) -> bytes:
    try:
        return run(args, directory)
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitUnavailable(f"git {args[0]} failed in {directory}: {_why(exc)}") from None


def toplevel(repo: Path, run: GitRunner = run_git) -> Path:
    """The top of the working tree that holds `repo`; paths in a diff are relative to it."""
    try:
        out = run(["rev-parse", "--show-toplevel"], repo)
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitUnavailable(f"{repo} is not inside a git working tree: {_why(exc)}") from None
    return Path(out.decode("utf-8", "surrogateescape").rstrip("\n"))


def _commit(run: GitRunner, top: Path, ref: str, what: str) -> str:
    try:
        out = run(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
                  top)
    except (OSError, subprocess.SubprocessError):
        raise UnknownBase(
            f"the {what} {ref!r} names no commit in {top}; fetch it (git fetch origin) or pass"
            " a branch, tag or commit id that exists here"
        ) from None
    return out.decode("ascii").strip()


def _refuse_shallow(run: GitRunner, top: Path) -> None:
    shallow = _git(run, ["rev-parse", "--is-shallow-repository"], top).strip()
    if shallow == b"true":
        raise ShallowClone(
            f"{top} is a shallow clone, so the merge base may be missing and the list of"
            " changed files would be a guess; fetch the history (git fetch --unshallow, or"
            " actions/checkout with fetch-depth: 0)"
        )


def _refuse_grafts(run: GitRunner, top: Path) -> None:
    """A grafts file gives commits other parents than they have: the merge base, and with
    it the list of changed files, would be whatever the file says."""
    grafts = Path(_decode(_git(run, ["rev-parse", "--git-path", "info/grafts"], top)).strip())
    if (top / grafts).exists():
        raise RewrittenHistory(
            f"{top} has a grafts file ({grafts}), which rewrites which commits are whose"
            " parents, so the merge base and the changed files would be its say; delete it"
            " or run the gate in a fresh clone"
        )


@dataclass(frozen=True)
class DiffRange:
    """The resolved range: the merge base of BASE and HEAD, and HEAD, as commit ids."""

    toplevel: Path
    merge_base: str
    head: str
    base: str = ""  # BASE itself, resolved to its commit (its tip when BASE is a branch)


def resolve_range(repo: Path, base: str, head: str = "HEAD",
                  run: GitRunner = run_git) -> DiffRange:
    """What `BASE...HEAD` means here, or a typed error saying why it means nothing."""
    top = toplevel(repo, run)
    _refuse_shallow(run, top)
    _refuse_grafts(run, top)
    base_sha = _commit(run, top, base, "base")
    head_sha = _commit(run, top, head, "head")
    try:
        merge_base = run(["merge-base", base_sha, head_sha], top).decode("ascii").strip()
    except subprocess.CalledProcessError:
        raise UnknownBase(
            f"{base!r} and {head!r} share no history in {top}, so nothing says which files"
            " the branch changed; pass the branch it started from as the base"
        ) from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitUnavailable(f"git merge-base failed in {top}: {_why(exc)}") from None
    return DiffRange(top, merge_base, head_sha, base_sha)


def contains_base(resolved: DiffRange, run: GitRunner = run_git) -> tuple[bool, bool]:
    """Whether HEAD has BASE's commit among its ancestors (`merge-base --is-ancestor`), and
    whether HEAD is a merge with BASE's commit as a parent (a merged-result pipeline's commit,
    or GitHub's `refs/pull/N/merge`)."""
    try:
        run(["merge-base", "--is-ancestor", resolved.base, resolved.head], resolved.toplevel)
    except subprocess.CalledProcessError as exc:
        if exc.returncode != 1:
            raise GitUnavailable(
                f"git merge-base --is-ancestor failed in {resolved.toplevel}: {_why(exc)}"
            ) from None
        return False, False
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitUnavailable(f"git merge-base failed in {resolved.toplevel}: {_why(exc)}") from None
    parents = _decode(_git(run, ["rev-list", "--parents", "-n", "1", resolved.head],
                           resolved.toplevel)).split()[1:]
    return True, len(parents) > 1 and resolved.base in parents


def _diff_args(merge_base: str, head: str) -> list[str]:
    # Options that make the output independent of the user's config: no relative paths,
    # no external diff, renames found by content, NUL-terminated names.
    # Submodules whatever `.gitmodules` or the config says (`ignore = all` would hide a bump).
    return ["diff", "--name-status", "-z", "-M", "--no-relative", "--no-ext-diff",
            "--no-color", "--ignore-submodules=none", merge_base, head, "--"]


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def parse_name_status(output: bytes) -> list[ChangedPath]:
    """Parse `git diff --name-status -z` output; GitDiffError on anything unexpected."""
    tokens = output.split(b"\0")
    if tokens and tokens[-1] == b"":
        tokens.pop()
    changes: list[ChangedPath] = []
    index = 0
    while index < len(tokens):
        field = tokens[index].decode("ascii", "replace")
        letter = field[:1]
        try:
            status = ChangeStatus(letter)
        except ValueError:
            raise GitDiffError(f"unexpected status {field!r} in git diff output") from None
        two = status in (ChangeStatus.RENAMED, ChangeStatus.COPIED)
        needed = 3 if two else 2
        if index + needed > len(tokens) or not all(tokens[index + 1:index + needed]):
            raise GitDiffError(f"truncated git diff output after status {field!r}")
        if two:
            old, new = tokens[index + 1], tokens[index + 2]
            changes.append(ChangedPath(status, _decode(new), _decode(old)))
        else:
            changes.append(ChangedPath(status, _decode(tokens[index + 1])))
        index += needed
    return changes


def changed_files(repo: Path, base: str, head: str = "HEAD",
                  run: GitRunner = run_git) -> list[ChangedPath]:
    """Files changed on HEAD's side since it forked from BASE (`git diff BASE...HEAD`)."""
    resolved = resolve_range(repo, base, head, run)
    return changed_in(resolved, run)


def changed_in(resolved: DiffRange, run: GitRunner = run_git) -> list[ChangedPath]:
    output = _git(run, _diff_args(resolved.merge_base, resolved.head), resolved.toplevel)
    return parse_name_status(output)


_HEADER = re.compile(r"^(?P<sha>[0-9a-f]{40}|[0-9a-f]{64}) (?P<date>\S+)$")


def parse_commit_times(output: bytes) -> dict[str, datetime]:
    """Parse `git log -z --format=%x00%H %cI --name-only`: for each path, the latest committer
    date among the commits that touched it. A record starts after an empty token (a name
    can never be empty); the first name after a header carries git's separating newline."""
    latest: dict[str, datetime] = {}
    tokens = output.split(b"\0")
    index = 0
    while index < len(tokens):
        if tokens[index] != b"":
            raise GitDiffError("unexpected git log output: a record does not start with NUL")
        if index + 1 >= len(tokens):
            break
        header = _HEADER.match(tokens[index + 1].decode("ascii", "replace"))
        if header is None:
            raise GitDiffError(f"unexpected git log header {tokens[index + 1][:80]!r}")
        try:
            when = parse_rfc3339(header["date"])
        except TimestampError as exc:
            raise GitDiffError(f"git log gave a date that is not RFC 3339: {exc}") from None
        index += 2
        first = True
        while index < len(tokens) and tokens[index] != b"":
            name = tokens[index]
            if first:
                name = name.removeprefix(b"\n")
                first = False
            path = _decode(name)
            if path not in latest or when > latest[path]:
                latest[path] = when
            index += 1
    return latest


def commit_times(resolved: DiffRange, run: GitRunner = run_git) -> dict[str, datetime]:
    """For each path touched between the merge base and HEAD, the latest committer date of a
    commit touching it (merges count by their change against the first parent). The
    latest, not the newest in log order: committer dates need not follow the graph."""
    output = _git(run, [
        "log", "-z", "--format=%x00%H %cI", "--name-only", "--no-renames", "--no-relative",
        "--diff-merges=first-parent", "--no-color", f"{resolved.merge_base}..{resolved.head}",
        "--",
    ], resolved.toplevel)
    return parse_commit_times(output)


def head_time(resolved: DiffRange, run: GitRunner = run_git) -> datetime:
    """The committer date of HEAD."""
    out = _git(run, ["show", "-s", "--format=%cI", resolved.head], resolved.toplevel)
    try:
        return parse_rfc3339(out.decode("ascii").strip())
    except (TimestampError, UnicodeDecodeError) as exc:
        raise GitDiffError(f"git gave HEAD's date in an unexpected form: {exc}") from None


def default_base(repo: Path, run: GitRunner = run_git) -> str | None:
    """The remote's default branch (`origin/HEAD`, else the only remote's HEAD), if known."""
    top = toplevel(repo, run)
    remotes = _decode(_git(run, ["remote"], top)).split()
    candidates: Iterable[str] = ["origin"] if "origin" in remotes else remotes[:1] if len(
        remotes) == 1 else []
    for remote in candidates:
        try:
            out = run(["symbolic-ref", "--quiet", "--short", f"refs/remotes/{remote}/HEAD"], top)
        except (OSError, subprocess.SubprocessError):
            continue
        name = _decode(out).strip()
        if name:
            return name
    return None
