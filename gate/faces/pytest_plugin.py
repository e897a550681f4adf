"""pytest plugin: `--claim-evidence PATH` writes one `test_run` evidence record for the session.

Registered through the `pytest11` entry point, so it is loaded wherever claim-gate is
installed and does nothing until the option is given (`-p no:claim_gate` unloads it).
It stamps the record with the commit the session ran on and whether the tree was clean,
so the gate can refuse a run of other code (`claim-gate verify --head-sha`). It never
changes an outcome: it only observes reports, and a failure to write is reported, not raised.
The logic lives in `gate.evidence.pytest_record` (pure) and `gate.evidence.git_probe`.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Generator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import gate
from gate import __version__

#: The gate's own package: its code is the plugin's, never the repository's.
_GATE_DIR = Path(gate.__file__).resolve().parent

_STARTED = pytest.StashKey[datetime]()
_WATCH = pytest.StashKey[Any]()  # a gate.evidence.pytest_watch.Watch, imported only when active
_PRELOADED = pytest.StashKey[list[dict[str, str]]]()
_RECORDER_NAME = "claim-gate-recorder"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("claim-gate", "claim-gate test evidence")
    group.addoption(
        "--claim-evidence",
        metavar="PATH",
        default=None,
        help="write a claim-gate test_run evidence record (commit, clean tree, totals) to PATH",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    # The earliest moment a plugin runs: before conftest files import the code under test.
    # `-p` plugins are already in (they load before entry points): the watch's origins and
    # the first scan name them; conftests and `pytest_plugins` modules come after it.
    early_config.stash[_STARTED] = datetime.now(UTC)
    if getattr(early_config.known_args_namespace, "claim_evidence", None):
        from gate.evidence.pytest_watch import Origins, Watch, install_dirs, site_dirs

        rootdir = early_config.rootpath
        origins = Origins(rootdir, _GATE_DIR, install_dirs(), site_dirs())
        watch = Watch(origins, os.environ)
        watch.observe(early_config.pluginmanager, "load")
        watch.register(early_config.pluginmanager)  # its item check, in xdist's workers too
        early_config.stash[_WATCH] = watch
        early_config.stash[_PRELOADED] = _preloaded(early_config)


def _preloaded(config: pytest.Config) -> list[dict[str, str]]:
    """The repository's code that ran before this hook: entry points, shadowing packages."""
    from gate.evidence.plugin_preload import loaded_distributions, preloaded

    return preloaded(config.rootpath, sys.modules, loaded_distributions(config.pluginmanager))


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("claim_evidence", None)
    if not path or hasattr(config, "workerinput"):
        return  # inactive, or an xdist worker: the controller sees every worker's reports
    started = config.stash.get(_STARTED, None) or datetime.now(UTC)
    target = config.invocation_params.dir / Path(path)  # tests may chdir; the record may not
    watch = config.stash.get(_WATCH, None)
    config.pluginmanager.register(_Recorder(config, target, started, watch), _RECORDER_NAME)


class _Recorder:
    """Per-session state of an active plugin; registered only when the option is given."""

    def __init__(
        self, config: pytest.Config, path: Path, started: datetime, watch: Any = None
    ) -> None:
        from gate.evidence.pytest_record import Tally, TreeState
        from gate.evidence.pytest_watch import Origins, Watch, install_dirs, site_dirs

        if watch is None:  # the option came from a late source: watch from now on
            origins = Origins(config.rootpath, _GATE_DIR, install_dirs(), site_dirs())
            watch = Watch(origins, os.environ)
            watch.observe(config.pluginmanager, "configure")
            watch.register(config.pluginmanager)
        self._watch = watch
        self._preloaded = config.stash[_PRELOADED] if _PRELOADED in config.stash \
            else _preloaded(config)  # the option came late: as seen from now
        self._roots: tuple[Path, ...] = ()
        self._inventory: dict[str, Any] | None = None
        self._interrupted: str | None = None
        self._config = config
        self._path = path
        self._started = started
        self._tally = Tally()
        watch.items.count_into(self._tally.add)  # the item check's logreport tallies too
        self._tree = TreeState(None, None, None, problem="the session did not start")
        self._message: str | None = None

    def _ignored(self) -> list[Path]:
        from gate.evidence.plugin_session import junit_path

        junit = junit_path(self._config)  # the record and the report are not the tree's
        return [self._path, *([junit] if junit else [])]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        from gate.evidence.git_hidden import import_roots
        from gate.evidence.git_probe import probe_tree
        from gate.evidence.plugin_session import base_code_properties
        from gate.evidence.pytest_record import junit_properties

        del session
        self._roots = import_roots(self._config.rootpath, [str(arg) for arg in self._config.args])
        self._tree = probe_tree(self._config.rootpath, self._ignored(), self._watch.git.environ,
                                self._watch.git.run, self._roots)
        self._add_junit_properties(junit_properties(self._tree, self._started))
        self._add_junit_properties(base_code_properties(self._config.rootpath, self._tree))

    def _add_junit_properties(self, properties: tuple[tuple[str, str], ...]) -> None:
        from gate.evidence.plugin_session import add_junit_properties

        add_junit_properties(self._config, properties)

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if isinstance(collector, pytest.Module):  # hashed before pytest imports it
            self._watch.sources.collected([Path(str(collector.path))])

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        # After each test run here (xdist's workers compare theirs): an undone patch shows.
        if self._watch.items.ran_here(nodeid):
            self._watch.observe(self._config.pluginmanager, "run")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._tally.collected(item.nodeid for item in session.items)  # after deselection

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self._tally.collected(ids)  # xdist's controller collects nothing: its workers do
        self._watch.sources.collected_ids(ids)

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # pytest.exit() ends here as Ctrl-C and `session.shouldstop` do: the session stopped
        # before its end, whatever `returncode` it asked for (the record says exit status 2).
        from gate.evidence.pytest_record import interruption

        self._interrupted = interruption(excinfo.value)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self._tally.add_collection_error(report.nodeid)

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, object, object]:
        # Innermost wrapper: before the JUnit writer (plain) runs, seal the inventory and add it
        # to the report; after it wrote the file, hash it and write the record.
        from gate.evidence.pytest_record import completion_properties, inventory_properties
        from gate.faces.gc_pause import paused_until_cleanup

        paused_until_cleanup(self._config.add_cleanup)  # the end's passes: pytest's own five
        self._watch.observe(self._config.pluginmanager, "end")
        self._inventory = self._watch.inventory(
            self._config, session.items, os.environ,
            (self._tree, self._ignored(), self._roots), self._preloaded)
        self._add_junit_properties(inventory_properties(self._inventory))
        self._add_junit_properties(completion_properties(self._tally.totals(), self._interrupted))
        result = yield
        self._write_record(2 if self._interrupted else int(exitstatus))
        return result

    def _write_record(self, exitstatus: int) -> None:
        from gate.evidence import plugin_session
        from gate.evidence.pytest_record import build_record

        facts = plugin_session.session_facts(
            self._config, self._started, self._tally.totals(), self._tree, exitstatus,
            self._inventory, self._interrupted, (pytest.__version__, __version__), os.environ)
        try:
            plugin_session.write_atomically(
                self._path, json.dumps(build_record(facts), indent=2) + "\n")
        except OSError as exc:
            self._message = f"claim-gate: could not write evidence to {self._path}: {exc}"
            return
        self._message = (f"claim-gate: evidence written to {self._path}:"
                         f" {plugin_session.tree_state(self._tree)}")

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self._message:
            terminalreporter.write_line(self._message)
