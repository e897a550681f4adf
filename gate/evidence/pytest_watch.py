"""The pytest plugin's watch over what could rewrite results (the inventory's collecting half).

Created at the plugin's first hook (`pytest_load_initial_conftests`, tryfirst), before any
conftest is imported: it snapshots the whole namespaces of `WATCHED_NAMESPACES` (pytest's
runner, reports, items, JUnit writer and terminal reporter, pluggy's hook calling, the gate's
own counting), `sys.meta_path` and `sys.path_hooks`, and the implementations of
`producer_inventory.WATCHED_HOOKS`. After every test and at session end it compares them by
identity (a few tuple compares) and rescans the hooks only when the plugin manager's
registrations changed, so a conftest, a `pytest_plugins` module, a `-p` plugin or a patch made
by the code under test shows up when it is in place at a compare (each call report, after
each test, the end); what the interpreter audits (a function's code, a trace function, a
Python file written) is heard as it happens (`audit_watch`), and under xdist each worker
watches its own tests and sends what it saw (`worker_view`). Where a file in site-packages
came from is decided by content (the installed distributions' RECORD hashes). The judgement
is `producer_inventory`'s (pure); this module only observes.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from itertools import chain
from operator import attrgetter, getitem, is_
from pathlib import Path
from typing import Any

from gate.claim.watched_internals import WATCHED_NAMESPACES
from gate.evidence.audit_watch import AuditEnd, AuditWatch
from gate.evidence.content_origin import INSTALLED, RecordIndex
from gate.evidence.git_settings import git_view
from gate.evidence.interpreter_dirs import install_dirs as install_dirs  # for the plugin
from gate.evidence.interpreter_dirs import site_dirs as site_dirs  # and the bench
from gate.evidence.item_state import (
    ITEM_METHODS,
    NAME_GONE,
    NOT_A_FUNCTION,
    ItemWatch,
    defined_lookup,
    own_code,
)
from gate.evidence.producer_inventory import (
    INVENTORY_VERSION,
    MANAGER_SUFFIX,
    WATCHED_HOOKS,
    seal,
)
from gate.evidence.test_sources import SourceWatch, end_facts
from gate.evidence.watch_namespaces import (
    DEEP_ROTATION,
    ROTATION,
    ImportListWatch,
    NamespaceWatch,
    describe_object,
    is_data,
    same_objects,
)
from gate.evidence.worker_view import WorkerViews
from gate.evidence.xdist_channel import XdistChannel

_FUNCTION = attrgetter("function")
_HOOKIMPLS = attrgetter("_hookimpls")
MAX_LISTED_CHANGES = 20


def sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class Origins:
    """Where a file belongs: `gate`, `installed` (site-packages files by RECORD content, the
    standard library by place), `modified` or `unlisted` (in site-packages, but not the bytes
    a distribution installed), `repository` (under the rootdir), `elsewhere` or `unknown` (no
    file: code made by exec, a builtin). Cached: the scan runs per test."""

    def __init__(
        self, rootdir: Path, gate_dir: Path, installed: Iterable[Path],
        site: Iterable[Path] = (), records: RecordIndex | None = None,
    ) -> None:
        self.rootdir = rootdir.resolve()
        self._gate = gate_dir.resolve()
        self._installed = tuple(installed)
        self._site = tuple(site)
        self._records = records or RecordIndex()
        self._cache: dict[str, str] = {}
        self._shown: dict[str, str] = {}
        self._real: dict[str, Path] = {}

    def _resolved(self, file: str) -> Path:
        """The file's real path, worked out once for `of` and `shown` (a resolve is a stat
        per path component)."""
        if file not in self._real:
            self._real[file] = Path(file).resolve()
        return self._real[file]

    def of(self, file: str | None) -> str:
        if not file or file.startswith("<"):
            return "unknown"
        if file not in self._cache:
            self._cache[file] = self._origin(self._resolved(file))
        return self._cache[file]

    def _origin(self, path: Path) -> str:
        site = next((d for d in self._site if path.is_relative_to(d)), None)
        if site is not None:
            verdict = self._records.verdict(path, site)
            if verdict == INSTALLED:
                return "gate" if path.is_relative_to(self._gate) else "installed"
            return verdict
        if path.is_relative_to(self._gate):
            return "gate"  # outside site-packages: an editable install or a source checkout
        if any(path.is_relative_to(d) for d in self._installed):
            return "installed"
        return "repository" if path.is_relative_to(self.rootdir) else "elsewhere"

    def shown(self, file: str | None) -> str:
        """A path relative to the rootdir when under it (records are shared, homes are not)."""
        if not file:
            return "<unknown>"
        if file not in self._shown:  # asked again for each hook of a plugin: resolved once
            try:
                self._shown[file] = self._resolved(file).relative_to(self.rootdir).as_posix()
            except (ValueError, OSError):
                self._shown[file] = file
        return self._shown[file]


def code_file(obj: object) -> str | None:
    """The file whose code runs when `obj` is used (a function, method, class or module)."""
    for attribute in ("__func__", "fget"):
        obj = getattr(obj, attribute, None) or obj
    code = getattr(obj, "__code__", None)
    if code is not None:
        return str(code.co_filename)
    if inspect.iscode(obj):
        return str(obj.co_filename)
    if inspect.isclass(obj) or inspect.ismodule(obj):
        module = sys.modules.get(obj.__module__) if inspect.isclass(obj) else obj
        return getattr(module, "__file__", None)
    return None if obj is None else code_file(type(obj))  # an instance: its class's file


def _hook_objects(pluginmanager: Any) -> tuple[list[object], list[Any]]:
    """The watched hook callers with their implementations, and the implementations alone
    (whose `function` is what they call): the same objects mean the registrations did not
    change (no rescan needed)."""
    relay = vars(pluginmanager.hook)
    callers = [relay.get(name) for name in WATCHED_HOOKS]
    impls = list(chain.from_iterable(
        getattr(caller, "_hookimpls", None) or caller.get_hookimpls()
        for caller in callers if caller is not None
    ))
    return [*callers, *impls], impls


#: One turn of the hook compare: callers and the lists they held (with copies), then
#: implementations as (their list, index) places, the implementations and their functions.
_HookTurn = tuple[list[object], list[Any], list[Any], list[Any], list[int], list[Any],
                  list[object]]


def _hook_turns(callers: list[Any], lists: list[Any], copies: list[Any]) -> tuple[
        _HookTurn, ...]:
    """The hook compare cut in DEEP_ROTATION turns, each read by C-level loops only: every
    DEEP_ROTATION-th caller (with the list it holds), and every DEEP_ROTATION-th
    implementation of all the lists (so each turn reads two or three)."""
    places = [(i, j) for i, listed in enumerate(copies) for j in range(len(listed or ()))]
    turns = []
    for turn in range(DEEP_ROTATION):
        held = [i for i in range(turn, len(callers), DEEP_ROTATION) if callers[i] is not None]
        part = places[turn::DEEP_ROTATION]
        turns.append(([callers[i] for i in held], [lists[i] for i in held],
                      [copies[i] for i in held], [lists[i] for i, _ in part],
                      [j for _, j in part], [copies[i][j] for i, j in part],
                      [copies[i][j].function for i, j in part]))
    return tuple(turns)


def _entries_same(turn: _HookTurn) -> bool:
    """The implementations of one turn are still the very objects at their places, calling
    the very functions (`is` only: an entry may answer `==` as it likes)."""
    _, _, _, held, places, impls, functions = turn
    try:
        return all(map(is_, map(getitem, held, places), impls)) and all(
            map(is_, map(_FUNCTION, impls), functions))
    except Exception:  # a list shortened in place, a slot emptied
        return False


class Watch:
    """One session's observations; the plugin owns it (no global state)."""

    def __init__(self, origins: Origins, environ: Mapping[str, str]) -> None:
        self._origins = origins
        #: git as found at load: every git the plugin runs gets this environment (`git_settings`).
        self.git = git_view(origins.rootdir, environ)
        self._namespaces = NamespaceWatch.take(WATCHED_NAMESPACES)
        self._imports = ImportListWatch.take()
        self.sources = SourceWatch(origins.rootdir)
        #: The item check, a pytest plugin of its own: the recorder registers it.
        self.items = ItemWatch(lambda value: origins.shown(code_file(own_code(value))),
                               describe_object)
        #: What the audit events show as it happens (heard from `register` to unconfigure).
        self.audit = AuditWatch(self._namespaces, origins.of, origins.shown,
                                self.items.heard_function_write)
        self._hooks: dict[tuple[str, str, int], dict[str, Any]] = {}
        self._hook_objects: list[object] = []
        self._hook_functions: list[object] = []
        self._turn = 0
        self._manager: tuple[object, ...] = ()
        self._callers: list[object] = []
        self._lists: list[Any] | None = None
        self._copies: list[Any] = []
        self._turns: tuple[_HookTurn, ...] = ()
        self._tags: bool | None = None
        self._import_lengths = (0, 0)
        #: What the xdist workers' watches saw (empty in a single process).
        self.workers = WorkerViews()

    def register(self, pluginmanager: Any) -> None:
        """Register the watch's own pytest plugins: the item check, and under xdist the
        channel that brings what each worker saw to the controller."""
        self.items.check_at_call(lambda: self.observe_at_report(pluginmanager))
        pluginmanager.register(self.items, "claim-gate-item-watch")
        if self.audit.start():  # each code write is heard: the compares need not read code
            self._namespaces.code_heard = True
            self.items.code_writes_heard()
        pluginmanager.register(AuditEnd(self.audit), "claim-gate-audit-end")
        pluginmanager.register(XdistChannel(self.sources, self.items, _Relay(self, pluginmanager)),
                               "claim-gate-xdist-channel")

    def observe(self, pluginmanager: Any, when: str) -> None:
        """Compare everything watched with its snapshot now (`when`: load, run or end)."""
        self.audit.check_held()
        if when == "run" and self._tags is not None:
            self._turn = turn = (self._turn + 1) % DEEP_ROTATION
            namespaces = self._namespaces.unchanged_by_version()
            if namespaces and self._quiet(turn):
                return
        else:
            namespaces = self._namespaces.unchanged(full=when != "run")
        self._observe_hooks(pluginmanager, when)
        if not namespaces:
            self._namespaces.record_changes(when)
        self._imports.observe(when)
        self._observe_manager(pluginmanager, when)
        self._take_tags(pluginmanager)

    def observe_at_report(self, pluginmanager: Any) -> None:
        """At the moment pytest made a test's call report (the one that says pass or fail):
        if any watched dict, the plugin manager's included, was written since the last
        compare, compare everything now, while a patch a fixture or the test put in for this
        one test is still in place (it may be undone before the test ends, and the compare
        after the test would find nothing), and a plugin registered for this test still is.
        One read of each dict's tag otherwise; with no tags, the compare after each test is
        all there is."""
        self.audit.check_held()
        if self._tags is not None and not self._namespaces.tags_unmoved():
            self.observe(pluginmanager, "call")

    def _take_tags(self, pluginmanager: Any) -> None:
        """The version tags of the plugin manager's own dicts (its attributes, its plugins by
        name, its hook relay), read with the namespaces' where the interpreter keeps them: a
        registration, a hook caller rebound or `hook`/`_inner_hookexec` replaced on the
        instance writes one."""
        dicts = [getattr(pluginmanager, "__dict__", None),
                 getattr(pluginmanager, "_name2plugin", None),
                 getattr(pluginmanager.hook, "__dict__", None)]
        if self._namespaces.versions is None or not all(type(d) is dict for d in dicts):
            self._tags = None  # no tags here: every test takes the whole compare
            self._namespaces.tag_also([])
            return
        self._namespaces.tag_also(dicts)  # type: ignore[arg-type]
        self._tags = True
        self._import_lengths = (len(sys.meta_path), len(sys.path_hooks))

    def _quiet(self, turn: int) -> bool:
        """After the namespaces' and the manager's tags (read together): the import lists
        kept their lengths, and one part in turn of what no dict write shows (a
        DEEP_ROTATION-th of the hook callers' lists and implementations, the import lists'
        entries) is still the very objects. A change of that kind is seen if it stays
        DEEP_ROTATION tests, and always at the end, when everything is compared. C-level loops
        over lists made at the last rescan: inside a session each object read is a miss."""
        if (len(sys.meta_path), len(sys.path_hooks)) != self._import_lengths:
            return False
        if turn == 0 and not self._imports.same():
            return False
        if self._lists is None:
            return False
        part = self._turns[turn]
        callers, lists, copies = part[:3]
        try:
            if not all(map(is_, map(_HOOKIMPLS, callers), lists)) or lists != copies:
                return False
        except Exception:  # a slot emptied, an entry's `==` raising
            return False
        return _entries_same(part)

    def _observe_hooks(self, pluginmanager: Any, when: str) -> None:
        if when == "run" and self._hooks_same(pluginmanager):
            return
        objects, impls = _hook_objects(pluginmanager)
        functions = list(map(_FUNCTION, impls))
        if not same_objects(objects, self._hook_objects, None) or not same_objects(
                functions, self._hook_functions, None):
            self._scan_hooks(pluginmanager, when)
        self._remember_hooks(pluginmanager, objects, impls, functions)

    def _remember_hooks(self, pluginmanager: Any, objects: list[object], impls: list[Any],
                        functions: list[object]) -> None:
        relay = vars(pluginmanager.hook)
        callers = list(map(relay.get, WATCHED_HOOKS))
        lists = [getattr(caller, "_hookimpls", None) for caller in callers]
        self._hook_objects, self._hook_functions = objects, functions
        self._callers = callers
        self._lists = lists if all(type(x) is list for x in lists if x is not None) else None
        self._copies = [None if x is None else list(x) for x in lists]
        self._turns = _hook_turns(callers, lists, self._copies) if self._lists else ()

    def _hooks_same(self, pluginmanager: Any) -> bool:
        """The hook compare where no tag stands for the relay: the same hook callers, read
        from the relay, holding the very lists of implementations they held with the same
        entries (a list compare by pointer, no entry read), and an eighth of the
        implementations and the functions they call compared by `is` (an entry that answers
        `==` as it likes meets `is`)."""
        if self._lists is None:
            return False
        relay = vars(pluginmanager.hook)
        callers = list(map(relay.get, WATCHED_HOOKS))
        if not all(map(is_, callers, self._callers)):
            return False
        self._turn = (self._turn + 1) % DEEP_ROTATION
        listed = [getattr(c, "_hookimpls", None) for c in callers]
        if not all(map(is_, listed, self._lists)) or listed != self._copies:
            return False
        return all(_entries_same(self._turns[t])
                   for t in range(self._turn % ROTATION, DEEP_ROTATION, ROTATION))

    def _observe_manager(self, pluginmanager: Any, when: str) -> None:
        """The session's plugin manager calls every hook through two of its own attributes;
        replacing either on the instance bypasses every class the namespaces watch."""
        current = (pluginmanager, pluginmanager.hook, vars(pluginmanager).get("_inner_hookexec"))
        if not self._manager or current[0] is not self._manager[0]:
            self._manager = current
            return
        for name, before, now in zip(("hook", "_inner_hookexec"), self._manager[1:], current[1:],
                                     strict=True):
            if now is not before:
                self._namespaces.changes.setdefault("pluggy._manager:PluginManager", {}).setdefault(
                    f"{name} {MANAGER_SUFFIX}", ("replaced", now, when))

    def _scan_hooks(self, pluginmanager: Any, when: str) -> None:
        for hook in WATCHED_HOOKS:
            caller = getattr(pluginmanager.hook, hook, None)
            if caller is None:
                continue
            for impl in caller.get_hookimpls():
                key = (hook, str(impl.plugin_name), id(impl.function))
                if key not in self._hooks:
                    self._hooks[key] = self._hook_entry(hook, impl, when)

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

    def seen_here(self, pluginmanager: Any) -> dict[str, list[dict[str, Any]]]:
        """In an xdist worker at its session end: everything compared once more, and what
        this process's watch found, for the controller's inventory (`worker_view`)."""
        self.observe(pluginmanager, "end")
        return {
            "internal_changes": [{"namespace": name, **entry} for name in self._namespaces.changes
                                 for entry in self._changes_of(name)],
            "hooks": list(self._hooks.values()),
            "import_hooks": self._import_hook_entries(),
            "trace_functions": list(self.audit.traces),
            "written_files": [{"path": path, "event": event}
                              for path, event in self.audit.written.items()],
            "listening": [{"listening": self.audit.listening()}],
        }

    def _changes_of(self, name: str) -> list[dict[str, Any]]:
        originals = self._namespaces.originals.get(name, {})
        return [self._change_entry(key, what, now, seen, originals.get(key))
                for key, (what, now, seen) in self._namespaces.changes.get(name, {}).items()]

    def _internal_entries(self) -> list[dict[str, Any]]:
        watched = self._namespaces
        entries: list[dict[str, Any]] = []
        for name in WATCHED_NAMESPACES:
            if name in watched.absent:
                entries.append({"name": name, "present": False, "problem": watched.absent[name],
                                "unchanged": False, "origin": "unknown", "file": "<unknown>"})
                continue
            snapshot = watched.snapshots[name]
            file = code_file(snapshot.owner)
            own = self._changes_of(name)
            changes = [*own, *self.workers.changes_beside(name, own)]
            entries.append({
                "name": name, "present": True, "names": len(snapshot.keys),
                "file": self._origins.shown(file), "origin": self._origins.of(file),
                "unchanged": not changes, "changes": changes[:MAX_LISTED_CHANGES],
            })
        return entries

    def _change_entry(
        self, key: str, what: str, now: object, seen: str, was: object
    ) -> dict[str, Any]:
        file = code_file(now) if now is not None else None
        was_file = code_file(was) if was is not None else None
        return {"name": key, "change": what, "now": describe_object(now), "seen": seen,
                "data": is_data(now), "file": self._origins.shown(file),
                "origin": self._origins.of(file), "was_file": self._origins.shown(was_file),
                "was_origin": self._origins.of(was_file)}

    def _import_hook_entries(self) -> list[dict[str, Any]]:
        entries = []
        for listed, entry, seen in self._imports.added:
            file = code_file(entry)
            named = entry if inspect.isroutine(entry) or inspect.isclass(entry) else type(entry)
            entries.append({"list": listed, "what": describe_object(named),
                            "file": self._origins.shown(file), "origin": self._origins.of(file),
                            "seen": seen})
        return [*entries, *self.workers.imports_beside(entries)][:MAX_LISTED_CHANGES]

    def inventory(
        self, config: Any, items: Iterable[Any], environ: Mapping[str, str],
        tree: tuple[Any, list[Path], Iterable[Path]] | None = None,
        preloaded: Iterable[Mapping[str, str]] = (),
    ) -> dict[str, Any]:
        """The sealed inventory (findings and digest filled in, once) for the record, `items`
        the session's collected items, `preloaded` the repository's code that ran before the
        plugin (`plugin_preload`); with `tree`
        (the start's TreeState, the ignored files, the import roots) also the test modules
        against the commit and the tree probed again at the end (`test_sources`)."""
        written = [*self.audit.written, *self.workers.written]
        ended = end_facts(self.sources, tree[0], self._origins.rootdir, tree[1], self.git,
                          tree[2], written) if tree else {}
        own = list(self._hooks.values())
        hooks = list(map(_router(config, environ), [*own, *self.workers.hooks_beside(own)]))
        plugins = _repository_plugins(config.pluginmanager, self._origins)
        inventory: dict[str, Any] = {
            "version": INVENTORY_VERSION,
            "rootdir": str(self._origins.rootdir),
            "hooks": sorted(hooks, key=lambda e: (e["hook"], e["plugin"], e["function"])),
            "internals": self._internal_entries(),
            "import_hooks": self._import_hook_entries(),
            "trace_functions": [*self.audit.traces, *self.workers.traces_beside(self.audit.traces)],
            "audit": {"listening": self.audit.listening() and self.workers.all_listening},
            "patched_items": sorted(set(patched_items(items)))[:100],
            **self.items.entries(),
            "config": _config_facts(config, self._origins, environ),
            "conftests": [p for p in plugins if p["conftest"]],
            "repository_plugins": [p for p in plugins if not p["conftest"]],
            **ended,
            "preloaded": [dict(entry) for entry in preloaded],
        }
        return seal(inventory)


