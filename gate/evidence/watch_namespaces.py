"""Cheap identity snapshots of whole namespaces (a module's or a class's `__dict__`).

The watch compares them after every test, so the common case (nothing changed) must cost a
few tuple compares: the ids of the namespace's keys, of its values and of the code objects of
the functions it holds, taken at load. The snapshot keeps the original objects alive, so an
id seen at load can never be reused by a replacement. Only when a compare fails is the
namespace diffed name by name (what was replaced, added or removed) and the baseline taken
again, so a patch that stays in place costs the diff once.

Inside a real session the values are cold in the CPU's caches after each test, so even a
pointer-only pass over ~1,300 of them costs ~190 us a test (three times what a hot loop
says). Where CPython keeps a per-dict version tag that moves on every write (PEP 509; probed
at load, `dict_versions`), the per-test compare reads one tag per namespace instead and diffs
only when one moved; one namespace a test (rotating) and every one at the end are still
compared object by object, which also catches a write made behind the tag's back.
"""

from __future__ import annotations

import builtins
import gc
import importlib
import inspect
import operator
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter, is_
from types import CodeType, FunctionType, ModuleType
from typing import Any

from gate.claim.watched_internals import split_name

_CODE = attrgetter("__code__")
TAG_VALUE = attrgetter("value")  # a version tag's view

#: Per test, `is` checks one element in ROTATION (after `==` checked them all).
ROTATION = 8

#: Where version tags show every dict write, what no dict write shows (a function's
#: `__code__` swapped where no audit listener hears it, an entry written behind the tag's
#: back) is compared a DEEP_ROTATION-th at a time: each read costs a cache miss inside a
#: session.
DEEP_ROTATION = 32

#: Names (with their objects) compared by `is` per test in the tags' spot check.
SPOT_NAMES = 8


def dict_versions() -> Callable[[dict[str, Any]], Any] | None:
    """A maker of live views of a dict's version tag (`view(d).value`), or None where this
    interpreter has none that moves on every write. CPython 3.11-3.13 keep `ma_version_tag`
    right after `ma_used` in every dict, set from one counter that only rises on each
    write; the layout and the behaviour are checked on a probe dict here (a build with other
    fields, or a version that stops rising, gets None and the object-by-object compare)."""
    if sys.implementation.name != "cpython" or hasattr(sys, "getobjects"):
        return None  # another interpreter, or a trace-refs build (two more header fields)
    try:
        import ctypes
    except ImportError:  # pragma: no cover - a CPython built without it
        return None

    word = ctypes.sizeof(ctypes.c_ssize_t)
    if word != ctypes.sizeof(ctypes.c_uint64):
        return None

    def view(namespace: dict[str, Any]) -> Any:
        return ctypes.c_uint64.from_address(id(namespace) + 3 * word)

    probe: dict[str, Any] = {"a": object()}
    used, tag = ctypes.c_ssize_t.from_address(id(probe) + 2 * word), view(probe)
    seen = [tag.value]
    probe["a"] = object()  # replaced
    seen.append(tag.value)
    probe["b"] = 1  # added
    seen.append(tag.value)
    del probe["a"]  # removed
    seen.append(tag.value)
    probe.update(c=2)
    seen.append(tag.value)
    rising = all(map(operator.lt, seen, seen[1:]))  # the per-test compare sums them
    return view if used.value == len(probe) and rising else None


def _functions(value: object) -> list[FunctionType]:
    """The plain functions whose code runs when `value` is called or read (by type only: a
    lookup on an arbitrary object could run its `__getattr__`)."""
    if isinstance(value, classmethod | staticmethod):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset) if isinstance(f, FunctionType)]
    return [value] if isinstance(value, FunctionType) else []


def owner_of(name: str) -> object:
    """The module or class a watched name stands for (ImportError/AttributeError if absent)."""
    module_name, cls = split_name(name)
    module: object = sys.modules.get(module_name) or importlib.import_module(module_name)
    return module if cls is None else inspect.getattr_static(module, cls)


