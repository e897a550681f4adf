"""The item check in process (no pytest session): reports the loggers got that pytest's
makereport did not make, and how the gate re-derives item findings from the inventory."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace
from typing import Any

from gate.evidence.item_state import ItemWatch
from gate.evidence.producer_inventory import derive_findings, digest, judge, seal
from tests.inventory_support import clean_inventory


def _watch_with_item() -> tuple[ItemWatch, Any]:
    watch = ItemWatch(lambda value: "conftest.py", repr)
    item = SimpleNamespace(nodeid="test_a.py::test_x")
    watch.pytest_itemcollected(item)
    return watch, item


def _made(watch: ItemWatch, item: Any, when: str, outcome: str) -> Any:
    report = SimpleNamespace(nodeid=item.nodeid, when=when, outcome=outcome)
    wrapper = watch.pytest_runtest_makereport(item, SimpleNamespace(when=when))
    next(wrapper)
    with contextlib.suppress(StopIteration):  # the wrapper returns the report it was sent
        wrapper.send(report)
    return report


def test_the_report_makereport_made_is_no_finding() -> None:
    watch, item = _watch_with_item()
    for when in ("setup", "call", "teardown"):
        watch.pytest_runtest_logreport(_made(watch, item, when, "passed"))
    assert watch.entries() == {"item_changes": [], "item_reports": []}


def test_a_report_logged_in_place_of_pytests_own_is_named() -> None:
    watch, item = _watch_with_item()
    _made(watch, item, "call", "failed")
    watch.pytest_runtest_logreport(SimpleNamespace(nodeid=item.nodeid, when="call",
                                                   outcome="passed"))
    (entry,) = watch.entries()["item_reports"]
    assert entry["what"] == "a report pytest's makereport did not make"
    assert (entry["node"], entry["when"], entry["file"]) == (item.nodeid, "call", "test_a.py")


def test_a_rerun_is_not_a_changed_outcome() -> None:
    watch, item = _watch_with_item()
    report = _made(watch, item, "call", "failed")
    report.outcome = "rerun"  # pytest-rerunfailures marks the attempt after makereport
    watch.pytest_runtest_logreport(report)
    assert watch.entries()["item_reports"] == []


def test_reports_of_tests_collected_elsewhere_are_not_judged() -> None:
    watch, _ = _watch_with_item()  # an xdist controller: the workers made these reports
    watch.pytest_runtest_logreport(SimpleNamespace(nodeid="test_b.py::test_y", when="call",
                                                   outcome="passed"))
    assert watch.entries()["item_reports"] == []


def test_only_tests_collected_here_ran_here() -> None:
    # The recorder compares after each test that ran in its process: an xdist controller
    # logs its workers' tests, which their own watches compare after.
    watch, item = _watch_with_item()
    assert watch.ran_here(item.nodeid)
    assert not watch.ran_here("test_b.py::test_y")


def test_the_gate_derives_item_findings_from_the_entries() -> None:
    change = {"node": "t.py::test_x", "what": "its class", "now": "Green",
              "file": "conftest.py", "seen": "setup"}
    inventory = clean_inventory(item_changes=[change])
    (finding,) = derive_findings(inventory)
    assert finding["code"] == "item_state"
    assert finding["file"] == "conftest.py"
    assert "t.py::test_x: its class replaced by Green" in str(judge(inventory))
    # The entry cut out, findings left as they were: the findings no longer follow.
    edited = {**inventory, "item_changes": []}
    edited["digest"] = digest(edited)
    assert "do not follow from its entries" in str(judge(edited))


def test_an_inventory_without_the_item_check_is_refused() -> None:
    inventory = clean_inventory()
    del inventory["item_reports"]
    assert "not an inventory this gate reads" in str(judge(seal(inventory)))


class _Defines:
    @staticmethod
    def test_kept() -> None:
        return None

    def test_other(self) -> None:
        return None


def _item(name: str, obj: object, parent_obj: object = _Defines) -> Any:
    item = SimpleNamespace(nodeid=f"t.py::{name}", originalname=name,
                           parent=SimpleNamespace(_obj=parent_obj))
    item._obj = obj
    return item


def test_patched_items_name_a_function_swapped_or_gone_from_its_class() -> None:
    from gate.evidence.pytest_watch import patched_items

    kept = _item("test_kept", _Defines.test_kept)
    bound = _item("test_other", _Defines().test_other)  # a bound method of the same function
    swapped = _item("test_kept", lambda: None)
    gone = _item("test_missing", lambda: None)
    unread = _item("test_kept", None)  # never looked up: nothing to compare
    orphan = SimpleNamespace(nodeid="t.py::orphan", originalname="test_kept", parent=None,
                             _obj=_Defines.test_kept)  # not a python function's item
    assert patched_items([kept, bound, swapped, gone, unread, orphan]) == [
        "t.py::test_kept", "t.py::test_missing"]
