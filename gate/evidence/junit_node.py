"""The elements the JUnit reader judges in full, as small records of what the parser said.

The parser target (junit_events) builds no tree; for the few elements the counter reads in
full (suites and what encloses them, properties, failures outside a case, cases with a
result element or more to check) it keeps a `Node`: the tag, the attribute dict lxml handed
over, the text, the children that matter and the parent. Nodes answer the part of lxml's
element API the counter uses (`get`, `getparent`, iteration, `tag`, `text`), so the judging
code reads as it would over a tree, at the cost of a dict and a list per node: rebuilding
lxml elements instead cost about 120,000 instructions per failing case (lxml checks every
attribute it sets).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass(slots=True, eq=False)
class Node:
    tag: str
    attrib: dict[str, str]
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    text: str | None = None

    def get(self, key: str) -> str | None:
        return self.attrib.get(key)

    def getparent(self) -> Node | None:
        return self.parent

    def __iter__(self) -> Iterator[Node]:
        return iter(self.children)

    def __len__(self) -> int:
        return len(self.children)
