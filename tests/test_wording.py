"""Counts and durations as a person reads them (issue 13 item 5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gate.claim.wording import duration, listed, plural


@pytest.mark.parametrize(("seconds", "shown"), [
    (0, "0 s"), (0.9, "0 s"), (45, "45 s"), (60, "1 min"), (185, "3 min 5 s"),
    (8220, "2 h 17 min"), (8221, "2 h 17 min"), (86400, "1 d"), (273600, "3 d 4 h"),
    (3601, "1 h"), (-5, "0 s"),
])
def test_durations_read_in_their_two_largest_units(seconds: float, shown: str) -> None:
    assert duration(seconds) == shown


@pytest.mark.parametrize(("count", "shown"), [(0, "0 items"), (1, "1 item"), (2, "2 items")])
def test_counts_take_the_right_number(count: int, shown: str) -> None:
    assert plural(count, "item") == shown
    assert plural(count, "test run", "test runs").endswith("run" if count == 1 else "runs")


@pytest.mark.parametrize(("names", "shown"), [
    (["a"], "key a"), (["a", "b"], "keys a, b"), (["'a'"], "key 'a'"),
    (["'a'", "'b'"], "keys 'a', 'b'"),
])
def test_a_noun_takes_the_number_of_the_names_it_introduces(names: list[str], shown: str) -> None:
    assert listed("key", names) == shown


def test_no_message_says_item_s() -> None:
    """Every count in a message takes its number (`plural`, `listed`), never "(s)"."""
    root = Path(__file__).resolve().parent.parent / "gate"
    found = [
        f"{path.relative_to(root)}:{number}"
        for path in sorted(root.rglob("*.py"))
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if re.search(r"[a-z]\(s\)", line.replace("http(s)", ""))
    ]
    assert found == []
