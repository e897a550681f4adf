"""The watch's cheap per-test path (dict version tags, rotating spot checks) must see what the
object-by-object compare sees: each change below beside the same change under the full
compare, and the writes no tag shows (behind the tag's back, in a pluggy list, a code object)
within their rotation. No session: real modules, classes and a real plugin manager."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path
from typing import Any

import pluggy
import pytest
from _pytest.config import get_config

import gate
from gate.claim.watched_internals import WATCHED_NAMESPACES
from gate.evidence.pytest_watch import Origins, Watch
from gate.evidence.watch_namespaces import (
    DEEP_ROTATION,
    ROTATION,
    NamespaceWatch,
    dict_versions,
)
from tests.sample_module import sample_module

pytestmark = pytest.mark.skipif(dict_versions() is None,
                                reason="this interpreter keeps no dict version tags")


@pytest.fixture
def module() -> Any:
    with sample_module("claim_gate_tagged_sample") as made:
        yield made


def watch_of(module: Any, by_version: bool) -> NamespaceWatch:
    return NamespaceWatch.take((module.__name__, f"{module.__name__}:Report"), by_version)


def changed(watch: NamespaceWatch) -> dict[str, set[tuple[str, str]]]:
    return {name: {(key, what) for key, (what, _, _) in seen.items()}
            for name, seen in watch.changes.items()}


PATCHES = {
    "a function rebound": lambda m: setattr(m, "helper", lambda x: "passed"),
    "a method replaced": lambda m: setattr(m.Report, "outcome", lambda self: "passed"),
    "a method removed": lambda m: delattr(m.Report, "outcome"),
    "an inherited name hidden": lambda m: setattr(m.Report, "__eq__", lambda s, o: True),
    "a builtin hidden": lambda m: setattr(m, "len", lambda value: 0),
    "data the code never reads": lambda m: setattr(m, "note", "plain data"),
}


@pytest.mark.parametrize("name", PATCHES)
def test_the_tags_see_at_the_next_test_what_the_full_compare_sees(module: Any, name: str) -> None:
    seen = {}
    for by_version in (True, False):
        sample = types.ModuleType(module.__name__)
        exec(  # noqa: S102 - a fresh copy of the sample for each path
            "def helper(x):\n    return x\n\nclass Report:\n    def outcome(self):\n"
            "        return helper('failed')\n", sample.__dict__)
        sys.modules[module.__name__] = sample
        watch = watch_of(sample, by_version)
        assert (watch.versions is not None) is by_version
        PATCHES[name](sample)
        watch.observe("run")
        seen[by_version] = changed(watch)
    assert seen[True] == seen[False]


def test_control_an_unchanged_namespace_and_an_import_are_never_diffed(
        module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    watch = watch_of(module, True)
    diffed: list[str] = []
    monkeypatch.setattr(watch, "record_changes", diffed.append)
    sys.modules["claim_gate_tagged_other"] = types.ModuleType("claim_gate_tagged_other")
    try:
        for _ in range(2 * DEEP_ROTATION):
            watch.observe("run")
    finally:
        sys.modules.pop("claim_gate_tagged_other")
    assert diffed == []
    assert watch.changes == {}


def test_a_watched_module_replaced_in_sys_modules_is_seen_at_the_next_test(module: Any) -> None:
    watch = watch_of(module, True)
    sys.modules[module.__name__] = types.ModuleType(module.__name__)
    watch.observe("run")
    assert ("sys.modules", "replaced") in changed(watch)[module.__name__]


def test_a_write_behind_the_tags_back_is_seen_within_one_pass_of_the_spot_check(
        module: Any) -> None:
    # What a ctypes write into the dict's entries does: the object changes, the tag does not.
    watch = watch_of(module, True)
    view = watch.views[0]
    tag = view.value
    module.helper = lambda x: "passed"
    view.value = tag
    for _ in range(len(watch.spots)):
        watch.observe("run")
    assert ("helper", "replaced") in changed(watch)["claim_gate_tagged_sample"]


def test_a_code_object_swapped_is_seen_within_the_deep_rotation_and_at_the_end(
        module: Any) -> None:
    for rounds, when in ((DEEP_ROTATION, "run"), (0, "end")):
        watch = watch_of(module, True)
        module.helper.__code__ = (lambda x: "passed").__code__
        for _ in range(rounds):
            watch.observe("run")
        watch.observe(when)
        assert ("helper", "code replaced") in changed(watch)["claim_gate_tagged_sample"]
        module.helper.__code__ = (lambda x: x).__code__


def _green(report: Any) -> None:
    del report


def _watch(by_version: bool = True) -> tuple[Watch, Any]:
    manager = get_config().pluginmanager
    origins = Origins(Path.cwd(), Path(gate.__file__).parent, [], [])
    watch = Watch(origins, os.environ)
    if not by_version:  # as on an interpreter without tags: the whole compare every test
        watch._namespaces = NamespaceWatch.take(WATCHED_NAMESPACES, by_version=False)
    watch.observe(manager, "load")
    assert (watch._tags is not None) is by_version
    return watch, manager


def _seen(watch: Watch, function: object) -> bool:
    return any(key[2] == id(function) for key in watch._hooks)


@pytest.mark.parametrize("by_version", [True, False])
def test_a_plugin_registered_mid_run_is_seen_at_the_next_test(by_version: bool) -> None:
    watch, manager = _watch(by_version)
    for _ in range(3):
        watch.observe(manager, "run")
    plugin = types.SimpleNamespace(pytest_runtest_logreport=_green)
    manager.register(plugin, "claim-gate-test-late-plugin")
    watch.observe(manager, "run")
    assert _seen(watch, _green)


@pytest.mark.parametrize("by_version", [True, False])
def test_a_hook_put_into_a_callers_list_in_place_is_seen_in_its_rotation_and_at_the_end(
        by_version: bool) -> None:
    rotation = DEEP_ROTATION if by_version else ROTATION
    for rounds, when in ((rotation, "run"), (0, "end")):
        watch, manager = _watch(by_version)

        def rewrite(report: Any) -> None:
            del report

        impl = pluggy.HookImpl(types.SimpleNamespace(), "in-place", rewrite, {
            "wrapper": False, "hookwrapper": False, "optionalhook": False,
            "tryfirst": False, "trylast": False, "specname": None})
        manager.hook.pytest_runtest_logreport._hookimpls.insert(0, impl)  # no register
        for _ in range(rounds):
            watch.observe(manager, "run")
        watch.observe(manager, when)
        assert _seen(watch, rewrite)


def test_the_managers_hook_relay_replaced_on_the_instance_is_seen_at_the_next_test() -> None:
    watch, manager = _watch()
    watch.observe(manager, "run")
    manager.hook = type(manager.hook)()
    watch.observe(manager, "run")
    assert "pluggy._manager:PluginManager" in watch._namespaces.changes
