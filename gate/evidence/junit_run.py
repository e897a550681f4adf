"""The JUnit files of one run, read: what `claim-gate junit` prints and evidence is made of.

Apart from the evidence collector (junit.py) so that `claim-gate junit` imports the reader
and nothing of claims, policies or evidence records (issue 23: each subcommand imports
only what it uses; a million-case read is measured as a user runs it, start included).
"""

from __future__ import annotations

import glob
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import JUnitFile, JUnitRun
from gate.claim.junit_options import JUnitOptions
from gate.evidence.junit_reader import (
    DEFAULT_MAX_JUNIT_BYTES,
    DEFAULT_OPTIONS,
    NotJUnit,
    read_junit_file,
)

_GLOB_CHARS = frozenset("*?[")


def expand_paths(patterns: Iterable[str]) -> tuple[Path, ...]:
    """Paths and globs (`**` allowed) to files, in order, without repeats. A pattern that
    names an existing file is that file (`TEST-Foo[1].xml` is not a glob for `Foo1`).

    A glob matching nothing is invalid input, never a silent pass with no evidence."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        if _GLOB_CHARS & set(pattern) and not Path(pattern).is_file():
            # glob.glob, not Path.glob: it takes absolute patterns as the operator wrote them.
            matches = sorted(glob.glob(pattern, recursive=True))  # noqa: PTH207
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                raise InvalidInput(
                    pattern, None, "the glob matches no file",
                    "check the path, and that the test job uploaded its JUnit XML",
                )
            found.update(dict.fromkeys(files))
        else:
            found[Path(pattern)] = None
    return tuple(found)


def read_run(
    patterns: Iterable[str],
    requested: Sequence[str] = (),
    max_bytes: int = DEFAULT_MAX_JUNIT_BYTES,
    options: JUnitOptions = DEFAULT_OPTIONS,
    identities: int | None = None,
    flag: str = "--junit",
    read: Callable[..., JUnitFile] = read_junit_file,
) -> JUnitRun:
    """Read every file the patterns name (InvalidInput on the first that cannot be read).

    A file whose root element is not JUnit is skipped with a note; if no file is left,
    that is invalid input (a run of nothing is never a pass). `identities`: keep each
    test's outcome, up to that many (comparing test sets); `flag`: the option to fix;
    `read`: the file reader (the evidence collector passes its own, which tests watch)."""
    paths = expand_paths(patterns)
    files: list[JUnitFile] = []
    notes: list[str] = []
    for path in paths:
        try:
            files.append(read(path, requested, max_bytes, identities=identities,
                              options=options))
        except NotJUnit as exc:
            notes.append(f"skipped, not a JUnit report: {exc}")
    if not files:
        raise InvalidInput(
            ", ".join(str(path) for path in paths[:5]), None,
            "none of the files is a JUnit report (" + "; ".join(notes[:3]) + ")",
            f"point {flag} at the JUnit XML files",
        )
    return JUnitRun(tuple(files), tuple(requested), tuple(notes))
