"""What a failing test's record says: its message, and where in the source it failed.

Only a case with a result element gets here (a handful in any report), so this may read
the case's text and walk up to its suite. The place is what an annotation points at: a
`file:` URI (node's stack traces) is read as the path it names, and pytest's xunit1 `line`
attribute, pytest's 0-based location of the `def`, as the 1-based line an editor shows.
"""

from __future__ import annotations

import re
from pathlib import Path

from gate.claim.decimal_text import decimal
from gate.claim.junit_facts import FailingTest, Outcome
from gate.evidence.junit_node import Node
from gate.evidence.junit_tags import local

MESSAGE_CHARS = 500
#: How much of a failure's text is searched for its message and place.
SCAN_CHARS = 10_000

_PLACE = re.compile(r"(?:file://(?:localhost)?)?([A-Za-z0-9_./\\-]+\.[A-Za-z]{1,6}):(\d{1,7})\b")
#: pytest names its one suite element so by default (`junit_suite_name`) and, since 8.x,
#: its root so; its xunit1 family is the one that writes `file` and `line` on a case.
_PYTEST_SUITE = "pytest"
_PYTEST_ROOT = "pytest tests"


def first_line(text: str | None) -> str:
    for line in (text or "")[:SCAN_CHARS].splitlines():
        if line.strip():
            return line.strip()
    return ""


def stated_int(text: str | None) -> int | None:
    """A count or line as the file states it; None when it states none or no number."""
    return decimal(text)


def source_path(text: str) -> str:
    """A `file:` URI as the path it names (`file:///x/a.js` -> `/x/a.js`), else as written."""
    if text[:7].lower() != "file://":
        return text
    rest = text[7:]
    if rest[:10].lower() == "localhost/":
        rest = rest[9:]
    if not rest.startswith("/"):
        return text  # another host's file: not a path here
    if "%" in rest:
        from urllib.parse import unquote  # only for an escaped URI, not at every start

        rest = unquote(rest)
    return rest


def _by_pytest(case: Node) -> bool:
    """Whether the case's suite element or root is the one pytest writes."""
    element: Node | None = case.getparent()
    while element is not None:
        tag, name = local(element.tag), element.get("name")
        if (tag == "testsuite" and name == _PYTEST_SUITE) or (
            tag == "testsuites" and name == _PYTEST_ROOT
        ):
            return True
        element = element.getparent()
    return False


def _case_line(case: Node) -> int | None:
    line = stated_int(case.get("line"))
    if line is not None and _by_pytest(case):
        return line + 1  # pytest's location is 0-based; the line an editor shows is not
    return line


def failing_detail(
    key: str, outcome: Outcome, case: Node, result: Node,
    suite: str, classname: str, name: str,
) -> FailingTest:
    """The kept record of one failing case: `result` is its worst result element."""
    text = result.text
    message = result.get("message") or first_line(text) or result.get("type") or ""
    if len(message) > MESSAGE_CHARS:
        message = message[: MESSAGE_CHARS - 3] + "..."
    stated = case.get("file") or result.get("file")
    file = source_path(stated) if stated else None
    line = _case_line(case) or stated_int(result.get("line"))
    if (file is None or line is None) and text:
        found = _PLACE.search(text[:SCAN_CHARS])
        if found is not None and (file is None or found[1].endswith(Path(file).name)):
            file = file or found[1]
            line = line or int(found[2])
    return FailingTest(key, outcome, suite, classname, name, message, file, line)

