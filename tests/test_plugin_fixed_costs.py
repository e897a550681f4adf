"""The active plugin's once-per-session work made cheaper, where the cheaper path could see
something else than the old one: the distributions the preload scan reads, a module's real
path, the RECORD lookup, the index read once for two checks, the base-code plan looked for
before git is asked, and test modules whose checkout is not their blob byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from gate.claim.fail_to_pass import MARKER_PATH
from gate.evidence.content_origin import (
    INSTALLED,
    MODIFIED,
    UNLISTED,
    RecordIndex,
    listed_hashes,
    listed_under,
    record_hash,
)
from gate.evidence.git_hidden import hidden_changes
from gate.evidence.git_probe import probe_tree, run_git
from gate.evidence.git_settings import GitView, git_view
from gate.evidence.plugin_preload import Locator, loaded_distributions, preloaded
from gate.evidence.plugin_session import base_code_properties
from gate.evidence.pytest_record import TreeState
from gate.evidence.test_sources import SourceWatch, end_facts
from tests.gitrepo import commit_all, git, init_repo

PYTEST11 = SimpleNamespace(group="pytest11", name="greenwash", value="greenwash")


def _distribution(path: Path) -> SimpleNamespace:
    return SimpleNamespace(_path=path, entry_points=[PYTEST11])


class _Manager:
    """What `loaded_distributions` reads of pluggy's plugin manager."""

    def __init__(self, loaded: list[tuple[object, object]]) -> None:
        self._loaded = loaded

    def list_plugin_distinfo(self) -> list[tuple[object, object]]:
        return self._loaded


def test_the_preload_scan_reads_the_distributions_pytest_loaded(tmp_path: Path) -> None:
    """pluggy wraps each loaded distribution (`DistFacade`): unwrapped, once each, and a
    committed dist-info whose entry point pytest loaded is still named."""
    root = tmp_path.resolve()
    committed = _distribution(root / "greenwash-1.0.dist-info")
    facade = SimpleNamespace(_dist=committed)
    manager = _Manager([(object(), facade), (object(), facade)])
    assert loaded_distributions(manager) == [committed]
    found = preloaded(root, {}, loaded_distributions(manager))
    assert [e["file"] for e in found] == ["greenwash-1.0.dist-info"]
    # A distribution pytest did not load (its entry point name was taken or blocked) ran
    # nothing: it is not among those read.
    assert preloaded(root, {}, loaded_distributions(_Manager([]))) == []


def test_a_committed_entry_point_pytest_loaded_is_in_its_plugin_list(tmp_path: Path) -> None:
    """The real plugin manager after pytest loaded a committed dist-info's pytest11 entry
    point (the module at the root, `python -m pytest` style): the scan's input names it."""
    (tmp_path / "greenwash.py").write_text("X = 1\n")
    info = tmp_path / "greenwash-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: greenwash\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pytest11]\ngreenwash = greenwash\n")
    script = (
        "import sys\nfrom _pytest.config import _prepareconfig\n"
        "from gate.evidence.plugin_preload import loaded_distributions, preloaded\n"
        "config = _prepareconfig(['-p', 'no:cacheprovider'])\n"
        "found = preloaded(config.rootpath, sys.modules,"
        " loaded_distributions(config.pluginmanager))\n"
        "print([e['file'] for e in found])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, check=True).stdout
    assert "greenwash-1.0.dist-info" in out, out


def test_a_module_file_linked_into_the_installed_dirs_is_still_the_repositorys(
        tmp_path: Path) -> None:
    """The directory is resolved once and reused; a file that is itself a link is resolved
    on its own, so a link from site-packages into the checkout is not taken for installed."""
    root = (tmp_path / "repo").resolve()
    (root / "pytest").mkdir(parents=True)
    (root / "pytest" / "__init__.py").write_text("")
    site = tmp_path / "site"
    (site / "_pytest").mkdir(parents=True)
    (site / "_pytest" / "runner.py").symlink_to(root / "pytest" / "__init__.py")
    (site / "_pytest" / "main.py").write_text("")
    locator = Locator(root, [])
    assert locator.repository_path(site / "_pytest" / "main.py") is None
    assert locator.repository_path(site / "_pytest" / "runner.py") == "pytest/__init__.py"
    assert locator.repository_path(site / "_pytest" / "main.py") is None


def test_the_record_lookup_finds_every_line_of_the_path_and_only_that_path() -> None:
    records = "\n" + "\n".join([
        "a.py,sha256=first,1", "pkg/a.py,sha256=nested,1", "b.py,,",
        "a.py,sha256=second,1\r", "a.pyc,sha256=other,1",
    ])
    assert listed_hashes(records, "a.py") == ["first", "second"]
    assert listed_hashes(records, "b.py") == [""]
    assert listed_hashes(records, "pkg/a.py") == ["nested"]
    assert listed_hashes(records, "c.py") == []


def test_a_file_two_records_list_is_installed_by_either_and_hashed_once(tmp_path: Path) -> None:
    site = tmp_path.resolve()
    (site / "mod.py").write_bytes(b"x = 1\n")
    for name, data in (("one-1.0", b"x = 0\n"), ("two-1.0", b"x = 1\n")):
        (site / f"{name}.dist-info").mkdir()
        (site / f"{name}.dist-info" / "RECORD").write_text(f"mod.py,sha256={record_hash(data)},6\n")
    index = RecordIndex()
    assert index.verdict(site / "mod.py", site) == INSTALLED
    (site / "mod.py").write_bytes(b"x = 2\n")  # cached by path: asked again, not re-read
    assert index.verdict(site / "mod.py", site) == INSTALLED
    assert RecordIndex().verdict(site / "mod.py", site) == MODIFIED


class _Counting:
    def __init__(self) -> None:
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, args: Sequence[str], directory: Path) -> bytes:
        self.calls.append(tuple(args))
        return run_git(args, directory)


