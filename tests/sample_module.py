"""A real module in sys.modules, with a function, a class and a method, for the watch's
tests (`test_watch_namespaces`, `test_watch_tags`): made afresh and removed again."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def sample_module(name: str) -> Iterator[types.ModuleType]:
    made = types.ModuleType(name)
    exec(  # noqa: S102 - the sample module's source, fixed here
        "def helper(x):\n    return x\n\n"
        "class Report:\n    def outcome(self):\n        return helper('failed')\n",
        made.__dict__,
    )
    sys.modules[name] = made
    try:
        yield made
    finally:
        sys.modules.pop(name, None)
