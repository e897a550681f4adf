"""Whether a path lies under a root, and its name there: one answer for every reader.

The git probe (which ignored files git may skip), the hidden-change scan (which pathspecs to
ask about), the plugin's view of the rootdir and the test modules' check each asked "is this
under the root, and how is it named there" with their own `resolve().relative_to(...)`; a
difference between them (one resolving links, one not) would let a file count as inside for
one and outside for another.
"""

from __future__ import annotations

from pathlib import Path


def relative_under(path: Path, root: Path) -> str | None:
    """`path` relative to `root`, both resolved (links followed), as git names paths (`.` for
    the root itself); None when it lies outside. Raises OSError (or RuntimeError, a link loop)
    when a path cannot be resolved: the caller decides whether that is "outside"."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