def _codes_of(value: object) -> list[CodeType]:
    """Code objects whose names a module's or class's code looks up (nested ones too)."""
    found = [f.__code__ for f in _functions(value)]
    if isinstance(value, type):
        for member in vars(value).values():
            found.extend(f.__code__ for f in _functions(member))
    pending, codes = list(found), []
    while pending:
        code = pending.pop()
        codes.append(code)
        pending.extend(c for c in code.co_consts if isinstance(c, CodeType))
    return codes


def watched_keys(owner: object, namespace: Mapping[str, object]) -> tuple[str, ...]:
    """The names whose identity is compared: a class's every name (an instance reads them all);
    in a module, every function and class it holds (defined or re-exported) and every name
    its own code looks up (`_pytest.runner.TestReport`: what the runner calls through), not
    its plain data or imported modules."""
    if not isinstance(owner, ModuleType):
        return tuple(namespace)
    callables = [key for key, value in namespace.items() if isinstance(value, FunctionType | type)]
    referenced = {
        name for key in callables
        if getattr(namespace[key], "__module__", None) == owner.__name__
        for code in _codes_of(namespace[key]) for name in code.co_names
    }
    wanted = referenced.union(callables)
    return tuple(key for key in namespace if key in wanted)


@dataclass(frozen=True)
class Snapshot:
    """One namespace as it was when taken: the objects (kept alive) and their ids."""

    name: str
    owner: object
    namespace: Mapping[str, object]
    #: The watched names and their objects, as two tuples (a pair each would be a thousand
    #: more objects for the cyclic collector to walk in every full pass of the session).
    keys: tuple[str, ...]
    objects: tuple[object, ...]
    length: int
    values: tuple[int, ...]
    functions: tuple[FunctionType, ...]
    keys_of_functions: tuple[str, ...]
    codes: tuple[int, ...]

    @classmethod
    def take(cls, name: str, owner: object) -> Snapshot:
        namespace = namespace_of(owner)
        keys = watched_keys(owner, namespace)
        objects = tuple(namespace[key] for key in keys)
        pairs, seen = [], set()
        for key, value in zip(keys, objects, strict=True):
            for function in _functions(value):
                if id(function) not in seen:  # a re-export is the same function
                    seen.add(id(function))
                    pairs.append((key, function))
        functions = tuple(f for _, f in pairs)
        return cls(
            name, owner, namespace, keys, objects, len(namespace),
            tuple(map(id, namespace.values())), functions, tuple(key for key, _ in pairs),
            tuple(map(id, map(_CODE, functions))),
        )

    def named(self) -> dict[str, object]:
        """The watched names with their objects as taken."""
        return dict(zip(self.keys, self.objects, strict=True))

    def same(self) -> bool:
        """Is the namespace, name for name and code for code, still the snapshot?"""
        try:
            return (
                len(self.namespace) == self.length
                and tuple(map(id, self.namespace.values())) == self.values
                and tuple(map(id, map(_CODE, self.functions))) == self.codes
            )
        except RuntimeError:
            return False  # a watched name was removed

    def differences(self) -> list[tuple[str, str, object]]:
        """(name, what happened, the object now there) for each change since the snapshot;
        a name a module's code never looks up, or a submodule imported into its package, is
        not a change."""
        now = dict(self.owner.__dict__)
        before = self.named()
        changes: list[tuple[str, str, object]] = []
        for key, value in before.items():
            if key not in now:
                changes.append((key, "removed", None))
            elif now[key] is not value:
                changes.append((key, "replaced", now[key]))
        added = set(now) - set(before)
        if isinstance(self.owner, ModuleType):
            added &= set(watched_keys(self.owner, now))
        for key in sorted(added):
            if not _own_submodule(self.owner, key, now[key]):
                changes.append((key, added_kind(self.owner, key), now[key]))
        for key, function, code in zip(self.keys_of_functions, self.functions, self.codes,
                                       strict=True):
            if id(function.__code__) != code:
                changes.append((key, "code replaced", function.__code__))
        return changes


