"""One error base for the whole gate, caught once by the entry points.

Every message names the file and the place and says what to do, because the person
reading it is usually looking at a red CI job and needs to fix an input, not debug us.
"""

from __future__ import annotations


class GateError(Exception):
    """Base of every error the gate raises on purpose."""


class InvalidInput(GateError):  # noqa: N818 - the name is the exit-code category
    """A claim, evidence, policy or command line that cannot be used (exit 3)."""

    def __init__(
        self,
        source: str,
        place: str | None,
        problem: str,
        fix: str | None = None,
        more: tuple[str, ...] = (),
    ) -> None:
        self.source = source
        self.place = place
        self.problem = problem
        self.fix = fix
        self.more = more
        where = f"{source}:{place}" if place else source
        text = f"{where}: {problem}"
        if fix:
            text += f" ({fix})"
        for line in more:
            text += f"\n{line}"
        super().__init__(text)


class UsageError(GateError):
    """The command line itself is wrong (exit 3, not argparse's 2 which means refuted)."""


class CouldNotDecide(GateError):  # noqa: N818 - the name is the exit-code category
    """An operational fault: the gate could not gather what it needs to decide (exit 4)."""
