"""The pytest plugin's item check: what a hook or fixture wrote to a test item, and reports
that reached the loggers without being the one pytest's makereport made.

A plain `pytest_runtest_setup`/`call`/`teardown` hook, a fixture or the code under test gets
the item and can rewrite it so a failing test is reported as passed, with no hook of its own
on the report: swap the item's class for one whose `runtest` does nothing, hand it another
`session` (whose `gethookproxy` gives pytest a report maker of its own), or another test
function (`item.obj` together with the module's attribute, or the function's `__code__`).
So each item's state is taken when it is collected (its class, `session`, `config`,
`parent`, `path`, the function its parent defines and that function's code) and compared
each time pytest makes one of its reports; and every report logged for an item must be the
object the outermost `pytest_runtest_makereport` returned, with the outcome it had then.

The line: writes that change which code runs for the test or where its reports go are
findings whatever wrote them (named with the file of the new value); data pytest reads for
display, selection or the test's inputs (markers, keywords, `user_properties`, the stash,
report sections, `funcargs`) are not: a marker can only skip or xfail the test, which the
totals show, and a fixture value is the fixture's own job. This module observes; the
judgement is `producer_inventory`'s, from the entries it records.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Mapping
from operator import attrgetter, is_
from typing import Any

import pytest

#: The item's attributes through which pytest finds the code it runs and the hooks it calls
#: (`item.ihook` is `item.session.gethookproxy(item.path)`).
WATCHED_ATTRIBUTES = ("session", "config", "parent", "path")
_ATTRIBUTES = attrgetter(*WATCHED_ATTRIBUTES)

#: At most this many item changes and report problems are kept (the inventory caps lists).
MAX_KEPT = 100

#: A report outcome set after makereport by pytest-rerunfailures: a retry, not a result.
RERUN = "rerun"

#: Methods pytest calls on the item: one set on the item itself replaces the class's.
ITEM_METHODS = ("runtest", "setup", "teardown")


def own_code(value: object) -> object:
    """What to name a new value by: a class by the first function it defines itself (a class
    made in a conftest is named after the module `conftest`, which many files share)."""
    if inspect.isclass(value):
        for member in vars(value).values():
            member = getattr(member, "__func__", None) or getattr(member, "fget", None) or member
            if inspect.isfunction(member):
                return member
    return value


#: What `defined_lookup` gives for an item that is not a python function, and for one whose
#: module or class no longer has its name.
NOT_A_FUNCTION = object()
NAME_GONE = object()


def defined_lookup(item: Any) -> object:
    """The function the item's module or class defines under the item's name (unwrapped
    from a staticmethod/classmethod), read without running the class's code; NAME_GONE
    when it has no such name, NOT_A_FUNCTION for items that are not python functions."""
    name = getattr(item, "originalname", None)
    parent = getattr(getattr(item, "parent", None), "__dict__", {}).get("_obj")
    if not isinstance(name, str) or parent is None:
        return NOT_A_FUNCTION
    try:
        defined = inspect.getattr_static(parent, name)
    except AttributeError:
        return NAME_GONE
    function: object = getattr(defined, "__func__", defined)
    return function


def defined_function(item: Any) -> object | None:
    """`defined_lookup`'s function, or None (no name, or not a python function)."""
    found = defined_lookup(item)
    return None if found is NOT_A_FUNCTION or found is NAME_GONE else found


#: An item's slots in `HeldItems`' list: the item, its class, the values of
#: WATCHED_ATTRIBUTES (one tuple shared by the items that share them), its test function as
#: collected (the item's own, else what its parent defines) and that function's code.
_ITEM, _CLASS, _ATTRIBUTE_VALUES, _FUNCTION, _CODE = range(5)
STRIDE = 5


