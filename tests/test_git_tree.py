"""The one `git ls-tree` reader (gate/evidence/git_tree.py): git's own output, read the same
way by the claim's reader, the change reading and the test modules' check."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gate.evidence.git_probe import run_git
from gate.evidence.git_tree import LS_TREE_BATCH, TreeEntry, ls_tree, parse_ls_tree
from tests.gitrepo import commit_all, init_repo


def test_entries_of_a_real_tree_by_mode_and_kind(tmp_path: Path) -> None:
    init_repo(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a b.py").write_text("x = 1\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "link").symlink_to("run.sh")
    head = commit_all(tmp_path, "tree")
    found = ls_tree(run_git, tmp_path / "pkg", head, ["pkg/a b.py", "run.sh", "link",
                                                      "absent.py"], full_tree=True)
    assert sorted(found) == ["link", "pkg/a b.py", "run.sh"]
    assert (found["pkg/a b.py"].mode, found["pkg/a b.py"].kind) == ("100644", "blob")
    assert found["run.sh"].mode == "100755"
    assert found["link"].mode == "120000"
    assert ls_tree(run_git, tmp_path, head, ["pkg"], full_tree=True)["pkg"].kind == "tree"
    assert len(found["run.sh"].oid) == 40
    # Without --full-tree the paths are the directory's own, as git names them there.
    assert list(ls_tree(run_git, tmp_path / "pkg", head, ["a b.py"], full_tree=False)) == [
        "a b.py"]


def test_a_line_not_of_gits_shape_is_left_out() -> None:
    out = b"\x00".join([b"100644 blob abc\tgood.py", b"garbage", b"100644 blob\tshort.py",
                        b"160000 commit def\tsub", b""])
    assert parse_ls_tree(out) == {"good.py": TreeEntry("100644", "blob", "abc"),
                                  "sub": TreeEntry("160000", "commit", "def")}


def test_many_paths_are_asked_in_batches() -> None:
    calls: list[int] = []

    def run(args: Sequence[str], directory: Path) -> bytes:
        paths = list(args[args.index("--") + 1:])
        calls.append(len(paths))
        return b"".join(b"100644 blob %s\t%s\0" % (b"0" * 40, p.encode()) for p in paths)

    paths = [f"t{i}.py" for i in range(LS_TREE_BATCH + 1)]
    assert len(ls_tree(run, Path(), "HEAD", paths, full_tree=True)) == len(paths)
    assert calls == [LS_TREE_BATCH, 1]
