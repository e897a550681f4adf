"""The git diff collector: which files a branch changed, from real repositories."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.evidence.git_diff import (
    GitDiffError,
    GitUnavailable,
    ShallowClone,
    UnknownBase,
    changed_files,
    changed_in,
    commit_times,
    default_base,
    parse_commit_times,
    parse_name_status,
    resolve_range,
)
from tests.gitrepo import commit_all, git, git_env, init_repo

NEWLINE_NAME = "new\nline.py"


def _commit_at(repo: Path, when: str, message: str = "change") -> str:
    git(repo, "add", "-A")
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", message], cwd=repo, check=True,
        env={**git_env(), "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when},
    )
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main with four files; branch `work` adds, modifies, deletes and renames."""
    path = tmp_path / "repo"
    path.mkdir()
    init_repo(path)
    for name in ("keep.py", "edit.py", "gone.py"):
        (path / name).write_text(f"# {name}\n")
    (path / "old name.py").write_text("".join(f"line {i}\n" for i in range(20)))
    _commit_at(path, "2026-08-01T10:00:00+00:00", "base")
    git(path, "checkout", "-q", "-b", "work")
    (path / "edit.py").write_text("# edited\n")
    (path / NEWLINE_NAME).write_text("x = 1\n")
    _commit_at(path, "2026-08-02T10:00:00+02:00", "first")
    (path / "gone.py").unlink()
    git(path, "mv", "old name.py", "new name.py")
    (path / "sub").mkdir()
    (path / "sub" / "added.py").write_text("y = 2\n")
    _commit_at(path, "2026-08-03T10:00:00-05:00", "second")
    return path


def test_every_kind_of_change_with_odd_names(repo: Path) -> None:
    found = changed_files(repo, "main")
    assert sorted(found, key=lambda c: c.path) == [
        ChangedPath(ChangeStatus.MODIFIED, "edit.py"),
        ChangedPath(ChangeStatus.DELETED, "gone.py"),
        ChangedPath(ChangeStatus.ADDED, NEWLINE_NAME),
        ChangedPath(ChangeStatus.RENAMED, "new name.py", "old name.py"),
        ChangedPath(ChangeStatus.ADDED, "sub/added.py"),
    ]
    rename = next(c for c in found if c.status is ChangeStatus.RENAMED)
    assert rename.paths == ("old name.py", "new name.py")


def test_three_dots_ignore_what_the_base_did_since_the_fork(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    (repo / "keep.py").write_text("# main moved on\n")
    commit_all(repo, "main moves")
    git(repo, "checkout", "-q", "work")
    assert "keep.py" not in {c.path for c in changed_files(repo, "main")}


def test_paths_are_from_the_top_even_from_a_subdirectory_with_diff_relative(repo: Path) -> None:
    git(repo, "config", "diff.relative", "true")
    found = changed_files(repo / "sub", "main")
    assert {c.path for c in found} >= {"edit.py", "sub/added.py"}


def test_commit_times_are_the_latest_commit_touching_each_path(repo: Path) -> None:
    times = commit_times(resolve_range(repo, "main"))
    assert times["edit.py"] == datetime(2026, 8, 2, 8, 0, tzinfo=UTC)
    assert times[NEWLINE_NAME] == datetime(2026, 8, 2, 8, 0, tzinfo=UTC)
    assert times["gone.py"] == datetime(2026, 8, 3, 15, 0, tzinfo=UTC)
    assert times["old name.py"] == times["new name.py"] == datetime(2026, 8, 3, 15, 0, tzinfo=UTC)


def test_a_commit_dated_earlier_than_its_parent_does_not_hide_the_later_one(repo: Path) -> None:
    (repo / "edit.py").write_text("# again\n")
    _commit_at(repo, "2026-07-01T00:00:00Z", "backdated")
    times = commit_times(resolve_range(repo, "main"))
    assert times["edit.py"] == datetime(2026, 8, 2, 8, 0, tzinfo=UTC)


def test_a_change_made_in_a_merge_commit_is_dated_by_the_merge(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    (repo / "keep.py").write_text("# main moved on\n")
    _commit_at(repo, "2026-08-04T00:00:00Z", "main moves")
    git(repo, "checkout", "-q", "work")
    git(repo, "merge", "-q", "--no-commit", "main")
    (repo / "edit.py").write_text("# resolved in the merge\n")
    _commit_at(repo, "2026-08-05T00:00:00Z", "merge main")
    resolved = resolve_range(repo, "main")
    times = commit_times(resolved)
    assert times["edit.py"] == datetime(2026, 8, 5, tzinfo=UTC)
    assert "keep.py" not in {c.path for c in changed_in(resolved)}


def test_an_unknown_base_is_a_typed_error(repo: Path) -> None:
    with pytest.raises(UnknownBase, match="'origin/nope' names no commit"):
        changed_files(repo, "origin/nope")


def test_a_base_that_looks_like_an_option_is_not_one(repo: Path) -> None:
    with pytest.raises(UnknownBase):
        changed_files(repo, "--output=leak.txt")
    assert not (repo / "leak.txt").exists()


def test_unrelated_history_is_a_typed_error(repo: Path) -> None:
    git(repo, "checkout", "-q", "--orphan", "island")
    commit_all(repo, "island")
    with pytest.raises(UnknownBase, match="share no history"):
        changed_files(repo, "main")


def test_a_shallow_clone_is_refused(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "work",
                    f"file://{repo}", str(clone)], check=True, env=git_env())
    with pytest.raises(ShallowClone, match="fetch-depth: 0"):
        changed_files(clone, "HEAD~1")


def test_outside_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GitUnavailable, match="not inside a git working tree"):
        changed_files(tmp_path, "main")