class HeldItems:
    """What each item was when collected, compared by identity: every item's slots laid end
    to end in one list, found by node id. No object of its own per item (a session holds
    thousands of tests, and each object that outlives collection is walked by every full
    pass of the cyclic collector, and brings the next pass closer); the attribute tuples are
    shared by the items of one parent."""

    __slots__ = ("_at", "_by_function", "_held", "_shared", "compare_code")

    def __init__(self) -> None:
        self._held: list[Any] = []
        self._at: dict[str, int] = {}
        #: The node id of each held test function, by the function's id (held alive here); a
        #: list of them only for a function several items run (a string is no object for the
        #: cyclic collector to walk: a list for each of a session's thousands of functions is).
        self._by_function: dict[int, str | list[str]] = {}
        #: Compare the test functions' code at each report; off where the audit listener hears
        #: every write to it as it happens (reading `__code__` is itself an audit event).
        self.compare_code = True
        #: The attribute tuples by their values' identities: the tuple holds them alive, so
        #: an identity is never another object's while it is a key here.
        self._shared: dict[tuple[int, ...], tuple[object, ...]] = {}

    def add(self, node: str, item: Any) -> None:
        own = vars(item)
        collected = own.get("_obj")  # a collector may hand its own callable (`callobj`)
        function = (defined_function(item) if collected is None
                    else getattr(collected, "__func__", collected))
        values: tuple[object, ...]
        try:
            values = _ATTRIBUTES(item)  # one C-level read of them all, as `same` does
        except AttributeError:
            values = tuple(getattr(item, name, None) for name in WATCHED_ATTRIBUTES)
        values = self._shared.setdefault(tuple(map(id, values)), values)
        self._at[node] = len(self._held)
        self._held += (item, type(item), values, function, getattr(function, "__code__", None))
        if function is not None:
            before = self._by_function.setdefault(id(function), node)
            if isinstance(before, list):
                before.append(node)
            elif before is not node:
                self._by_function[id(function)] = [before, node]

    def nodes_of(self, function_id: int) -> list[str]:
        """The node ids whose test function has this id (none: not a held test function)."""
        found = self._by_function.get(function_id, [])
        return [found] if isinstance(found, str) else found

    def at(self, node: str) -> int | None:
        """Where the item of this node id is held (None: collected in another process)."""
        return self._at.get(node)

    def item(self, at: int) -> Any:
        return self._held[at + _ITEM]

    def collected_class(self, at: int) -> type:
        cls: type = self._held[at + _CLASS]
        return cls

    def same(self, at: int, item: Any) -> bool:
        """Is every watched part of the item still the very object it was (the common case,
        after each phase of every test: one C-level read of the attributes, `is` only)?"""
        held = self._held
        try:
            attributes = _ATTRIBUTES(item)
        except AttributeError:
            return False
        if type(item) is not held[at + _CLASS] or not all(
                map(is_, attributes, held[at + _ATTRIBUTE_VALUES])):
            return False
        own = vars(item)
        if not own.keys().isdisjoint(ITEM_METHODS):  # a runtest/setup/teardown of its own
            return False
        function = held[at + _FUNCTION]
        if function is None:
            return True
        current = own.get("_obj")  # the function itself, a bound method of it, or replaced
        if current is not None and current is not function and getattr(
                current, "__func__", current) is not function:
            return False
        return not self.compare_code or getattr(function, "__code__", None) is held[at + _CODE]

    def changes(self, at: int, item: Any) -> list[tuple[str, object]]:
        """(what, its new value) for each watched part of the item no longer as collected."""
        cls, values, function, code = self._held[at + _CLASS:at + STRIDE]
        found: list[tuple[str, object]] = []
        if type(item) is not cls:
            found.append(("its class", type(item)))
        for name, before in zip(WATCHED_ATTRIBUTES, values, strict=True):
            now = getattr(item, name, None)  # slots of pytest's Node, not in vars(item)
            if now is not before:
                found.append((f"item.{name}", now))
        own = vars(item)
        current = own.get("_obj")
        current = getattr(current, "__func__", current)
        if function is not None and current is not None and current is not function:
            found.append(("its test function (item.obj)", current))
        now_code = getattr(function, "__code__", None)
        if function is not None and now_code is not code:
            found.append(("the __code__ of its test function", now_code))
        found.extend((f"item.{name} (set on the item)", own[name])
                     for name in ITEM_METHODS if name in own)
        return found


