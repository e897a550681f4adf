"""The tree probed again at session end (issue 21 item 3) says something only about the tree the
session started on: a commit made during the run, or git failing at the end, is a finding,
never "nothing changed"; a hidden entry's flag does not hide the committed path it names."""

from __future__ import annotations

import os
from pathlib import Path

from gate.evidence.git_probe import probe_tree
from gate.evidence.git_settings import git_view
from gate.evidence.producer_inventory import derive_findings
from gate.evidence.test_sources import SourceWatch, end_facts
from tests.gitrepo import commit_all, git, init_repo


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / "calc.py").write_text("VALUE = 1\n")
    commit_all(repo, "start")
    return repo


def _findings(repo: Path, start: object) -> list[dict[str, str]]:
    ended = end_facts(SourceWatch(repo), start, repo, [], git_view(repo, os.environ), [repo])
    return [f for f in derive_findings(ended) if f["code"] == "tree_changed"]


def test_control_an_untouched_tree_has_no_finding(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    start = probe_tree(repo, [], {}, import_roots=[repo])
    assert start.clean is True
    assert _findings(repo, start) == []


def test_a_commit_made_during_the_session_is_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    start = probe_tree(repo, [], {}, import_roots=[repo])
    (repo / "calc.py").write_text("VALUE = 2\n")
    commit_all(repo, "made by the code under test")  # clean again, against a new HEAD
    found = _findings(repo, start)
    assert [f["route"].split(" from ")[0] for f in found] == ["HEAD moved"]


def test_a_tree_git_cannot_read_at_the_end_is_not_a_clean_one(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    start = probe_tree(repo, [], {}, import_roots=[repo])
    (repo / ".git" / "index").write_bytes(b"not an index")  # git status fails from here on
    found = _findings(repo, start)
    assert found
    assert found[-1]["route"].startswith("git could not read the tree at session end")


def test_a_flagged_committed_file_changed_is_named_by_its_path(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    start = probe_tree(repo, [], {}, import_roots=[repo])
    git(repo, "update-index", "--skip-worktree", "calc.py")
    (repo / "calc.py").write_text("VALUE = 3\n")
    found = _findings(repo, start)
    assert any(f["file"] == "calc.py" for f in found), found
