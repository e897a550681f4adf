"""The pytest plugin's watch over what could rewrite results (the inventory's collecting half).

Created at the plugin's first hook (`pytest_load_initial_conftests`, tryfirst), before any
conftest is imported: it keeps references to pytest's report internals as they were then,
and scans the hook implementations of `producer_inventory.WATCHED_HOOKS` again after every
test and at session end, so a conftest, a `pytest_plugins` module, a `-p` plugin or a patch
made by the code under test shows up however briefly it was in place. The judgement is
`producer_inventory`'s (pure); this module only observes.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.evidence.producer_inventory import INVENTORY_VERSION, WATCHED_HOOKS, seal

#: pytest's and pluggy's objects a patch would use to change what a report says, and the
#: gate's own counting. (module, attribute path); one missing in this version is skipped.
INTERNALS: tuple[tuple[str, str], ...] = (
    ("pytest", "TestReport"),
    ("_pytest.reports", "TestReport"),
    ("_pytest.reports", "TestReport.__init__"),
    ("_pytest.reports", "TestReport.from_item_and_call"),
    ("_pytest.reports", "CollectReport"),
    ("_pytest.reports", "BaseReport.passed"),
    ("_pytest.reports", "BaseReport.failed"),
    ("_pytest.reports", "BaseReport.skipped"),
    ("_pytest.runner", "CallInfo"),
    ("_pytest.runner", "CallInfo.from_call"),
    ("_pytest.runner", "call_and_report"),
    ("_pytest.runner", "call_runtest_hook"),
    ("_pytest.runner", "runtestprotocol"),
    ("_pytest.runner", "pytest_runtest_protocol"),
    ("_pytest.runner", "pytest_runtest_makereport"),
    ("_pytest.runner", "pytest_runtest_call"),
    ("_pytest.skipping", "pytest_runtest_makereport"),
    ("_pytest.python", "Function"),
    ("_pytest.python", "Function.runtest"),
    ("_pytest.python", "pytest_pyfunc_call"),
    ("_pytest.main", "pytest_runtestloop"),
    ("_pytest.junitxml", "LogXML.pytest_runtest_logreport"),
    ("_pytest.junitxml", "LogXML.pytest_sessionfinish"),
    ("_pytest.junitxml", "LogXML.add_global_property"),
    ("_pytest.terminal", "TerminalReporter.pytest_runtest_logreport"),
    ("_pytest.terminal", "TerminalReporter.summary_stats"),
    ("_pytest.terminal", "TerminalReporter.build_summary_stats_line"),
    ("pluggy", "HookCaller.__call__"),
    ("pluggy", "PluginManager._hookexec"),
    ("pluggy._callers", "_multicall"),
    ("gate.faces.pytest_plugin", "_Recorder.pytest_runtest_logreport"),
    ("gate.faces.pytest_plugin", "_Recorder.pytest_sessionfinish"),
    ("gate.evidence.pytest_record", "Tally.add"),
    ("gate.evidence.pytest_record", "Tally.totals"),
    ("gate.evidence.pytest_record", "build_record"),
    ("gate.evidence.producer_inventory", "derive_findings"),
    ("gate.evidence.producer_inventory", "seal"),
)

_ITEM_METHODS = ("runtest", "setup", "teardown")


def install_dirs() -> tuple[Path, ...]:
    """Where the running interpreter's installed code lives (site-packages, stdlib)."""
    paths = sysconfig.get_paths()
    found = {Path(paths[key]).resolve() for key in ("purelib", "platlib", "stdlib", "platstdlib")
             if key in paths}
    return tuple(sorted(found))


def sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class Origins:
    """Where a file belongs: `gate`, `installed`, `repository` (under the rootdir), `elsewhere`
    or `unknown` (no file: code made by exec, a builtin). Cached: the scan runs per test."""

    def __init__(self, rootdir: Path, gate_dir: Path, installed: Iterable[Path]) -> None:
        self.rootdir = rootdir.resolve()
        self._gate = gate_dir.resolve()
        self._installed = tuple(installed)
        self._cache: dict[str, str] = {}

    def of(self, file: str | None) -> str:
        if not file or file.startswith("<"):
            return "unknown"
        if file not in self._cache:
            path = Path(file).resolve()
            if path.is_relative_to(self._gate):
                origin = "gate"
            elif any(path.is_relative_to(d) for d in self._installed):
                origin = "installed"
            elif path.is_relative_to(self.rootdir):
                origin = "repository"
            else:
                origin = "elsewhere"
            self._cache[file] = origin
        return self._cache[file]

    def shown(self, file: str | None) -> str:
        """A path relative to the rootdir when under it (records are shared, homes are not)."""
        if not file:
            return "<unknown>"
        path = Path(file)
        try:
            return path.resolve().relative_to(self.rootdir).as_posix()
        except (ValueError, OSError):
            return file