def test_the_index_is_read_once_for_flags_and_submodules(tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    init_repo(sub)
    (sub / "x.py").write_text("X = 1\n")
    commit_all(sub)
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / "a.py").write_text("A = 1\n")
    (repo / "b.py").write_text("B = 1\n")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "lib")
    commit_all(repo)
    git(repo, "update-index", "--assume-unchanged", "a.py")
    git(repo, "update-index", "--skip-worktree", "b.py")
    (repo / "lib" / "x.py").write_text("X = 2\n")
    runner = _Counting()
    found = hidden_changes(repo, repo, [], runner)
    assert set(found) == {"a.py (marked assume-unchanged)",
                          "b.py (marked skip-worktree but present)",
                          "lib (submodule with uncommitted changes)"}
    assert [c[0] for c in runner.calls].count("ls-files") == 1


def test_the_base_code_plan_is_found_from_a_subdirectory_rootdir(tmp_path: Path) -> None:
    """git is asked only when a plan lies in the rootdir or above it; a rootdir below the
    top of the tree still finds the plan at the top."""
    init_repo(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "x.py").write_text("X = 1\n")
    head = commit_all(tmp_path)
    tree = TreeState(head, "git", True)
    assert base_code_properties(tmp_path / "pkg", tree) == ()
    (tmp_path / MARKER_PATH).parent.mkdir()
    (tmp_path / MARKER_PATH).write_text(json.dumps({"head_sha": "0" * 40}))
    [(_, value)] = base_code_properties(tmp_path / "pkg", tree)
    assert value.startswith("invalid: the plan was made on 000000000000"), value


def _crlf_repo(root: Path, attributes: str, object_format: str = "sha1") -> Path:
    git(root, "init", "-q", "-b", "main", f"--object-format={object_format}")
    git(root, "config", "commit.gpgsign", "false")
    (root / ".gitattributes").write_text(attributes)
    (root / "test_a.py").write_text("def test_a():\n    assert True\n")
    commit_all(root)
    (root / "test_a.py").unlink()
    git(root, "checkout", "--", "test_a.py")  # the checkout as the attributes make it
    return root / "test_a.py"


@pytest.fixture(scope="module")
def crlf_checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    module = _crlf_repo(tmp_path_factory.mktemp("crlf"), "*.py text eol=crlf\n")
    assert b"\r\n" in module.read_bytes()  # the raw bytes are not the blob's
    return module


def _differing(module: Path, rewrite: bytes | None = None, restore: bool = False) -> list[str]:
    root = module.parent
    watch = SourceWatch(root)
    original = module.read_bytes()
    if rewrite is not None:
        module.write_bytes(rewrite)
    watch.collected([module])
    if restore:
        module.write_bytes(original)
    head = git(root, "rev-parse", "HEAD")
    try:
        return [d["path"] for d in watch.facts(head)["differing"]]
    finally:
        module.write_bytes(original)


def test_control_an_eol_converted_checkout_is_the_commits(crlf_checkout: Path) -> None:
    assert _differing(crlf_checkout) == []


def test_a_rewritten_module_is_named_in_an_eol_converted_checkout(crlf_checkout: Path) -> None:
    rewritten = b"def test_a():\r\n    assert 1\r\n"
    assert _differing(crlf_checkout, rewritten) == ["test_a.py"]
    assert _differing(crlf_checkout, rewritten, restore=True) == ["test_a.py"]


def test_control_a_sha256_repository_is_the_commits(tmp_path: Path) -> None:
    module = _crlf_repo(tmp_path, "", object_format="sha256")
    assert _differing(module) == []
    assert _differing(module, b"def test_a():\n    assert 1\n") == ["test_a.py"]


def test_a_clean_filter_applies_and_a_rewrite_past_it_is_named(tmp_path: Path) -> None:
    """A filter driver (LFS's shape: the blob is what the clean filter makes of the file)."""
    module = _crlf_repo(tmp_path, "*.py filter=upper\n")
    git(tmp_path, "config", "filter.upper.clean", "tr a-z A-Z")
    git(tmp_path, "config", "filter.upper.smudge", "cat")
    git(tmp_path, "add", "--renormalize", ".")
    commit_all(tmp_path)
    assert module.read_bytes() != git(tmp_path, "show", "HEAD:test_a.py").encode()
    assert _differing(module) == []
    assert _differing(module, b"def test_a():\n    assert 0\n") == ["test_a.py"]


