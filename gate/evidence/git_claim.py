"""The claim as committed at the head, read from git (`verify --head-sha`).

The tests run the agent's code with full power in the test job: a conftest can rewrite
`.claim.json` after the run, so the workspace file is the agent's last word, not the one
under review. The gate reads the claim's bytes from the commit (`git cat-file blob
SHA:PATH`, what `git show SHA:PATH` prints for a file, with no filter or textconv) and
the caller refuses a workspace file whose bytes differ. "Could not read" is never "no
claim": only a path the commit's tree lacks is absent.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from gate.claim.diff_facts import ChangeStatus
from gate.claim.errors import InvalidInput
from gate.claim.jsondoc import read_capped
from gate.claim.loader import LoadedClaim, parse_claim_bytes

if TYPE_CHECKING:
    from gate.evidence.git_diff import DiffRange
    from gate.evidence.git_tree import GitRunner

#: git's mode for a regular file (executable or not) in a tree.
_REGULAR_MODES = (b"100644", b"100755")


def _git(args: Sequence[str], directory: Path) -> bytes:
    """`git_probe.run_git`, imported on the first git read: a claim read from its file (no
    --head-sha) runs no git, and loads neither `subprocess` nor the diff reader (issue 23)."""
    from gate.evidence.git_probe import run_git

    return run_git(args, directory)


@dataclass(frozen=True)
class CommittedClaim:
    """Where the claim lives in the repository, and its bytes at the commit (None: absent)."""

    path: str
    commit: str
    data: bytes | None

    @property
    def label(self) -> str:
        return f"{self.path}@{self.commit[:12]}"


def path_in_repository(claim: Path, repo: Path, top: Path) -> str | None:
    """The claim's path as git names it in the working tree `top`, or None when it lies
    outside; a relative claim path is read against `repo`. The parent is resolved, not the
    file: a symlinked checkout path still names the file."""
    base = Path(os.path.realpath(repo / claim.parent)) / claim.name
    try:
        return base.relative_to(Path(os.path.realpath(top))).as_posix()
    except ValueError:
        return None


def _in_repository(repo: Path, claim: Path, run: GitRunner) -> tuple[Path, str]:
    from gate.evidence.git_diff import GitDiffError, toplevel

    try:
        top = toplevel(repo, run)
    except GitDiffError as exc:
        raise InvalidInput(str(repo), None, f"--repo is not a git working tree: {exc}",
                           "run the gate in a clone of the repository, or pass --repo DIR"
                           ) from None
    inside = path_in_repository(claim, repo, top)
    if inside is None:
        raise InvalidInput(str(claim), None, f"the claim is outside the repository {top}",
                           "name the claim file inside the clone given by --repo")
    return top, inside


def read_committed_claim(repo: Path, claim: Path, commit: str,
                         run: GitRunner = _git) -> CommittedClaim:
    """The claim's bytes at `commit`; InvalidInput if the commit is not in the clone or the
    path is not a regular file there."""
    import subprocess

    from gate.evidence.git_tree import ls_tree

    top, path = _in_repository(repo, claim, run)
    try:
        run(["cat-file", "-e", f"{commit}^{{commit}}"], top)
    except (OSError, subprocess.SubprocessError):
        raise InvalidInput(
            commit, None, f"--head-sha names no commit in {top}",
            "check out (or fetch) the commit under review in the gate's clone",
        ) from None
    try:
        entry = ls_tree(run, top, commit, [path], full_tree=True).get(path)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InvalidInput(str(top), None, f"git ls-tree failed: {exc}") from None
    if entry is None:
        return CommittedClaim(path, commit, None)
    mode = entry.mode.encode("ascii")
    if mode not in _REGULAR_MODES:
        raise InvalidInput(f"{path}@{commit[:12]}", None,
                           f"the claim is not a regular file in the commit (mode {mode!r})",
                           "commit the claim as a plain file")
    try:
        data = run(["cat-file", "blob", f"{commit}:{path}"], top)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InvalidInput(f"{path}@{commit[:12]}", None, f"git cannot read it: {exc}") from None
    return CommittedClaim(path, commit, data)


def _as_checked_out(workspace: bytes, committed: CommittedClaim, repo: Path,
                    run: GitRunner) -> bool:
    """Whether the workspace file is the committed blob, or the blob as git checks it out here
    (`git cat-file --filters`: `.gitattributes` eol and filters, `core.autocrlf`). An honest
    Windows checkout of a CRLF repository is the same claim."""
    import subprocess

    from gate.evidence.git_diff import GitDiffError, toplevel

    if committed.data is None:
        return False
    if workspace == committed.data:
        return True
    try:
        top = toplevel(repo, run)
        converted = run(["cat-file", "--filters", f"{committed.commit}:{committed.path}"], top)
    except (GitDiffError, OSError, subprocess.SubprocessError):
        return False  # the refusal below says what differs
    return workspace == converted


def _refuse_workspace(claim: Path, workspace: bytes, committed: CommittedClaim) -> NoReturn:
    if committed.data is None:
        why = f"is not in {committed.label}: the gate reads the claim as committed"
    elif _line_endings(workspace) == _line_endings(committed.data):
        raise InvalidInput(
            str(claim), None,
            f"the claim in the workspace differs from the one committed in {committed.label}"
            " only in its line endings, and not as this clone's git converts it on checkout:"
            " a conversion (core.autocrlf, .gitattributes eol), not a change after the commit",
            "run the gate in a checkout with the repository's own line-ending settings, or"
            " commit the claim with the line endings the checkout gives it",
        )
    else:
        why = (f"differs from the one committed in {committed.label}: the gate reads the"
               " claim as committed, and something changed this file after the commit (the"
               " tests run the change's own code)")
    raise InvalidInput(str(claim), None, f"the claim in the workspace {why}",
                       "run the gate from a fresh checkout of the head commit, with only the"
                       " test job's artifacts")


def _line_endings(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def _workspace_bytes(claim: Path, max_bytes: int) -> bytes | None:
    if not claim.exists() and not claim.is_symlink():
        return None
    return read_capped(claim, max_bytes, "claim")


def _holding_repository(claim: Path, run: GitRunner) -> Path | None:
    """The working tree the claim's directory is in; None only when git says it is in none.

    Any other failure (git missing, a timeout, git refusing a repository it does not trust)
    is invalid input: falling back to the workspace file would read the very copy the
    agent's tests could have rewritten."""
    from gate.evidence.git_diff import GitDiffError, toplevel

    directory = claim.parent
    while not directory.is_dir() and directory != directory.parent:
        directory = directory.parent
    try:
        return toplevel(directory, run)
    except GitDiffError as exc:
        if "not a git repository" in str(exc):
            return None
        raise InvalidInput(str(claim), None,
                           f"git cannot say which repository holds the claim: {exc}",
                           "fix git in the gate's job, or name the clone with --repo DIR"
                           ) from None


