"""`verify --diff-base` resolves BASE...HEAD once: the subject's merge base and the change's
collector read the same resolution (git asked once, and the two can never disagree)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gate.evidence import git_diff
from gate.faces.cli import main
from tests.gitrepo import commit_all, init_repo
from tests.other_ci_support import claim_text


def test_the_range_is_resolved_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    init_repo(tmp_path)
    (tmp_path / "README").write_text("base\n")
    base = commit_all(tmp_path, "base")
    (tmp_path / ".claim.json").write_text(claim_text())
    head = commit_all(tmp_path, "claim")
    asked: list[tuple[str, str]] = []
    real = git_diff.resolve_range

    def counted(repo: Path, base: str, head: str = "HEAD", *args: object) -> object:
        asked.append((base, head))
        return real(repo, base, head, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(git_diff, "resolve_range", counted)  # pipeline imports it when used
    monkeypatch.setattr("gate.evidence.branch_changes.resolve_range", counted)
    err = io.StringIO()
    code = main(["verify", str(tmp_path / ".claim.json"), "--head-sha", head, "--diff-base",
                 base, "--repo", str(tmp_path)], out=io.StringIO(), err=err)
    assert code in (0, 1), err.getvalue()  # decided (the verdict is not what is tested)
    assert asked == [(base, head)]