def code_file(obj: object) -> str | None:
    """The file whose code runs when `obj` is used (a function, method, class or module)."""
    for attribute in ("__func__", "fget"):
        obj = getattr(obj, attribute, None) or obj
    code = getattr(obj, "__code__", None)
    if code is not None:
        return str(code.co_filename)
    if inspect.isclass(obj) or inspect.ismodule(obj):
        module = sys.modules.get(obj.__module__) if inspect.isclass(obj) else obj
        return getattr(module, "__file__", None)
    return None


def _code(obj: object) -> object:
    for attribute in ("__func__", "fget"):
        obj = getattr(obj, attribute, None) or obj
    return getattr(obj, "__code__", None)


def _resolve(module_name: str, path: str) -> object:
    """The object at `module.path`, looked up statically (a classmethod, not its binding)."""
    found: object = sys.modules.get(module_name) or importlib.import_module(module_name)
    for part in path.split("."):
        found = inspect.getattr_static(found, part)
    return found


@dataclass(frozen=True)
class _Original:
    obj: object
    code: object
    file: str | None


class Watch:
    """One session's observations; the plugin owns it (no global state)."""

    def __init__(self, origins: Origins) -> None:
        self._origins = origins
        self._originals: dict[str, _Original] = {}
        self._replaced: dict[str, object] = {}
        self._hooks: dict[tuple[str, str, int], dict[str, Any]] = {}
        for module_name, path in INTERNALS:
            try:
                obj = _resolve(module_name, path)
            except (ImportError, AttributeError):
                continue  # not in this pytest/pluggy version
            self._originals[f"{module_name}:{path}"] = _Original(obj, _code(obj), code_file(obj))

    def observe(self, pluginmanager: Any, when: str) -> None:
        """Scan the watched hooks and internals now (`when`: load, run or end)."""
        for hook in WATCHED_HOOKS:
            caller = getattr(pluginmanager.hook, hook, None)
            if caller is None:
                continue
            for impl in caller.get_hookimpls():
                key = (hook, str(impl.plugin_name), id(impl.function))
                if key not in self._hooks:
                    self._hooks[key] = self._hook_entry(hook, impl, when)
        for name, original in self._originals.items():
            if name in self._replaced:
                continue
            module_name, path = name.split(":", 1)
            try:
                current = _resolve(module_name, path)
            except (ImportError, AttributeError):
                current = None  # deleted: as replaced as it gets
            if current is not original.obj or _code(current) is not original.code:
                self._replaced[name] = current

    def _hook_entry(self, hook: str, impl: Any, when: str) -> dict[str, Any]:
        file = code_file(impl.function)
        kind = (
            "wrapper" if impl.wrapper or impl.hookwrapper
            else "tryfirst" if impl.tryfirst else "trylast" if impl.trylast else "plain"
        )
        return {
            "hook": hook,
            "plugin": _plugin_name(str(impl.plugin_name), self._origins),
            "function": str(getattr(impl.function, "__qualname__", repr(impl.function)))[:200],
            "file": self._origins.shown(file),
            "origin": self._origins.of(file),
            "kind": kind,
            "plugin_module": str(getattr(impl.plugin, "__name__", type(impl.plugin).__module__)),
            "seen": when,
        }

    def _internal_entry(self, name: str, original: _Original) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "name": name,
            "qualname": str(getattr(original.obj, "__qualname__", ""))
            or str(getattr(getattr(original.obj, "fget", None), "__qualname__", "")),
            "file": self._origins.shown(original.file),
            "id": hex(id(original.obj)),
            "origin": self._origins.of(original.file),
            "unchanged": name not in self._replaced,
        }
        if name in self._replaced:
            replacement_file = code_file(self._replaced[name])
            entry["replacement_file"] = self._origins.shown(replacement_file)
            entry["replacement_origin"] = self._origins.of(replacement_file)
        return entry

    def inventory(
        self, config: Any, patched_items: Iterable[str], environ: Mapping[str, str]
    ) -> dict[str, Any]:
        """The sealed inventory (findings and digest filled in) for the record."""
        hooks = [_with_route(entry, config, environ) for entry in self._hooks.values()]
        plugins = _repository_plugins(config.pluginmanager, self._origins)
        inventory: dict[str, Any] = {
            "version": INVENTORY_VERSION,
            "rootdir": str(self._origins.rootdir),
            "hooks": sorted(hooks, key=lambda e: (e["hook"], e["plugin"], e["function"])),
            "internals": [self._internal_entry(n, o) for n, o in self._originals.items()],
            "patched_items": sorted(set(patched_items))[:100],
            "config": _config_facts(config, self._origins, environ),
            "conftests": [p for p in plugins if p["conftest"]],
            "repository_plugins": [p for p in plugins if not p["conftest"]],
        }
        return seal(inventory)


