"""docs/troubleshooting.md quotes the gate truly (issue 24 item 5).

Every code span in a "**The gate says**" paragraph is the gate's own words: split where the
page writes `…` (a value the gate fills in), each piece is part of a string the gate's code
holds; a reason code there, and any snake_case name the page shows, is one the gate uses. A
message reworded in the code fails this test until the page says what the gate now says.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
#: A code span: one or two backticks around text that holds no run of the same length.
SPAN = re.compile(r"(?<!`)(`{1,2})(?!`)(.+?)(?<!`)\1(?!`)", re.S)
CODE = re.compile(r"[a-z]+(?:_[a-z]+)+")


@cache
def gate_strings() -> tuple[str, ...]:
    """Every string constant of gate/ (an f-string's literal pieces one by one), and the
    text of its JSON schemas (policy keys)."""
    found: list[str] = []
    for module in sorted((ROOT / "gate").rglob("*.py")):
        tree = ast.parse(module.read_text("utf-8"))
        found += [node.value for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    found += [schema.read_text("utf-8") for schema in sorted((ROOT / "gate").rglob("*.json"))]
    return tuple(found)


def said(fragment: str) -> bool:
    return any(fragment in text for text in gate_strings())


def quotes() -> list[str]:
    paragraphs = [p for p in re.split(r"\n\s*\n", PAGE) if p.startswith("**The gate says**")]
    return [" ".join(span.split()) for p in paragraphs for _, span in SPAN.findall(p)]


QUOTES = quotes()


def test_the_page_quotes_the_gate() -> None:
    assert len(QUOTES) >= 10, QUOTES


@pytest.mark.parametrize("quote", QUOTES)
def test_every_quote_is_something_the_gate_prints(quote: str) -> None:
    pieces = [piece.strip() for piece in quote.split("…")]
    unsaid = [piece for piece in pieces if len(piece) >= 8 and not said(piece)]
    assert not unsaid, f"the gate does not say {unsaid} (quoted as {quote!r})"
    if CODE.fullmatch(quote):
        assert said(quote), quote


def test_every_snake_case_name_on_the_page_is_the_gates() -> None:
    names = {span.strip() for _, span in SPAN.findall(PAGE) if CODE.fullmatch(span.strip())}
    assert {"producer_modified", "no_baseline", "ci_incomplete"} <= names
    assert sorted(n for n in names if not said(n)) == []


def test_a_reworded_message_would_fail() -> None:
    """The check can fail: a quote the gate never printed is caught."""
    assert not said("the PR itself edits the build (")
    assert said("the PR itself edits the evidence chain (")
