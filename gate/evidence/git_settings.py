"""git as the session found it when the plugin loaded: the environment its `git` runs with,
and what decides how git reads the working tree.

The plugin asks git at session end whether the tree and the test modules are still the
commit's (`git status`, `git hash-object` with the repository's filters). Both answers come from
git's configuration and environment, which the tests can change while they run: a clean filter
added to `.git/config` (or `~/.gitconfig`, an included file, `.git/info/attributes`) can hand git
the commit's bytes for a rewritten module; `core.trustctime=false` lets `git status` trust a
restored mtime; `GIT_DIR`, `GIT_INDEX_FILE` or `HOME` set in `os.environ` point git at another
repository, index or configuration. So every git the plugin runs gets the environment taken at
load (before conftests run), and the settings are read at load and again at the end: settings
that changed, or could not be read at the end, mean the end's answers are not the commit's.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from gate.evidence.git_probe import git_runner
from gate.evidence.git_tree import GitRunner

#: Each settings file is read up to this many bytes (a larger one is hashed that far and said).
MAX_SETTINGS_FILE = 1 << 20

#: Configuration sections that do not change how git reads the working tree, the index or
#: the objects (`status`, `hash-object`, `ls-tree`): honest tests set these (a fixture that
#: runs `git config --global user.email`, a CI image adding `safe.directory`). Every other
#: section counts: a denylist, so a key nobody thought of is judged, not overlooked.
UNRELATED_SECTIONS = frozenset({
    "advice", "alias", "author", "blame", "branch", "color", "column", "commit", "committer",
    "credential", "fetch", "format", "gpg", "help", "http", "init", "log", "maintenance",
    "pager", "protocol", "pull", "push", "rebase", "receive", "remote", "safe", "sendemail",
    "tag", "transfer", "uploadpack", "url", "user",
})
#: Keys of sections that otherwise count, with no say in how git reads the tree either.
UNRELATED_KEYS = frozenset({
    "core.abbrev", "core.askpass", "core.commentchar", "core.commentstring", "core.editor",
    "core.hookspath", "core.logallrefupdates", "core.pager", "core.quotepath",
    "core.sshcommand", "core.whitespace",
})


@dataclass(frozen=True)
class GitView:
    """The runner taken at load and the settings git read the tree with then (`settings`:
    a digest; None, with `problem`, when git could not say)."""

    run: GitRunner
    environ: Mapping[str, str]
    settings: str | None
    problem: str | None = None


def git_view(rootdir: Path, environ: Mapping[str, str]) -> GitView:
    """git as it stands now under `rootdir`, with `environ` as the environment from now on."""
    fixed = dict(environ)
    run = git_runner(fixed)
    settings, problem = read_settings(rootdir, run, fixed)
    return GitView(run, fixed, settings, problem)


def read_settings(
    rootdir: Path, run: GitRunner, environ: Mapping[str, str], git_dir: Path | None = None
) -> tuple[str | None, str | None]:
    """A digest of every configuration entry git applies here with the file it came from
    (includes followed; sections in `UNRELATED_SECTIONS` left out), and of the attributes
    files outside the tree (`info/attributes`,
    `core.attributesFile` or its default); or None and why git could not say. `git_dir`:
    the git directory a git just run under `rootdir` with the same runner named (the end's
    tree probe), so git is not asked for it again."""
    try:
        listing = run(["config", "--list", "--show-origin", "-z"], rootdir)
        if git_dir is None:
            git_dir = Path(run(["rev-parse", "--absolute-git-dir"], rootdir).decode().strip())
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError) as exc:
        return None, f"git could not list its settings: {exc}"[:300]
    digest = hashlib.sha256(b"".join(_related(listing)))
    for path in (git_dir / "info" / "attributes", _global_attributes(listing, environ)):
        digest.update(b"\0" + os.fsencode(str(path)) + b"\0" + _bytes_of(path))
    return digest.hexdigest(), None


def _related(listing: bytes) -> list[bytes]:
    """The `origin NUL key LF value NUL` entries of `config --list --show-origin -z` whose
    section can change how git reads the tree, each kept whole."""
    parts = listing.split(b"\0")
    kept = []
    for origin, entry in zip(parts[0::2], parts[1::2], strict=False):
        key = entry.partition(b"\n")[0].decode("utf-8", "replace").lower()
        if key.partition(".")[0] not in UNRELATED_SECTIONS and key not in UNRELATED_KEYS:
            kept.append(origin + b"\0" + entry + b"\0")
    return kept


def _global_attributes(listing: bytes, environ: Mapping[str, str]) -> Path:
    """The user's attributes file: `core.attributesFile` (the last one set), else git's
    default under `$XDG_CONFIG_HOME` or `~/.config`."""
    named = None
    for entry in listing.split(b"\0"):
        key, _, value = entry.partition(b"\n")
        if key.lower() == b"core.attributesfile":
            named = os.fsdecode(value)
    if named:
        return Path(environ.get("HOME", "~"), named[2:]) if named.startswith("~/") \
            else Path(named)
    base = environ.get("XDG_CONFIG_HOME") or str(Path(environ.get("HOME", "~")) / ".config")
    return Path(base) / "git" / "attributes"


def _bytes_of(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return b"present\0" + handle.read(MAX_SETTINGS_FILE)
    except FileNotFoundError:
        return b"absent"
    except OSError as exc:
        return f"unreadable: {exc.strerror}".encode()


def settings_moved(view: GitView, rootdir: Path, git_dir: Path | None = None) -> str | None:
    """Why git's answers at the end are not the ones it would have given at load: the settings
    it reads the tree with changed during the session, or could not be read (None: same).
    `git_dir`: the one the end's tree probe read (`read_settings`)."""
    if view.settings is None:
        return f"git's settings could not be read when the plugin loaded: {view.problem}"
    now, problem = read_settings(rootdir, view.run, view.environ, git_dir)
    if now is None:
        return f"git's settings could not be read at session end: {problem}"
    if now != view.settings:
        return ("git's configuration or attributes changed during the session (a filter,"
                " end-of-line or stat setting decides what git reads as the commit's)")
    return None
