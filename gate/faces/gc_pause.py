"""A command's objects live until it returns: the cyclic garbage collector waits meanwhile.

A claim of 100,000 mutations is about a million containers, read, judged and written once and
alive to the end. The collector walked them again and again while they were made (a quarter of
`verify`'s CPU on such a claim, issue 23) and could free none of them; reference counting still
frees everything else. The collector is left as it was found when the command returns.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