def namespace_of(owner: object) -> Mapping[str, object]:
    """The dict itself: a module's `__dict__`, or the dict behind a class's read-only proxy
    (the same object for the class's life; reading it directly is cheaper per test)."""
    namespace = owner.__dict__
    if isinstance(namespace, dict):
        return namespace
    behind = [r for r in gc.get_referents(namespace) if isinstance(r, dict)]
    return behind[0] if len(behind) == 1 else namespace


def added_kind(owner: object, key: str) -> str:
    """An added name is new, or hides one the code would otherwise have found (inherited by
    the class, or a builtin for a module's code): only a new one can be pytest's own setup."""
    if isinstance(owner, type):
        hides = any(key in vars(base) for base in owner.__mro__[1:])
        return "added over an inherited name" if hides else "added"
    return "added over a builtin" if hasattr(builtins, key) else "added"


def is_data(value: object) -> bool:
    """Plain data: neither callable nor a descriptor (a flag pytest sets on a class)."""
    return not callable(value) and not hasattr(type(value), "__get__")


def _own_submodule(owner: object, key: str, value: object) -> bool:
    return (
        isinstance(owner, ModuleType) and isinstance(value, ModuleType)
        and value.__name__ == f"{owner.__name__}.{key}"
    )


def same_objects(now: list[Any], before: list[Any], turn: int | None) -> bool:
    """`now` holds the very objects of `before`: `==` over all (pointer-fast for identical
    elements), then `is` over every ROTATION-th from `turn` (None: over all)."""
    try:
        if len(now) != len(before) or now != before:
            return False
    except Exception:
        return False
    if turn is None:
        return all(map(is_, now, before))
    return all(map(is_, now[turn::ROTATION], before[turn::ROTATION]))