def test_the_lines_of_a_directory_gathered_at_once_are_what_the_lookup_finds() -> None:
    """`listed_under` (one walk per top-level directory) against `listed_hashes` (one walk
    per path) for every path of a text with both RECORD spellings, a path listed by two
    distributions, paths that are prefixes of others and a line without a hash."""
    records = "\n" + "\n".join([
        "pkg/a.py,sha256=first,1\r", "pkg/a.pyc,sha256=other,1", "pkg/sub/b.py,,",
        "pkgx/a.py,sha256=elsewhere,1", "pkg/a.py,sha256=second,1", "pkg/c.py",
        "pkg/d.py,sha256=last,1",
    ])
    gathered = listed_under(records, "pkg/")
    for path in ("pkg/a.py", "pkg/a.pyc", "pkg/sub/b.py", "pkg/c.py", "pkg/d.py", "pkg/e.py"):
        assert gathered.get(path, []) == listed_hashes(records, path), path
    assert gathered["pkg/a.py"] == ["first", "second"]
    assert "pkgx/a.py" not in gathered


def test_a_crlf_record_lists_its_files_and_a_file_with_other_bytes_is_modified(
        tmp_path: Path) -> None:
    """pip writes RECORD with CSV's CRLF; the index reads it as `read_text` would (a lone CR
    ends a line too)."""
    site = tmp_path.resolve()
    (site / "pkg").mkdir()
    (site / "pkg" / "a.py").write_bytes(b"A = 1\n")
    (site / "pkg" / "b.py").write_bytes(b"B = 2\n")
    (site / "top.py").write_bytes(b"T = 1\n")
    (site / "pkg-1.0.dist-info").mkdir()
    (site / "pkg-1.0.dist-info" / "RECORD").write_bytes(b"".join(
        f"{name},sha256={record_hash(data)}{end}".encode()
        for name, data, end in (("pkg/a.py", b"A = 1\n", ",6\r\n"), ("pkg/b.py", b"B = 1\n", "\r"),
                                ("top.py", b"T = 1\n", ",6\r\n"))))
    index = RecordIndex()
    assert index.verdict(site / "pkg" / "a.py", site) == INSTALLED
    assert index.verdict(site / "pkg" / "b.py", site) == MODIFIED
    assert index.verdict(site / "top.py", site) == INSTALLED
    assert index.verdict(site / "pkg" / "c.py", site) == UNLISTED


class _Through:
    """A runner that notes each git it passes on to `run`."""

    def __init__(self, run: Callable[[Sequence[str], Path], bytes]) -> None:
        self.run = run
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, args: Sequence[str], directory: Path) -> bytes:
        self.calls.append(tuple(args))
        return self.run(args, directory)


def test_the_end_asks_git_for_its_directory_in_the_probe_and_reads_its_attributes(
        tmp_path: Path) -> None:
    """The settings check at the end takes the git directory from the tree probe's own
    rev-parse (one git fewer) and still sees an attributes file written there in the run."""
    init_repo(tmp_path)
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert True\n")
    commit_all(tmp_path)
    view = git_view(tmp_path, {**os.environ, "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_CONFIG_GLOBAL": os.devnull})
    start = probe_tree(tmp_path, [], view.environ, view.run, [tmp_path])
    assert start.clean is True
    sources = SourceWatch(tmp_path)
    sources.collected([tmp_path / "test_a.py"])
    through = _Through(view.run)
    counted = GitView(through, view.environ, view.settings, view.problem)
    assert end_facts(sources, start, tmp_path, [], counted, [tmp_path])[
        "tree_at_end"]["unread"] is None  # the control: nothing changed
    assert [c for c in through.calls if c[0] == "rev-parse"] == [
        ("rev-parse", "--absolute-git-dir", "--show-toplevel", "HEAD")]
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "attributes").write_text("test_a.py -text\n")
    unread = end_facts(sources, start, tmp_path, [], counted, [tmp_path])["tree_at_end"]["unread"]
    assert unread is not None
    assert "attributes changed" in unread, unread


def test_the_directory_answer_is_the_files_answer(tmp_path: Path) -> None:
    """The locator answers once per directory: a file there, a link there into the installed
    dirs, and a path that is an installed directory itself each still get their own answer."""
    root = (tmp_path / "repo").resolve()
    venv = root / ".venv" / "lib"
    (venv / "pytest").mkdir(parents=True)
    (venv / "pytest" / "__init__.py").write_text("")
    (root / "pytest").mkdir()
    (root / "pytest" / "__init__.py").write_text("")
    (root / "pytest" / "linked.py").symlink_to(venv / "pytest" / "__init__.py")
    locator = Locator(root, [venv])
    assert locator.repository_path(root / "pytest" / "__init__.py") == "pytest/__init__.py"
    assert locator.repository_path(root / "pytest" / "linked.py") is None
    assert locator.repository_path(venv / "pytest" / "__init__.py") is None
    assert locator.repository_path(str(venv)) is None  # a `__file__` naming the dir itself
    assert locator.repository_path(root) == "."
    assert locator.repository_path(tmp_path / "elsewhere.py") is None
