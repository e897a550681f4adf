"""What `git status` leaves out of a clean tree, though the tests import it.

Three blind spots a plain `git status --porcelain` has, each of which lets a session test
code the commit does not hold while the record says "clean":

* submodules: `.gitmodules` (`ignore = all`) or `diff.ignoreSubmodules` hide a submodule
  checked out at another commit or edited in place. We walk the gitlinks of the index
  (mode 160000) whatever `.gitmodules` says, and ask each checkout its HEAD and status.
* files git was told not to look at: `assume-unchanged` and `skip-worktree` index flags.
* ignored files where Python imports from: a `.gitignore`d module inside a package under
  test, or beside the rootdir's top-level modules, is imported and never committed.

Caches that only mirror committed sources (`__pycache__`, `.pytest_cache`, ...) and the
session's own outputs are not counted.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

from gate.evidence.git_tree import GitRunner
from gate.evidence.under_root import relative_under

GITLINK_MODE = b"160000"
#: Directories of derived files that a clean checkout grows by running its tests.
CACHE_PARTS = frozenset({
    "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox",
    ".nox", ".venv", "venv", ".eggs",
})
MAX_HIDDEN = 50


def import_roots(rootdir: Path, test_paths: Iterable[str]) -> tuple[Path, ...]:
    """The directories tests import from: packages at the rootdir and in `src/`, the test
    paths given (the rootdir itself stands for its top-level modules, not everything)."""
    roots: dict[Path, None] = {}
    for base in (rootdir, rootdir / "src"):
        try:
            children = sorted(base.iterdir()) if base.is_dir() else []
        except OSError:
            children = []
        roots.update(
            (child, None) for child in children
            if child.is_dir() and (child / "__init__.py").is_file()
            and child.name not in CACHE_PARTS
        )
    for text in test_paths:
        path = Path(text.split("::", 1)[0])
        path = path if path.is_absolute() else rootdir / path
        if path.resolve() != rootdir.resolve() and path.exists():
            roots[path] = None
    return tuple(roots)


def _derived(path: str) -> bool:
    parts = path.rstrip("/").split("/")
    return any(part in CACHE_PARTS or part.endswith(".egg-info") for part in parts)


def _pathspecs(toplevel: Path, rootdir: Path, roots: Iterable[Path]) -> list[str]:
    specs: list[str] = []
    base = relative_under(rootdir, toplevel)
    if base is None:
        return specs
    prefix = "" if base == "." else f"{base}/"
    specs.append(f":(glob){prefix}*.py")  # the rootdir's top-level modules
    specs.append(f":(glob){prefix}*.pth")
    # A root outside the repository is left out: nothing git can say.
    specs.extend(name for root in roots if (name := relative_under(root, toplevel)) is not None)
    return specs


def _entries(output: bytes) -> list[bytes]:
    return [entry for entry in output.split(b"\0") if entry]


def ignored_in(toplevel: Path, rootdir: Path, roots: Iterable[Path], run: GitRunner) -> list[str]:
    """Ignored files under the import roots (caches left out)."""
    specs = _pathspecs(toplevel, rootdir, roots)
    if not specs:
        return []
    output = run(
        ["status", "--porcelain", "-z", "--untracked-files=all", "--ignored=traditional",
         "--ignore-submodules=all", "--", *specs],
        toplevel,
    )
    found = []
    for entry in _entries(output):
        if entry.startswith(b"!! "):
            path = entry[3:].decode("utf-8", "surrogateescape")
            if not _derived(path):
                found.append(f"{path} (ignored by git, importable)")
    return found


def index_entries(toplevel: Path, run: GitRunner) -> list[bytes]:
    """The index, read once for both checks below: `TAG MODE OBJECT STAGE\tPATH` per entry
    (`git ls-files -v -s`: the tag says the index flags, the mode a gitlink)."""
    return _entries(run(["ls-files", "-v", "-s", "-z"], toplevel))


def hidden_flags(toplevel: Path, entries: Iterable[bytes]) -> list[str]:
    """Tracked files git was told not to compare (`assume-unchanged`, `skip-worktree`)."""
    found = []
    for entry in entries:
        tag = entry[:1]
        path = entry.partition(b"\t")[2].decode("utf-8", "surrogateescape")
        if tag.islower():
            found.append(f"{path} (marked assume-unchanged)")
        elif tag == b"S" and (toplevel / path).exists():
            found.append(f"{path} (marked skip-worktree but present)")
    return found


def submodule_changes(toplevel: Path, entries: Iterable[bytes], run: GitRunner) -> list[str]:
    """Gitlinks whose checkout is at another commit or has changes, whatever `.gitmodules`
    says; a submodule that is not checked out holds no code to test and is left alone."""
    found = []
    for entry in entries:
        meta, _, raw_path = entry.partition(b"\t")
        fields = meta.split()[1:]  # the tag, then MODE OBJECT STAGE
        if len(fields) < 2 or fields[0] != GITLINK_MODE:
            continue
        path = raw_path.decode("utf-8", "surrogateescape")
        checkout = toplevel / path
        if not (checkout / ".git").exists():
            continue
        try:
            head = run(["rev-parse", "HEAD"], checkout).decode().strip()
            status = run(
                ["status", "--porcelain", "-z", "--untracked-files=all",
                 "--ignore-submodules=none"], checkout,
            )
        except subprocess.CalledProcessError:
            found.append(f"{path} (a submodule git cannot read)")
            continue
        recorded = fields[1].decode()
        if head != recorded:
            found.append(f"{path} (submodule at {head[:12]}, the commit records {recorded[:12]})")
        if _entries(status):
            found.append(f"{path} (submodule with uncommitted changes)")
    return found


def hidden_changes(
    toplevel: Path, rootdir: Path, roots: Iterable[Path], run: GitRunner
) -> tuple[str, ...]:
    """Everything above, capped; raises OSError/SubprocessError when git cannot answer."""
    entries = index_entries(toplevel, run)
    found = [
        *submodule_changes(toplevel, entries, run),
        *hidden_flags(toplevel, entries),
        *ignored_in(toplevel, rootdir, roots, run),
    ]
    return tuple(found[:MAX_HIDDEN])