def test_default_base_is_the_remote_head(repo: Path, tmp_path: Path) -> None:
    assert default_base(repo) is None
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True,
                   env=git_env())
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")
    assert default_base(repo) is None  # pushed, but origin/HEAD not known yet
    git(repo, "remote", "set-head", "origin", "--auto")
    assert default_base(repo) == "origin/main"
    assert {c.path for c in changed_files(repo, "origin/main")} >= {"edit.py"}


def test_parse_name_status_keeps_every_byte_of_a_name() -> None:
    output = b"M\0a b.py\0R087\0old\nname\0new\tname\0D\0\xff.py\0C100\0src\0copy\0T\0link\0"
    found = parse_name_status(output)
    assert found == [
        ChangedPath(ChangeStatus.MODIFIED, "a b.py"),
        ChangedPath(ChangeStatus.RENAMED, "new\tname", "old\nname"),
        ChangedPath(ChangeStatus.DELETED, "\udcff.py"),
        ChangedPath(ChangeStatus.COPIED, "copy", "src"),
        ChangedPath(ChangeStatus.TYPE_CHANGED, "link"),
    ]
    assert found[3].paths == ("copy",)  # a copy leaves its source unchanged
    assert parse_name_status(b"") == []


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (b"X\0file\0", "unexpected status 'X'"),
        (b"M\0", "truncated"),
        (b"R100\0only-one\0", "truncated"),
        (b"M\0\0", "truncated"),
    ],
)
def test_parse_name_status_refuses_what_it_does_not_understand(output: bytes,
                                                                message: str) -> None:
    with pytest.raises(GitDiffError, match=message):
        parse_name_status(output)


def test_parse_commit_times_records_and_names() -> None:
    sha = "a" * 40
    output = (
        f"\0{sha} 2026-08-02T10:00:00+02:00\0\n\nstarts-with-newline\0b\0".encode()
        + f"\0{'b' * 40} 2026-08-01T00:00:00Z\0".encode()  # an empty commit
        + f"\0{'c' * 40} 2026-08-03T00:00:00Z\0\nb\0".encode()
    )
    assert parse_commit_times(output) == {
        "\nstarts-with-newline": datetime(2026, 8, 2, 8, 0, tzinfo=UTC),
        "b": datetime(2026, 8, 3, tzinfo=UTC),
    }
    with pytest.raises(GitDiffError):
        parse_commit_times(b"junk\0")
    with pytest.raises(GitDiffError):
        parse_commit_times(b"\0not a header\0")
