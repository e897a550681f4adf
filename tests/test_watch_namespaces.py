"""The watch's identity snapshots, the RECORD-content origin and the inventory's list of watched
internals (issue 21, items 3 and 4), on real modules, classes and files; no session needed."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from gate.claim.watched_internals import WATCHED_NAMESPACES, missing_names
from gate.evidence.content_origin import INSTALLED, MODIFIED, UNLISTED, RecordIndex, record_hash
from gate.evidence.producer_inventory import judge
from gate.evidence.watch_namespaces import (
    DEEP_ROTATION,
    ROTATION,
    ImportListWatch,
    NamespaceWatch,
)
from tests.inventory_support import clean_inventory
from tests.sample_module import sample_module


@pytest.fixture
def module() -> Any:
    """A real module in sys.modules, with a function, a class and a method, made per test."""
    with sample_module("claim_gate_watched_sample") as made:
        yield made


def watch_of(module: Any) -> NamespaceWatch:
    return NamespaceWatch.take((module.__name__, f"{module.__name__}:Report"))


def changed(watch: NamespaceWatch) -> dict[str, set[tuple[str, str]]]:
    return {name: {(key, what) for key, (what, _, _) in seen.items()}
            for name, seen in watch.changes.items()}


def test_control_nothing_changed_is_nothing_recorded(module: Any) -> None:
    watch = watch_of(module)
    for _ in range(2 * ROTATION):
        watch.observe("run")
    watch.observe("end")
    assert watch.changes == {}
    assert watch.absent == {}


@pytest.mark.parametrize(("patch", "expected"), [
    (lambda m: setattr(m, "helper", lambda x: "passed"),
     {"claim_gate_watched_sample": {("helper", "replaced")}}),
    (lambda m: setattr(m.Report, "outcome", lambda self: "passed"),
     {"claim_gate_watched_sample:Report": {("outcome", "replaced")}}),
    (lambda m: delattr(m.Report, "outcome"),
     {"claim_gate_watched_sample:Report": {("outcome", "removed")}}),
    (lambda m: setattr(m.Report, "__eq__", lambda self, other: True),
     {"claim_gate_watched_sample:Report": {("__eq__", "added over an inherited name")}}),
    (lambda m: setattr(m, "len", lambda value: 0),
     {"claim_gate_watched_sample": {("len", "added over a builtin")}}),
    (lambda m: setattr(m, "note", "plain data"),
     {}),  # data that the module's code never looks up changes nothing it does
])
def test_a_change_is_recorded_by_name_and_kind(module: Any, patch: Any, expected: Any) -> None:
    watch = watch_of(module)
    patch(module)
    watch.observe("run")
    assert changed(watch) == expected


def test_a_code_object_swapped_in_place_is_seen_within_a_rotation(module: Any) -> None:
    watch = watch_of(module)
    module.helper.__code__ = (lambda x: "passed").__code__
    for _ in range(DEEP_ROTATION):  # no dict write: the tags do not show it
        watch.observe("run")
    assert ("helper", "code replaced") in changed(watch)["claim_gate_watched_sample"]


def test_a_replacement_that_answers_eq_true_is_still_seen(module: Any) -> None:
    # mock.ANY == anything: `==` alone would call it the original; `is` does not.
    watch = watch_of(module)
    module.helper = mock.ANY
    watch.observe("end")
    assert ("helper", "replaced") in changed(watch)["claim_gate_watched_sample"]


def test_a_patch_undone_before_the_end_stays_recorded(module: Any) -> None:
    watch = watch_of(module)
    original = module.helper
    module.helper = lambda x: "passed"
    watch.observe("run")
    module.helper = original
    watch.observe("end")
    assert ("helper", "replaced") in changed(watch)["claim_gate_watched_sample"]


def test_a_namespace_missing_at_load_is_absent_by_name() -> None:
    watch = NamespaceWatch.take(("claim_gate_no_such_module", "json:NoSuchClass"))
    assert set(watch.absent) == {"claim_gate_no_such_module", "json:NoSuchClass"}


def test_new_import_machinery_entries_are_kept_even_when_taken_out() -> None:
    watch = ImportListWatch.take()
    finder = types.SimpleNamespace(find_spec=lambda *a: None)
    sys.meta_path.insert(0, finder)
    try:
        watch.observe("run")
    finally:
        sys.meta_path.remove(finder)
    watch.observe("end")
    assert [(listed, entry) for listed, entry, _ in watch.added] == [("sys.meta_path", finder)]


def test_control_import_lists_untouched_add_nothing() -> None:
    watch = ImportListWatch.take()
    watch.observe("run")
    assert watch.added == []


def _site(tmp_path: Path, listed: dict[str, bytes]) -> Path:
    site = tmp_path / "site-packages"
    (site / "sample-1.0.dist-info").mkdir(parents=True)
    lines = [f"{name},sha256={record_hash(data)},{len(data)}" for name, data in listed.items()]
    (site / "sample-1.0.dist-info" / "RECORD").write_text(
        "\n".join([*lines, "sample-1.0.dist-info/RECORD,,"]) + "\n")
    return site.resolve()


def test_a_file_is_installed_only_with_the_bytes_its_record_lists(tmp_path: Path) -> None:
    site = _site(tmp_path, {"sample/__init__.py": b"x = 1\n", "sample/edited.py": b"y = 1\n"})
    (site / "sample").mkdir()
    (site / "sample" / "__init__.py").write_bytes(b"x = 1\n")
    (site / "sample" / "edited.py").write_bytes(b"y = 2\n")
    (site / "dropped.py").write_bytes(b"z = 1\n")
    index = RecordIndex()
    assert index.verdict(site / "sample" / "__init__.py", site) == INSTALLED
    assert index.verdict(site / "sample" / "edited.py", site) == MODIFIED
    assert index.verdict(site / "dropped.py", site) == UNLISTED


def test_control_pytest_itself_is_installed_by_content() -> None:
    import _pytest.runner

    from gate.evidence.interpreter_dirs import site_dirs

    path = Path(_pytest.runner.__file__).resolve()
    site = next(d for d in site_dirs() if path.is_relative_to(d))
    assert RecordIndex().verdict(path, site) == INSTALLED


def test_control_the_full_inventory_passes() -> None:
    assert missing_names(clean_inventory()["internals"]) == []
    assert judge(clean_inventory()) is None


@pytest.mark.parametrize("keep", [0, 1, len(WATCHED_NAMESPACES) - 1])
def test_an_inventory_that_lists_less_than_the_plugin_watches_is_refused(keep: int) -> None:
    full = clean_inventory()["internals"]
    inventory = clean_inventory(internals=full[:keep])
    problem = judge(inventory)
    assert problem is not None
    missing = len(WATCHED_NAMESPACES) - keep
    assert f"does not list {missing} watched internal{'s' if missing != 1 else ''}" in problem
    assert WATCHED_NAMESPACES[keep] in problem


def test_an_inventory_with_no_internals_list_is_refused() -> None:
    inventory = clean_inventory()
    inventory["internals"] = "none"
    assert judge(inventory) is not None
