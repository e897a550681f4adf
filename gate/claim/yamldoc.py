"""Reading a YAML policy as strictly as JSON: a key written twice in one mapping is refused.

PyYAML's SafeLoader keeps the last of two equal keys, so `requires:` written twice would
silently drop the first list. Like `jsondoc.parse_json`, we refuse it, naming both places.
`yaml_positions` gives every value's line and column, as `jsonpos` does for JSON, so a policy
error names `file:line:column` like a claim error.
"""

from __future__ import annotations

from typing import Any

import yaml

from gate.claim.jsonpos import Position, escape_pointer_token


class DuplicateKeyError(yaml.MarkedYAMLError):
    """A mapping names one key twice; `problem_mark` is the second one."""


class StrictSafeLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys in any mapping (merge keys `<<` included)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                continue  # an unhashable key: SafeLoader reports it in its own words
            if first is not None:
                mark = first.start_mark
                raise DuplicateKeyError(
                    "while reading a mapping", node.start_mark,
                    f"the key {key!r} appears twice (first at line {mark.line + 1},"
                    f" column {mark.column + 1}): a reader could take either value; keep one",
                    key_node.start_mark,
                )
            seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def safe_load_strict(text: str) -> Any:
    """`yaml.safe_load`, refusing duplicate keys (DuplicateKeyError, a MarkedYAMLError)."""
    return yaml.load(text, Loader=StrictSafeLoader)  # noqa: S506 - a SafeLoader subclass


def yaml_positions(text: str) -> dict[str, Position]:
    """Map every JSON pointer of a YAML document (already read by `safe_load_strict`) to
    where it is written: a mapping entry at its key, an item at its value; '' is the root."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    found: dict[str, Position] = {}
    pending: list[tuple[str, yaml.Node, yaml.Node]] = [] if root is None else [("", root, root)]
    while pending:  # iterative: deep nesting cannot exhaust the stack
        where, mark_node, node = pending.pop()
        mark = mark_node.start_mark
        found.setdefault(where, Position(mark.line + 1, mark.column + 1))
        if isinstance(node, yaml.MappingNode):
            pending.extend((f"{where}/{escape_pointer_token(str(key.value))}", key, value)
                           for key, value in node.value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend((f"{where}/{index}", item, item)
                           for index, item in enumerate(node.value))
    return found