class _Relay:
    """The watch as the xdist channel uses it, bound to the session's plugin manager."""

    def __init__(self, watch: Watch, pluginmanager: Any) -> None:
        self._watch = watch
        self._manager = pluginmanager

    def after_test(self) -> None:
        self._watch.observe(self._manager, "run")

    def seen_here(self) -> dict[str, list[dict[str, Any]]]:
        return self._watch.seen_here(self._manager)

    def merge(self, view: object, worker: str) -> str | None:
        return self._watch.workers.merge(view, worker)


def _plugin_name(name: str, origins: Origins) -> str:
    """pytest names a conftest plugin by its absolute path: show it relative to the rootdir."""
    return origins.shown(name) if Path(name).is_absolute() else name


def patched_items(items: Iterable[Any]) -> list[str]:
    """Node ids of collected items whose run/setup/teardown was replaced on the item itself,
    or whose test function is no longer the one its module or class defines (`item.obj = f`
    from a fixture: pytest then calls `f`)."""
    return [
        str(item.nodeid) for item in items
        if any(name in vars(item) for name in ITEM_METHODS) or _function_replaced(item)
    ]


def _function_replaced(item: Any) -> bool:
    current = vars(item).get("_obj")
    defined = defined_lookup(item) if current is not None else NOT_A_FUNCTION
    if defined is NOT_A_FUNCTION:
        return False  # not a python test function, or never looked up
    return defined is NAME_GONE or getattr(current, "__func__", current) is not defined


