"""A diff as plain values: which paths a change touched, and how (from git or GitHub)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ChangeStatus(StrEnum):
    """git's status letters, by name; copies appear only if git's config asks for them."""

    ADDED = "A"
    MODIFIED = "M"
    DELETED = "D"
    RENAMED = "R"
    COPIED = "C"
    TYPE_CHANGED = "T"  # a file became a symlink or the other way round: its content changed


@dataclass(frozen=True)
class ChangedPath:
    """One entry of the diff. `path` is the path at HEAD (for a deletion: the deleted path);
    `old_path` is the source of a rename or copy."""

    status: ChangeStatus
    path: str
    old_path: str | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path this entry changed: a rename changes both, a copy only its new path."""
        if self.status is ChangeStatus.RENAMED and self.old_path is not None:
            return (self.old_path, self.path)
        return (self.path,)


