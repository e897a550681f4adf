"""The claim as committed (`verify --head-sha`): read from git, never from a rewritten
workspace, and refused when git cannot show it as a plain file."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.evidence.git_claim import load_claim_at, read_committed_claim
from gate.faces.cli import main
from tests.gitrepo import commit_all, git, init_repo
from tests.other_ci_support import claim_text


def _repo(root: Path) -> tuple[Path, str]:
    init_repo(root)
    (root / ".claim.json").write_text(claim_text())
    return root / ".claim.json", commit_all(root, "claim")


def test_the_committed_claim_is_read_from_git(tmp_path: Path) -> None:
    claim, head = _repo(tmp_path)
    loaded = load_claim_at(claim, 1 << 20, head)
    assert loaded is not None
    assert loaded.claim.task.id == "calc-2"
    claim.unlink()  # a gate clone with the file gone still reads the commit's
    assert load_claim_at(claim, 1 << 20, head) is not None


def test_a_workspace_claim_that_differs_is_refused_naming_both(tmp_path: Path) -> None:
    claim, head = _repo(tmp_path)
    claim.write_text(claim.read_text() + " ")
    with pytest.raises(InvalidInput) as raised:
        load_claim_at(claim, 1 << 20, head)
    assert str(claim) in str(raised.value)
    assert f".claim.json@{head[:12]}" in str(raised.value)


def test_a_symlinked_claim_in_the_commit_is_refused(tmp_path: Path) -> None:
    init_repo(tmp_path)
    (tmp_path / "real.json").write_text(claim_text())
    (tmp_path / ".claim.json").symlink_to("real.json")
    head = commit_all(tmp_path, "link")
    with pytest.raises(InvalidInput, match="not a regular file in the commit"):
        read_committed_claim(tmp_path, Path(".claim.json"), head)


def test_a_head_sha_the_clone_lacks_is_invalid_input(tmp_path: Path) -> None:
    claim, _ = _repo(tmp_path)
    with pytest.raises(InvalidInput, match="names no commit"):
        load_claim_at(claim, 1 << 20, "0" * 40)


def test_a_claim_in_no_working_tree_is_read_as_a_file(tmp_path: Path) -> None:
    claim = tmp_path / "claim.json"
    claim.write_text(claim_text())
    assert load_claim_at(claim, 1 << 20, "0" * 40) is not None


@pytest.mark.parametrize(("require", "code"), [(True, 1), (False, 3)])
def test_a_missing_claim_file_with_require_claim_is_unverified(
    tmp_path: Path, require: bool, code: int
) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["verify", str(tmp_path / "absent.json"), "--format", "json"]
    assert main(argv + (["--require-claim"] if require else []), out=out, err=err) == code
    if require:
        record = json.loads(out.getvalue())
        assert record["result"] == "unverified"
        assert [u["code"] for u in record["unmet"]] == ["no_claim"]
    else:
        assert "no such claim file" in err.getvalue()


def test_a_shallow_clone_cannot_answer_diff_base(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    _repo(origin)
    (origin / "more.txt").write_text("x")
    commit_all(origin, "more")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(clone))
    err = io.StringIO()
    code = main(["verify", str(clone / ".claim.json"), "--head-sha",
                 git(clone, "rev-parse", "HEAD"), "--diff-base", "HEAD~1", "--repo", str(clone)],
                out=io.StringIO(), err=err)
    assert code == 3
    assert "shallow clone" in err.getvalue()


def test_a_relative_claim_in_a_subdirectory_is_read_from_the_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    init_repo(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".claim.json").write_text(claim_text())
    head = commit_all(tmp_path, "claim")
    monkeypatch.chdir(tmp_path / "pkg")
    loaded = load_claim_at(Path(".claim.json"), 1 << 20, head)
    assert loaded is not None
    assert loaded.claim.task.id == "calc-2"


def test_git_failing_is_never_read_as_no_repository(tmp_path: Path) -> None:
    """git missing (or refusing the clone) must not fall back to the workspace file, which the
    agent's tests may have rewritten; only git's "not a git repository" means none."""
    claim, head = _repo(tmp_path)

    def missing(args: Sequence[str], directory: Path) -> bytes:
        raise FileNotFoundError("git")

    with pytest.raises(InvalidInput, match="git is not installed"):
        load_claim_at(claim, 1 << 20, head, run=missing)


#: A claim on several lines (json.dumps with an indent), so it has line endings to convert.
MULTILINE = json.dumps(json.loads(claim_text()), indent=2) + "\n"


def _crlf_checkout(root: Path) -> tuple[Path, str]:
    """A repository whose .gitattributes checks JSON out with CRLF (LF in the blob), cloned
    fresh as a gate job would: the workspace file is CRLF, the committed blob LF."""
    work = root / "work"
    work.mkdir()
    init_repo(work)
    (work / ".gitattributes").write_text("*.json text eol=crlf\n")
    (work / ".claim.json").write_text(MULTILINE, newline="\n")
    head = commit_all(work, "claim")
    clone = root / "clone"
    git(root, "clone", "-q", str(work), str(clone))
    claim = clone / ".claim.json"
    assert b"\r\n" in claim.read_bytes()  # git converted it on checkout
    assert "\r" not in git(clone, "cat-file", "blob", f"{head}:.claim.json")
    return claim, head


def test_a_claim_checked_out_with_crlf_is_the_committed_claim(tmp_path: Path) -> None:
    claim, head = _crlf_checkout(tmp_path)
    loaded = load_claim_at(claim, 1 << 20, head)
    assert loaded is not None
    assert loaded.claim.task.id == "calc-2"


def test_control_a_crlf_checkout_rewritten_after_the_commit_is_refused(tmp_path: Path) -> None:
    claim, head = _crlf_checkout(tmp_path)
    claim.write_bytes(claim.read_bytes().replace(b"calc-2", b"calc-9"))
    with pytest.raises(InvalidInput, match="something changed this file after the commit"):
        load_claim_at(claim, 1 << 20, head)


def test_line_endings_git_would_not_give_are_named_as_a_conversion(tmp_path: Path) -> None:
    """A CRLF copy where this clone converts nothing (a Windows core.autocrlf checkout copied
    over): refused, naming the conversion, not blaming the tests."""
    init_repo(tmp_path)
    claim = tmp_path / ".claim.json"
    claim.write_text(MULTILINE, newline="\n")
    head = commit_all(tmp_path, "claim")
    claim.write_bytes(claim.read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(InvalidInput) as raised:
        load_claim_at(claim, 1 << 20, head)
    message = str(raised.value)
    assert "only in its line endings" in message
    assert "core.autocrlf" in message
    assert "tests run the change's own code" not in message