def runs_through_pyfunc_call(cls: type) -> bool:
    """Whether items of this class run their test through `pytest_pyfunc_call`: pytest's
    `Function` and subclasses that keep its `runtest` (unittest's, doctest's and other
    plugins' items run theirs their own way and are not held to it)."""
    from _pytest.python import Function

    return issubclass(cls, Function) and inspect.getattr_static(cls, "runtest", None) is \
        inspect.getattr_static(Function, "runtest")


class ItemWatch:
    """A pytest plugin of the session's watch (`Watch.register`); one per session.
    `describe(value)` names a new value and `file_of(value)` where its code lives."""

    def __init__(self, file_of: Callable[[object], str], describe: Callable[[object], str]) -> None:
        self._file_of = file_of
        self._describe = describe
        self._held = HeldItems()
        self._made: dict[tuple[str, str], tuple[Any, str]] = {}
        self._sub_logged: set[tuple[str, str]] = set()
        self._changes: dict[tuple[str, str], dict[str, str]] = {}
        self._reports: list[dict[str, str]] = []
        #: Node ids of the items whose test function pytest called (not the items' ids: `id()`
        #: is an audit event, which the watch's listener is handed, three times a test).
        self._called: set[str] = set()
        self._pyfunc_classes: dict[type, bool] = {}
        self._count: Callable[[str, str, str], None] | None = None
        self._at_call: Callable[[], None] | None = None

    def count_into(self, add: Callable[[str, str, str], None]) -> None:
        """Hand every logged report's (node id, phase, outcome) to `add` (the recorder's
        tally) first thing in this check's own `pytest_runtest_logreport`: one hook
        implementation a report instead of two. The tally then reads each report where
        this check does, after the plugins registered since the watch loaded: an outcome
        any of them changed after makereport is this check's finding."""
        self._count = add

    def check_at_call(self, check: Callable[[], None]) -> None:
        """Run `check` (the watch's compare at a report) each time pytest has made a call
        report, before this check looks at the item."""
        self._at_call = check

    def code_writes_heard(self) -> None:
        """The watch's audit listener hears every write to a test function's code from now
        on (`heard_function_write`): the reports need not read it."""
        self._held.compare_code = False

    def heard_function_write(self, function_id: int, attribute: str, value: object) -> None:
        """A test function's `__code__` or defaults written (an audit event), whoever wrote
        it and however soon it was put back."""
        for node in self._held.nodes_of(function_id):
            self._keep_change(node, f"the {attribute} of its test function", value,
                              "the write itself (audit)")

    def ran_here(self, node: str) -> bool:
        """Whether this process collected the test, and so ran it (an xdist controller logs
        its workers' tests, which it never collected)."""
        return self._held.at(node) is not None

    def pytest_itemcollected(self, item: Any) -> None:
        cls = type(item)
        if cls not in self._pyfunc_classes:  # once per item class, not per item
            self._pyfunc_classes[cls] = runs_through_pyfunc_call(cls)
        self._held.add(str(item.nodeid), item)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: Any) -> Generator[None, Any, Any]:
        # The moment pytest calls the test function: what the item holds now is what runs,
        # whatever is put back before its report.
        self._called.add(str(pyfuncitem.nodeid))
        self._compare(str(pyfuncitem.nodeid), pyfuncitem, "call (the test function called)")
        return (yield)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: Any, call: Any) -> Generator[None, Any, Any]:
        report = yield  # the outermost wrapper: the report as every other hook left it
        node, when = str(getattr(report, "nodeid", "")), str(call.when)
        self._made[(node, when)] = (report, str(getattr(report, "outcome", "")))
        held = self._held
        at = held.at(node)  # `_compare`, inline: this runs three times a test
        if at is not None and held.item(at) is item and not held.same(at, item):
            self._record_changes(node, item, at, when)
        if when == "call":
            if self._at_call is not None:
                self._at_call()
            if (at is not None and held.item(at) is item and node not in self._called
                    and self._calls_function(at)):
                self._function_called(node, report)
        elif when == "teardown":  # a rerun calls the function again
            self._called.discard(node)
        return report

    def _function_called(self, node: str, report: Any) -> None:
        """The call report of a held item that runs its test through `pytest_pyfunc_call`,
        which pytest never called for it (the caller checks both): if it passed, something
        else ran in its place (a `runtest` swapped in and put back, a class restored by its
        own `runtest`)."""
        # Subtests make call reports of their own while the function runs: each finds it
        # called (the mark is dropped at teardown).
        if getattr(report, "outcome", "") == "passed":
            self._report_problem(node, "call", "passed without pytest calling its test"
                                 " function (pytest_pyfunc_call)", report,
                                 "something else ran in its place during the call")

    def pytest_runtest_logreport(self, report: Any) -> None:
        if self._count is not None:
            self._count(report.nodeid, report.when, report.outcome)
        node, when = str(report.nodeid), str(report.when)
        at = self._held.at(node)
        if at is None:
            return  # collected in another process (xdist's workers): not watched here
        if type(report).__name__ == "SubtestReport" and type(report).__module__.startswith(
                "_pytest."):
            self._sub_logged.add((node, when))  # made from the subtest's own report
            return
        made, outcome = self._made.pop((node, when), (None, ""))  # held only until logged
        self._sub_logged.discard((node, when))
        if made is not report:
            self._report_problem(node, when, "a report pytest's makereport did not make", report)
        elif report.outcome != outcome and report.outcome != RERUN:
            self._report_problem(
                node, when, f"its outcome changed from {outcome} to {report.outcome} after"
                " makereport", report)
        if when == "teardown":
            item = self._held.item(at)
            if not self._held.same(at, item):
                self._record_changes(node, item, at, when)

    def _compare(self, node: str, item: Any, when: str) -> None:
        held = self._held
        at = held.at(node)
        if at is None or held.item(at) is not item or held.same(at, item):
            return
        self._record_changes(node, item, at, when)

    def _calls_function(self, at: int) -> bool:
        """The item's class as collected runs its test through `pytest_pyfunc_call`: a passing
        call that never reached that hook ran something else."""
        return self._pyfunc_classes.get(self._held.collected_class(at), False)

    def _record_changes(self, node: str, item: Any, at: int, when: str) -> None:
        for what, value in self._held.changes(at, item):
            self._keep_change(node, what, value, when)

    def _keep_change(self, node: str, what: str, value: object, seen: str) -> None:
        """The first sight of each change to an item, at most MAX_KEPT of them."""
        key = (node, what)
        if key not in self._changes and len(self._changes) < MAX_KEPT:
            self._changes[key] = {"node": node, "what": what, "now": self._describe(value),
                                  "file": self._file_of(value), "seen": seen}

    def _report_problem(self, node: str, when: str, what: str, report: object,
                        route: str = "between makereport and the loggers") -> None:
        if len(self._reports) < MAX_KEPT:
            self._reports.append({"node": node, "when": when, "what": what,
                                  "file": node.split("::", 1)[0], "route": route,
                                  "report": self._describe(type(report))})

    def merge(self, entries: Mapping[str, object]) -> None:
        """What another process's item check recorded (an xdist worker's entries)."""
        for name, kept in (("item_changes", None), ("item_reports", self._reports)):
            listed = entries.get(name)
            for entry in listed if isinstance(listed, list) else ():
                if not isinstance(entry, Mapping):
                    continue
                entry = {str(key): str(value) for key, value in entry.items()}
                if kept is not None and len(kept) < MAX_KEPT:
                    kept.append(entry)
                elif kept is None and len(self._changes) < MAX_KEPT:
                    self._changes.setdefault((entry.get("node", ""), entry.get("what", "")),
                                             entry)

    def entries(self) -> dict[str, list[dict[str, str]]]:
        """What the inventory records: item changes and report problems (a phase logged only
        through subtest reports, with no report of its own, is one too)."""
        reports = list(self._reports)
        for node, when in sorted(self._sub_logged):
            reports.append({"node": node, "when": when, "file": "<unknown>",
                            "what": "logged only as subtest reports, with no report of its own"})
        return {"item_changes": list(self._changes.values()), "item_reports": reports[:MAX_KEPT]}