def _plugin_option_names(config: Any) -> list[str]:
    return [str(name) for name in getattr(config.option, "plugins", None) or []]


def _router(config: Any, environ: Mapping[str, str]
            ) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What adds to a hook entry how its plugin got in (conftest, pytest_plugins, -p and from
    where, ...), with what tells it read from the config once per inventory, not once for each
    of a session's hundred hooks."""
    options = set(_plugin_option_names(config))
    declared = _declared_pytest_plugins(config.pluginmanager)
    ini = [str(arg) for arg in config.getini("addopts")]
    env = environ.get("PYTEST_ADDOPTS", "")
    env_plugins = environ.get("PYTEST_PLUGINS", "").split(",")
    inifile = config.inipath.name if config.inipath else "the ini file"

    def with_route(entry: dict[str, Any]) -> dict[str, Any]:
        module, plugin = entry["plugin_module"], entry["plugin"]
        names = {module, plugin}
        if entry["file"].endswith("conftest.py"):
            route = "conftest"
        elif names & options:
            source = (
                f"addopts in {inifile}" if any(n in arg for n in names for arg in ini)
                else "PYTEST_ADDOPTS" if any(n in env for n in names) else "the command line"
            )
            route = f"-p {module} ({source})"
        elif module in declared:
            route = f"pytest_plugins = [{module!r}]"
        elif module in env_plugins:
            route = "PYTEST_PLUGINS"
        elif entry["origin"] in ("installed", "gate"):
            route = "installed plugin"
        else:
            route = "registered at run time"
        return {**entry, "route": route}

    return with_route


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


