"""What the pytest plugin records beside the tallies, kept out of the face: which selection
options the session ran with, the run-over-the-base's-code property, and a record file written
whole. The plugin (gate/faces/pytest_plugin.py) only wires these into pytest's hooks."""

from __future__ import annotations

import os
import platform
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gate.claim.test_job import BASE_CODE_PROPERTY, MARKER_PATH
from gate.evidence.pytest_record import SessionFacts, Totals, TreeState
from gate.evidence.pytest_selection import configured_selection

#: Options that run a subset of the suite, by their `config.option` names.
SELECTION_OPTIONS = ("keyword", "markexpr", "deselect", "lf", "failedfirst", "stepwise")


def selection(option: object) -> dict[str, object]:
    """The selection options a session was given (`config.option`), as plain values."""
    found: dict[str, object] = {}
    for name in SELECTION_OPTIONS:
        value = getattr(option, name, None)
        if value:
            found[name] = [str(v) for v in value] if isinstance(value, list) else value
    return found


def configured(config: Any, chosen: dict[str, object],
               environ: Mapping[str, str]) -> dict[str, str]:
    """The selection options only the committed ini file gave (the project's suite), from a
    `pytest.Config`."""
    return configured_selection(
        chosen, [str(a) for a in config.getini("addopts")],
        [str(a) for a in config.invocation_params.args], environ.get("PYTEST_ADDOPTS"),
        config.inipath.name if config.inipath else None)


def base_code_properties(rootpath: Path, tree: TreeState) -> tuple[tuple[str, str], ...]:
    """After `claim-gate base-code`: whether the tree is exactly its plan on this head, as
    the `claim-gate.base_code` property (none when there is no plan, or no git to ask).

    The plan lies at the top of the working tree, which holds the rootdir: with no plan in
    the rootdir or any directory above it there is none to check, and git is not asked (a
    work tree elsewhere, through `GIT_WORK_TREE`, then gets no property: the run is not
    taken for one over the base's code)."""
    if tree.commit is None or tree.source != "git":
        return ()
    here = rootpath.resolve()
    if not any((d / MARKER_PATH).is_file() for d in (here, *here.parents)):
        return ()
    from gate.evidence.base_code_tree import base_code_binding
    from gate.evidence.git_diff import GitDiffError, toplevel

    try:
        top = toplevel(rootpath)
    except GitDiffError:
        return ()
    value = base_code_binding(top, tree.commit, tree.dirty_paths)
    return () if value is None else ((BASE_CODE_PROPERTY, value),)


def tree_state(tree: TreeState) -> str:
    """The session's commit and tree, as the terminal summary says them."""
    if not tree.commit:
        return f"commit unknown ({tree.problem})"
    clean = {True: "clean", False: "DIRTY", None: "not checked"}[tree.clean]
    return f"commit {tree.commit[:12]} ({tree.source}), tree {clean}"


def write_atomically(path: Path, text: str) -> None:
    """A reader never sees half a record: write beside the target, then rename over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def junit_path(config: Any) -> Path | None:
    """The JUnit file the session writes (`--junitxml`), from where pytest was started."""
    junit = config.getoption("xmlpath", None)
    if not junit:
        return None
    path = Path(junit)
    return path if path.is_absolute() else config.invocation_params.dir / path


def add_junit_properties(config: Any, properties: tuple[tuple[str, str], ...]) -> None:
    """`<property>`s on the session's JUnit report, when it writes one."""
    try:
        from _pytest.junitxml import xml_key
    except ImportError:  # pragma: no cover - a pytest that moved its JUnit writer
        return
    xml = config.stash.get(xml_key, None)
    if xml is None:
        return
    for name, value in properties:
        xml.add_global_property(name, value)


def session_facts(config: Any, started: datetime, totals: Totals, tree: TreeState,
                  exit_status: int, inventory: dict[str, Any] | None, interrupted: str | None,
                  versions: tuple[str, str], environ: Mapping[str, str]) -> SessionFacts:
    """Everything the record states, from a `pytest.Config` and what the plugin gathered;
    `versions`: pytest's and the plugin's."""
    from gate.evidence.pytest_watch import junit_report_facts

    junit = junit_path(config)
    workers = getattr(config.option, "numprocesses", None)
    chosen = selection(config.option)
    return SessionFacts(
        started_at=started,
        finished_at=datetime.now(UTC),
        totals=totals,
        tree=tree,
        exit_status=exit_status,
        pytest_version=versions[0],
        plugin_version=versions[1],
        python_version=platform.python_version(),
        test_paths=tuple(str(arg) for arg in config.args),
        selection=chosen,
        configured=configured(config, chosen, environ),
        workers=workers if isinstance(workers, int) else 0,
        inventory=inventory,
        junit_report=junit_report_facts(junit, config.rootpath, totals.rerun_tests > 0)
        if junit else None,
        interrupted=interrupted,
    )