@dataclass
class NamespaceWatch:
    """Every watched namespace of one session, with what changed in each (first sight kept)."""

    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)
    changes: dict[str, dict[str, tuple[str, object, str]]] = field(default_factory=dict)
    modules: dict[str, ModuleType] = field(default_factory=dict)

    baseline: list[object] = field(default_factory=list)
    originals: dict[str, dict[str, object]] = field(default_factory=dict)
    codes: list[object] = field(default_factory=list)
    turn: int = 0
    functions: tuple[FunctionType, ...] = ()
    #: The version tags' views (the namespaces' dicts, then `sys.modules`); None: no tags.
    versions: Callable[[dict[str, Any]], Any] | None = None
    views: list[Any] = field(default_factory=list)
    #: The same views but `sys.modules`' (the ones summed).
    dict_views: tuple[Any, ...] = ()
    #: The sum of the watched dicts' tags (all views but `sys.modules`'), and that one's tag.
    tag_sum: int = 0
    modules_tag: int = 0
    #: Snapshots the tags cannot stand for (a class whose dict was not found behind its proxy).
    untagged: tuple[Snapshot, ...] = ()
    spot: int = 0
    #: Every write to a watched function's code is heard as it happens (`audit_watch`): the
    #: per-test compares skip their turn of code objects (each read is an audit event too).
    code_heard: bool = False
    slices: tuple[tuple[tuple[FunctionType, ...], tuple[object, ...]], ...] = ()
    #: The tags' spot check: SPOT_NAMES names a test, in turn, as (dicts, names, objects).
    spots: tuple[tuple[tuple[Any, ...], ...], ...] = ()
    extra: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def take(cls, names: tuple[str, ...], by_version: bool = True) -> NamespaceWatch:
        """Snapshots of `names`; `by_version` False: the object-by-object compare per test
        even where the interpreter keeps dict version tags."""
        watch = cls(versions=dict_versions() if by_version else None)
        for name in names:
            try:
                owner = owner_of(name)
            except (ImportError, AttributeError) as exc:
                watch.absent[name] = f"{type(exc).__name__}: {exc}"[:200]
                continue
            watch.snapshots[name] = Snapshot.take(name, owner)
            watch.originals[name] = watch.snapshots[name].named()
            if isinstance(owner, ModuleType):
                watch.modules[name] = owner
        watch.rebaseline()
        return watch

    def rebaseline(self) -> None:
        """Every function once (pytest re-exports many), then the fingerprint to compare."""
        every = chain.from_iterable([s.functions for s in self.snapshots.values()])
        self.functions = tuple({id(f): f for f in every}.values())
        self.codes = list(map(_CODE, self.functions))
        by_place = sorted(self.functions, key=id)  # neighbours in memory: fewer pages a test
        size = -(-len(by_place) // DEEP_ROTATION)
        parts = [tuple(by_place[turn * size:(turn + 1) * size]) for turn in range(DEEP_ROTATION)]
        self.slices = tuple((part, tuple(map(_CODE, part))) for part in parts)
        named = [(s.namespace, key, value) for s in self.snapshots.values()
                 if type(s.namespace) is dict for key, value in zip(s.keys, s.objects,
                                                                    strict=True)]
        self.spots = tuple(
            tuple(zip(*named[start:start + SPOT_NAMES], strict=True))
            for start in range(0, len(named), SPOT_NAMES))
        self.baseline = self.current()
        self.tag_also(self.extra)

    def tag_also(self, dicts: list[dict[str, Any]]) -> None:
        """Compare these dicts' tags too, per test (the plugin manager's own: the watch
        reads them in the same pass); without version tags, nothing."""
        self.extra = dicts
        if self.versions is not None:
            tagged = [s.namespace for s in self.snapshots.values() if type(s.namespace) is dict]
            self.untagged = tuple(
                s for s in self.snapshots.values() if type(s.namespace) is not dict)
            self.views = [*map(self.versions, [*tagged, *dicts]), self.versions(sys.modules)]
            self.dict_views = tuple(self.views[:-1])  # read twice a test: no slice each time
            self.tag_sum = sum(map(TAG_VALUE, self.dict_views))
            self.modules_tag = TAG_VALUE(self.views[-1])

    def current(self) -> list[object]:
        """Every namespace's values and the watched modules in `sys.modules`, gathered by
        C-level loops that read the dicts' entries only (no object is touched)."""
        found: list[object] = list(chain.from_iterable(
            [s.namespace.values() for s in self.snapshots.values()]))
        found.extend(map(sys.modules.get, self.modules))
        return found

    def unchanged(self, full: bool) -> bool:
        """Is every object still the very one of the baseline? The hot path, after every test:
        `==` over the lists (a C loop that answers identical elements by pointer, calling
        nothing), then `is` over a rotating eighth of them and of the functions' code objects
        (`full`, at the end: all), since a replacement may answer `==` as it likes (`mock.ANY`
        does) and reading every function's `__code__` costs a cache miss each. A change that
        stays eight tests, or to the end, meets `is`."""
        if self.versions is not None and not full:
            return self.unchanged_by_version()
        turn = None if full else (self.turn + 1) % ROTATION
        self.turn = turn or 0
        step = 1 if turn is None else ROTATION
        if not same_objects(self.current(), self.baseline, turn):
            return False
        if turn is not None and self.code_heard:
            return True
        return all(
            map(is_, map(_CODE, self.functions[turn or 0::step]), self.codes[turn or 0::step]))

    def unchanged_by_version(self) -> bool:
        """The per-test compare where dicts carry version tags: the tags have not moved
        (`tags_unmoved`), SPOT_NAMES names in turn still the very objects of the snapshot (a
        write behind the tag's back, e.g. through ctypes, is seen within one pass over them),
        and a DEEP_ROTATION-th of the code objects (none where `code_heard`: the audit
        listener hears each write to them, and each read of one is an audit event)."""
        if not self.tags_unmoved():
            return False
        if self.spots:
            self.spot = (self.spot + 1) % len(self.spots)
            namespaces, keys, values = self.spots[self.spot]
            if not all(map(is_, map(dict.get, namespaces, keys), values)):
                return False
        if self.untagged and not all(s.same() for s in self.untagged):
            return False
        if self.code_heard:
            return True
        self.turn = (self.turn + 1) % DEEP_ROTATION
        functions, codes = self.slices[self.turn] if self.slices else ((), ())
        return all(map(is_, map(_CODE, functions), codes))

    def tags_unmoved(self) -> bool:
        """No watched dict written since the baseline (their tags only rise, so the sum stays
        put only if every one does), and `sys.modules` still holds the watched modules
        (looked at only when its own tag moved). The cheapest compare there is: one read of
        each dict's tag, no entry touched."""
        views = self.views
        if sum(map(TAG_VALUE, self.dict_views)) != self.tag_sum:
            return False
        modules_tag = TAG_VALUE(views[-1])
        if modules_tag != self.modules_tag:
            if not self._modules_unchanged():
                return False
            self.modules_tag = modules_tag  # only `sys.modules` was written (an import)
        return True

    def _modules_unchanged(self) -> bool:
        count = len(self.modules)
        return all(map(is_, map(sys.modules.get, self.modules), self.baseline[-count:])) \
            if count else True

    def observe(self, when: str) -> None:
        if not self.unchanged(full=when != "run"):
            self.record_changes(when)

    def record_changes(self, when: str) -> None:
        """After a compare failed: what changed, name by name, and the baseline again."""
        for name, snapshot in self.snapshots.items():
            if not snapshot.same():
                self._record(name, snapshot, when)
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                self.changes.setdefault(name, {}).setdefault(
                    "sys.modules", ("replaced", sys.modules.get(name), when))
        self.rebaseline()

    def _record(self, name: str, snapshot: Snapshot, when: str) -> None:
        for key, what, now in snapshot.differences():
            self.changes.setdefault(name, {}).setdefault(key, (what, now, when))
        self.snapshots[name] = Snapshot.take(name, snapshot.owner)


def describe_object(value: Any) -> str:
    """A short name for what now stands in a namespace (never its repr: that is agent code)."""
    if value is None:
        return "nothing"
    qualname = getattr(value, "__qualname__", None)
    if isinstance(qualname, str):
        return qualname[:120]
    return f"a {type(value).__qualname__}"[:120]


@dataclass
class ImportListWatch:
    """`sys.meta_path` and `sys.path_hooks` as they were at load; every entry added after it
    (a finder or path hook that can rewrite the source of what is imported next) is kept,
    with when it was first seen, even if it was taken out again."""

    baseline: dict[str, tuple[int, ...]] = field(default_factory=dict)
    kept: list[object] = field(default_factory=list)
    added: list[tuple[str, object, str]] = field(default_factory=list)

    @classmethod
    def take(cls) -> ImportListWatch:
        watch = cls()
        for name in ("meta_path", "path_hooks"):
            entries = list(getattr(sys, name))
            watch.kept.extend(entries)
            watch.baseline[name] = tuple(map(id, entries))
        return watch

    def same(self) -> bool:
        """Do both lists hold the very entries they held (no entry recorded as added)?"""
        return all(tuple(map(id, getattr(sys, name))) == seen
                   for name, seen in self.baseline.items())

    def observe(self, when: str) -> None:
        for name, seen in self.baseline.items():
            entries = list(getattr(sys, name))
            ids = tuple(map(id, entries))
            if ids == seen:
                continue
            known = {id(entry) for entry in self.kept}
            for entry in entries:
                if id(entry) not in known:
                    self.added.append((f"sys.{name}", entry, when))
                    self.kept.append(entry)
            self.baseline[name] = ids
