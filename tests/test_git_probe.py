"""Reading the commit and the tree state from real git repositories."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from gate.evidence.git_probe import probe_tree, run_git
from tests.gitrepo import commit_all, git, init_repo

SHA = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    init_repo(tmp_path)
    (tmp_path / "code.py").write_text("X = 1\n")
    (tmp_path / ".gitignore").write_text("ignored/\n")
    commit_all(tmp_path)
    return tmp_path


def test_a_clean_checkout_is_bound_to_its_head(repo: Path) -> None:
    state = probe_tree(repo, [], {})
    assert state.commit == git(repo, "rev-parse", "HEAD")
    assert (state.source, state.clean, state.dirty_paths) == ("git", True, ())


def test_a_subdirectory_reads_the_whole_repository(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "sub" / "new.py").write_text("")
    state = probe_tree(repo / "sub", [], {})
    assert (state.clean, state.dirty_paths) == (False, ("sub/new.py",))


@pytest.mark.parametrize(
    ("change", "dirty"),
    [
        (lambda r: (r / "code.py").write_text("X = 2\n"), ("code.py",)),
        (lambda r: (r / "untracked.py").write_text(""), ("untracked.py",)),
        (lambda r: (r / "deep" / "er").mkdir(parents=True) or (r / "deep/er/x.py").write_text(""),
         ("deep/er/x.py",)),
        (lambda r: (r / "code.py").unlink(), ("code.py",)),
    ],
)
def test_edits_and_untracked_files_make_the_tree_dirty(
    repo: Path, change: object, dirty: tuple[str, ...]
) -> None:
    change(repo)  # type: ignore[operator]
    state = probe_tree(repo, [], {})
    assert (state.clean, state.dirty_paths) == (False, dirty)
    assert state.commit is not None


def test_the_sessions_own_outputs_and_ignored_files_do_not(repo: Path) -> None:
    (repo / "out").mkdir()
    (repo / "out" / "evidence.json").write_text("{}")
    (repo / "junit.xml").write_text("<x/>")
    (repo / "ignored").mkdir()
    (repo / "ignored" / "a").write_text("")
    (repo / "__pycache__").mkdir()
    (repo / "__pycache__" / "code.cpython-311.pyc").write_bytes(b"")
    ignored = [repo / "out" / "evidence.json", repo / "junit.xml", Path("/elsewhere/x.json")]
    assert probe_tree(repo, ignored, {}).clean is True


def test_outside_a_repository_the_ci_variable_names_the_commit(tmp_path: Path) -> None:
    state = probe_tree(tmp_path, [], {"CI_COMMIT_SHA": SHA.upper()})
    assert (state.commit, state.source, state.clean) == (SHA, "env:CI_COMMIT_SHA", None)


def test_outside_a_repository_without_ci_variable_the_commit_is_unknown(tmp_path: Path) -> None:
    state = probe_tree(tmp_path, [], {"BUILDKITE_COMMIT": "HEAD"})
    assert (state.commit, state.clean) == (None, None)
    assert state.problem is not None
    assert "not a git repository" in state.problem


def test_a_repository_without_commits_has_no_commit(tmp_path: Path) -> None:
    init_repo(tmp_path)
    state = probe_tree(tmp_path, [], {})
    assert state.commit is None
    assert state.problem is not None


def test_missing_git_is_not_an_error(tmp_path: Path) -> None:
    def no_git(args: Sequence[str], directory: Path) -> bytes:
        raise FileNotFoundError(2, "No such file or directory", "git")

    state = probe_tree(tmp_path, [], {}, no_git)
    assert state.commit is None
    assert state.problem == "git is not installed; no CI commit variable set"
    assert probe_tree(tmp_path, [], {"GIT_COMMIT": SHA}, no_git).commit == SHA


def test_a_failing_git_status_does_not_pass_for_clean(repo: Path) -> None:
    def status_fails(args: Sequence[str], directory: Path) -> bytes:
        if args[0] == "status":
            raise subprocess.CalledProcessError(128, ["git", *args], b"", b"fatal: index broken")
        return run_git(args, directory)

    state = probe_tree(repo, [], {}, status_fails)
    assert state.commit is not None
    assert state.clean is False
    assert state.problem == "git status: git failed: fatal: index broken"


def test_a_hanging_git_is_given_up_on(tmp_path: Path) -> None:
    def hangs(args: Sequence[str], directory: Path) -> bytes:
        raise subprocess.TimeoutExpired(["git", *args], 30)

    state = probe_tree(tmp_path, [], {}, hangs)
    assert state.problem is not None
    assert "did not answer" in state.problem
