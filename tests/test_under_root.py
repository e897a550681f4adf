"""The one under-the-root check (gate/evidence/under_root.py): links are followed, the root
itself is `.`, a path outside is None."""

from __future__ import annotations

from pathlib import Path

from gate.evidence.under_root import relative_under


def test_inside_outside_and_through_a_link(tmp_path: Path) -> None:
    root, other = tmp_path / "repo", tmp_path / "elsewhere"
    (root / "pkg").mkdir(parents=True)
    other.mkdir()
    (root / "pkg" / "m.py").write_text("")
    assert relative_under(root / "pkg" / "m.py", root) == "pkg/m.py"
    assert relative_under(root, root) == "."
    assert relative_under(other, root) is None
    assert relative_under(root / ".." / "elsewhere", root) is None
    # A link inside the root that points out is outside; one from outside pointing in is in.
    (root / "out").symlink_to(other)
    (other / "in").symlink_to(root / "pkg")
    assert relative_under(root / "out", root) is None
    assert relative_under(other / "in" / "m.py", root) == "pkg/m.py"
    # The root given through a link names the same places.
    (tmp_path / "alias").symlink_to(root)
    assert relative_under(root / "pkg", tmp_path / "alias") == "pkg"