def _plugin_name(name: str, origins: Origins) -> str:
    """pytest names a conftest plugin by its absolute path: show it relative to the rootdir."""
    return origins.shown(name) if Path(name).is_absolute() else name


def patched_items(items: Iterable[Any]) -> list[str]:
    """Node ids of collected items whose run/setup/teardown was replaced on the item itself."""
    return [
        str(item.nodeid) for item in items
        if any(name in vars(item) for name in _ITEM_METHODS)
    ]


def _plugin_option_names(config: Any) -> list[str]:
    return [str(name) for name in getattr(config.option, "plugins", None) or []]


def _with_route(entry: dict[str, Any], config: Any, environ: Mapping[str, str]) -> dict[str, Any]:
    """How the hook's plugin got in: conftest, pytest_plugins, -p (and from where), ..."""
    module, plugin = entry["plugin_module"], entry["plugin"]
    names = {module, plugin}
    ini = [str(arg) for arg in config.getini("addopts")]
    env = environ.get("PYTEST_ADDOPTS", "")
    inifile = config.inipath.name if config.inipath else "the ini file"
    if entry["file"].endswith("conftest.py"):
        route = "conftest"
    elif names & set(_plugin_option_names(config)):
        source = (
            f"addopts in {inifile}" if any(n in arg for n in names for arg in ini)
            else "PYTEST_ADDOPTS" if any(n in env for n in names) else "the command line"
        )
        route = f"-p {module} ({source})"
    elif module in _declared_pytest_plugins(config.pluginmanager):
        route = f"pytest_plugins = [{module!r}]"
    elif module in environ.get("PYTEST_PLUGINS", "").split(","):
        route = "PYTEST_PLUGINS"
    elif entry["origin"] in ("installed", "gate"):
        route = "installed plugin"
    else:
        route = "registered at run time"
    return {**entry, "route": route}


def _declared_pytest_plugins(pluginmanager: Any) -> set[str]:
    declared: set[str] = set()
    for plugin in pluginmanager.get_plugins():
        value = getattr(plugin, "pytest_plugins", None) if inspect.ismodule(plugin) else None
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list | tuple):
            declared.update(str(name) for name in value)
    return declared


def _repository_plugins(pluginmanager: Any, origins: Origins) -> list[dict[str, Any]]:
    """Plugin modules from outside the installed environment, conftests first, with hashes."""
    found: list[dict[str, Any]] = []
    for name, plugin in pluginmanager.list_name_plugin():
        file = getattr(plugin, "__file__", None) if inspect.ismodule(plugin) else None
        if file is None or origins.of(file) in ("installed", "gate"):
            continue
        found.append({
            "name": _plugin_name(str(name), origins),
            "path": origins.shown(file),
            "sha256": sha256_of(Path(file)),
            "origin": origins.of(file),
            "conftest": Path(file).name == "conftest.py",
        })
    return sorted(found, key=lambda p: (not p["conftest"], p["path"]))


def _config_facts(config: Any, origins: Origins, environ: Mapping[str, str]) -> dict[str, Any]:
    inipath = config.inipath
    return {
        "inifile": origins.shown(str(inipath)) if inipath else None,
        "inifile_sha256": sha256_of(Path(inipath)) if inipath else None,
        "addopts": [str(arg) for arg in config.getini("addopts")][:50],
        "env_addopts": environ.get("PYTEST_ADDOPTS"),
        "plugins": _plugin_option_names(config)[:50],
        "env_plugins": environ.get("PYTEST_PLUGINS"),
        "disable_plugin_autoload": bool(
            environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
            or getattr(config.option, "disable_plugin_autoload", False)
        ),
    }


def junit_report_facts(path: Path, rootdir: Path) -> dict[str, Any]:
    """The JUnit file this run just wrote: its sha256 and totals as the gate will read them,
    so the gate can tell a file rewritten after the run from the one the run wrote."""
    from gate.claim.errors import InvalidInput
    from gate.evidence.junit_reader import read_junit_file

    try:
        shown = path.resolve().relative_to(rootdir.resolve()).as_posix()
    except (ValueError, OSError):
        shown = str(path)
    facts: dict[str, Any] = {"path": shown, "sha256": sha256_of(path)}
    try:
        totals = read_junit_file(path).totals
    except InvalidInput as exc:
        facts["problem"] = str(exc)[:500]
        return facts
    facts["totals"] = {
        "tests": totals.tests, "failures": totals.failures, "errors": totals.errors,
        "skipped": totals.skipped,
    }
    return facts
