"""The item check's record of each test function's items (`HeldItems.nodes_of`): a write the
audit listener hears to one function's code is named for every item that runs it, the items
of a parametrized function included."""

from __future__ import annotations

from types import SimpleNamespace

from gate.evidence.item_state import HeldItems


def _item(function: object) -> SimpleNamespace:
    return SimpleNamespace(_obj=function, session=None, config=None, parent=None, path=None)


def _one() -> None:
    pass


def _many(n: int) -> None:
    del n


def test_every_item_of_a_function_is_found_by_the_functions_id() -> None:
    held = HeldItems()
    held.add("test_a.py::test_one", _item(_one))
    for n in range(3):
        held.add(f"test_a.py::test_many[{n}]", _item(_many))
    assert held.nodes_of(id(_one)) == ["test_a.py::test_one"]
    assert held.nodes_of(id(_many)) == [f"test_a.py::test_many[{n}]" for n in range(3)]
    assert held.nodes_of(id(held)) == []  # not a held test function