def load_claim_at(claim: Path, max_bytes: int, head_sha: str | None,
                  repo: Path | None = None, run: GitRunner = _git) -> LoadedClaim | None:
    """The claim under review, or None when there is none.

    Without a head commit: the workspace file. With one: the file as committed at that
    commit in `repo` (default: the working tree holding the claim), and a workspace file
    whose bytes differ is refused (InvalidInput naming both): the tests ran the agent's
    code, which may have rewritten it after the run. A claim in no working tree (and no
    `repo` named) was committed nowhere the gate can see: it is read as a file."""
    workspace = _workspace_bytes(claim, max_bytes)
    located = claim
    if repo is None and head_sha is not None:
        repo = _holding_repository(claim, run)
        located = Path.cwd() / claim  # a relative path is the current directory's
    if head_sha is None or repo is None:
        return None if workspace is None else parse_claim_bytes(workspace, str(claim))
    committed = read_committed_claim(repo, located, head_sha, run)
    if committed.data is not None and len(committed.data) > max_bytes:
        raise InvalidInput(committed.label, None,
                           f"the claim is over the {max_bytes}-byte limit",
                           "shrink it, or raise the limit on purpose")
    if workspace is not None and not _as_checked_out(workspace, committed, repo, run):
        _refuse_workspace(claim, workspace, committed)
    if committed.data is None:
        return None
    # Named as the operator named it: the bytes are the commit's, and equal the file's.
    return parse_claim_bytes(committed.data, str(claim))


def written_by_change(repo: Path, claim: Path, base: str, head: str,
                      run: GitRunner = _git, resolved: DiffRange | None = None) -> bool:
    """Whether the change `BASE...HEAD` adds or modifies the claim file (a rename or copy's
    new path counts; a deletion does not). A claim the change does not write is the base
    branch's, inherited: it says nothing about this change (the Action's rule, too).
    `resolved`: the range the caller already resolved, used when it is of the claim's
    repository."""
    from gate.evidence.git_diff import GitDiffError, changed_in, resolve_range

    top, path = _in_repository(repo, claim, run)
    try:
        if resolved is None or resolved.toplevel.resolve() != top.resolve():
            resolved = resolve_range(top, base, head, run)
        changes = changed_in(resolved, run)
    except GitDiffError as exc:
        raise InvalidInput(f"--diff-base {base}", None, str(exc)) from None
    return any(c.path == path and c.status is not ChangeStatus.DELETED for c in changes)
