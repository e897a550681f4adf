"""Ask git which commit a directory is on and whether its working tree matches it.

The runner is a parameter so tests can make git fail in ways that are hard to provoke; the
default one runs the real `git`. Nothing here raises: a missing git, a directory outside any
repository or a repository without commits all end as a `TreeState` that says the commit
is unknown (or comes from the CI's variable), because a test session must never fail for it.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gate.claim.commit import normalise_sha
from gate.evidence.git_tree import GitRunner
from gate.evidence.under_root import relative_under

if TYPE_CHECKING:
    from gate.evidence.pytest_record import TreeState

GIT_TIMEOUT_S = 30


def git_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment every `git` the gate runs gets (the one place it is made).

    No optional locks: `git status` must not take index.lock from under a concurrent git. No
    replace objects: a clone that fetched `refs/replace/*` (the agent can push them) would
    otherwise read a look-alike commit, tree or blob in place of the one named. Grafts are
    refused where history is read (`git_diff.resolve_range`)."""
    return {**environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_NO_REPLACE_OBJECTS": "1"}


def _run_in(environment: Mapping[str, str], args: Sequence[str], directory: Path) -> bytes:
    completed = subprocess.run(
        ["git", *args], cwd=directory, env=environment, capture_output=True, check=True,
        timeout=GIT_TIMEOUT_S,
    )
    return completed.stdout


def run_git(args: Sequence[str], directory: Path) -> bytes:
    """`git ARGS` with the process's environment as it is now (the gate's own reads)."""
    return _run_in(git_environment(os.environ), args, directory)


def git_runner(environ: Mapping[str, str]) -> GitRunner:
    """A runner whose every `git` gets this environment, copied now: later changes to the
    mapping passed in do not reach it (the plugin's git, held to its load: `git_settings`)."""
    fixed = git_environment(dict(environ))
    return lambda args, directory: _run_in(fixed, args, directory)


def _why(exc: Exception) -> str:
    if isinstance(exc, FileNotFoundError):
        return "git is not installed"
    if isinstance(exc, subprocess.CalledProcessError):
        text = (exc.stderr or b"").decode("utf-8", "replace").strip().splitlines()
        return f"git failed: {text[0] if text else f'exit {exc.returncode}'}"
    if isinstance(exc, subprocess.TimeoutExpired):
        return f"git did not answer within {GIT_TIMEOUT_S}s"
    return f"git could not run: {exc}"


def _relative(paths: Iterable[Path], toplevel: Path) -> tuple[str, ...]:
    # A path outside the repository is left out: git cannot list it.
    return tuple(name for path in paths if (name := relative_under(path, toplevel)) is not None)


def probe_tree(
    directory: Path,
    ignored: Iterable[Path],
    environ: Mapping[str, str],
    run: GitRunner = run_git,
    import_roots: Iterable[Path] = (),
) -> TreeState:
    """The commit under `directory` and whether the tree is clean, ignoring `ignored` files.

    Clean also means nothing `git status` is told to overlook (`git_hidden`): submodules,
    index flags, and ignored files under `import_roots` or the rootdir's top level."""
    # Imported here: every git read needs `run_git`, only the plugin's record needs these.
    from gate.evidence.git_hidden import hidden_changes
    from gate.evidence.pytest_record import TreeState, commit_from_environment, dirty_paths

    try:  # the git directory too, in the same git: the end's settings check reads it
        lines = run(["rev-parse", "--absolute-git-dir", "--show-toplevel", "HEAD"],
                    directory).decode().splitlines()
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
        fallback = commit_from_environment(environ)
        if fallback.commit is None:
            return TreeState(None, None, None, problem=f"{_why(exc)}; no CI commit variable set")
        return fallback
    sha = normalise_sha(lines[2]) if len(lines) == 3 else None
    if sha is None:
        return TreeState(None, None, None, problem=f"unexpected git rev-parse output {lines!r}")
    git_dir, toplevel = lines[0], Path(lines[1])
    try:
        status = run(
            ["status", "--porcelain", "-z", "--untracked-files=all", "--ignore-submodules=none"],
            toplevel,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        # Known commit, unknown tree: fail closed, the record must not pass for clean.
        return TreeState(sha, "git", False, problem=f"git status: {_why(exc)}", git_dir=git_dir)
    dirty = dirty_paths(status, _relative(ignored, toplevel))
    try:
        hidden = hidden_changes(toplevel, directory, import_roots, run)
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
        return TreeState(sha, "git", False, dirty, problem=f"git (hidden changes): {_why(exc)}",
                         git_dir=git_dir)
    skip = set(_relative(ignored, toplevel))
    dirty += tuple(entry for entry in hidden if entry.split(" (", 1)[0] not in skip)
    return TreeState(sha, "git", not dirty, dirty, git_dir=git_dir)
