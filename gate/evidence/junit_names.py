"""Test identity: how a JUnit `<testcase>` is named, and which names a person may use for it.

The identity of a case (the key that merges repeated attempts) is `classname::name`; a case
without a classname takes its suite's name instead, and a case with neither keeps its plain
name. A policy or claim may name a test by any of its aliases:

* the identity itself, `classname::name` (e.g. `com.acme.FooTest::testBar`);
* `classname.name` (how Java and .NET people write a test);
* the plain `name` (ambiguous on purpose: every case with that name must pass);
* a pytest node id (`tests/test_x.py::TestY::test_z`) where one can be derived: from the
  case's `file` attribute when it names a `.py` file, else from a dotted classname whose
  module part is made of identifiers and whose class part starts at the first capitalised
  segment (`tests.test_x.TestY` -> `tests/test_x.py::TestY`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def identity(classname: str, name: str, suite: str) -> str:
    """The key of a test within one file (repeated keys are attempts of one test)."""
    if classname:
        return f"{classname}::{name}"
    if suite:
        return f"{suite}::{name}"
    return name


def pytest_node_id(classname: str, name: str, file: str | None) -> str | None:
    """The pytest node id of a case, or None when it cannot be derived with confidence."""
    if not classname or not name:
        return None
    parts = classname.split(".")
    if file and file.endswith(".py") and not file.startswith(("/", "\\")) and ":" not in file:
        path = file.replace("\\", "/").removeprefix("./")
        module = path[: -len(".py")].replace("/", ".")
        if classname == module:
            return f"{path}::{name}"
        if classname.startswith(module + "."):
            return "::".join([path, *classname[len(module) + 1 :].split("."), name])
    if not all(_IDENTIFIER.match(part) for part in parts):
        return None
    split = next((i for i, part in enumerate(parts) if i > 0 and part[:1].isupper()), len(parts))
    module_parts, classes = parts[:split], parts[split:]
    path = "/".join(module_parts) + ".py"
    return "::".join([path, *classes, name])


def aliases(classname: str, name: str, suite: str, file: str | None) -> set[str]:
    """Every name by which a policy or claim may require this case."""
    found = {identity(classname, name, suite), name}
    if classname:
        found.add(f"{classname}.{name}")
    node = pytest_node_id(classname, name, file)
    if node is not None:
        found.add(node)
    found.discard("")
    return found


def last_segments(requested: Iterable[str]) -> frozenset[str]:
    """Cheap prefilter: a case can only match a request if its name is one of these."""
    found: set[str] = set()
    for text in requested:
        found.add(text)
        found.add(text.rsplit("::", 1)[-1])
        found.add(text.rsplit(".", 1)[-1])
    return frozenset(found)
