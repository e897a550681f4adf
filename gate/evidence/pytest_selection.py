"""Where a pytest run's narrowing selection came from: the committed ini file, or not.

A project may define its suite in its own configuration (packaging's
`addopts = ["-m", "not property"]`): that selection is the suite, not a subset an agent chose.
The file it lives in is on the evidence chain, so a change that edits it is judged there
(`producer_modified`). A selection given on the command line or in `PYTEST_ADDOPTS` is the
run's own choice and stays narrowing. An option is recorded as the ini file's only when the
ini's `addopts` name it and neither the command line nor `PYTEST_ADDOPTS` could have: any
argument that might spell it counts against (a missed "configured" is a false alarm, never a
false pass).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

#: The flags of each selection option, by its `config.option` name (short flags first).
FLAGS: dict[str, tuple[str, ...]] = {
    "keyword": ("-k",),
    "markexpr": ("-m",),
    "deselect": ("--deselect",),
    "lf": ("--lf", "--last-failed"),
    "failedfirst": ("--ff", "--failed-first"),
    "stepwise": ("--sw", "--stepwise", "--sw-skip", "--stepwise-skip"),
}


def _spells(arg: str, flags: Sequence[str]) -> bool:
    for flag in flags:
        if flag.startswith("--"):
            if arg == flag or arg.startswith(f"{flag}="):
                return True
        elif arg.startswith("-") and not arg.startswith("--") and flag[1] in arg[1:]:
            return True  # -m, -mfoo, or inside a cluster such as -vm (read wide on purpose)
    return False


def configured_selection(
    selection: Mapping[str, object], ini_addopts: Sequence[str],
    invocation: Sequence[str], env_addopts: str | None, inifile: str | None,
) -> dict[str, str]:
    """Each narrowing option of `selection` that only the ini file's addopts gave, with that
    file's name (`{"markexpr": "addopts in pyproject.toml"}`)."""
    if inifile is None:
        return {}
    try:
        env = shlex.split(env_addopts or "")
    except ValueError:
        return {}  # unreadable PYTEST_ADDOPTS: it could say anything
    given = [*invocation, *env]
    return {
        name: f"addopts in {inifile}"
        for name in selection
        if name in FLAGS and any(_spells(a, FLAGS[name]) for a in ini_addopts)
        and not any(_spells(a, FLAGS[name]) for a in given)
    }