def junit_report_facts(path: Path, rootdir: Path, reruns: bool = False) -> dict[str, Any]:
    """The JUnit file this run just wrote: its sha256 and totals as the gate will read them,
    so the gate can tell a file rewritten after the run from the one the run wrote. After
    `reruns` (pytest-rerunfailures), each attempt is a case of its own in the file: its
    totals are read with repeated cases as attempts of one test, as the record counts them
    (pytest's node ids are unique, so a repeated case of its writer is another attempt)."""
    from gate.claim.errors import InvalidInput
    from gate.claim.junit_options import JUnitOptions, Reruns
    from gate.evidence.junit_reader import read_junit_file

    try:
        shown = path.resolve().relative_to(rootdir.resolve()).as_posix()
    except (ValueError, OSError):
        shown = str(path)
    facts: dict[str, Any] = {"path": shown}
    try:
        read = read_junit_file(path, options=JUnitOptions(
            Reruns.REPEATED_CASES if reruns else Reruns.SEPARATE))
    except InvalidInput as exc:
        facts["sha256"] = sha256_of(path)
        facts["problem"] = str(exc)[:500]
        return facts
    facts["sha256"] = read.sha256  # of the very bytes counted (the reader hashes as it reads)
    totals = read.totals
    facts["totals"] = {
        "tests": totals.tests, "failures": totals.failures, "errors": totals.errors,
        "skipped": totals.skipped,
    }
    return facts
