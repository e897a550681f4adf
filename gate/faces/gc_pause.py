"""A command's objects live until it returns: the cyclic garbage collector waits meanwhile.

A claim of 100,000 mutations is about a million containers, read, judged and written once and
alive to the end. The collector walked them again and again while they were made (a quarter of
`verify`'s CPU on such a claim, issue 23) and could free none of them; reference counting still
frees everything else. The collector is left as it was found when the command returns.

The pytest plugin's end is the other such stretch: what the plugin keeps over a session and
its last work (the inventory, the JUnit read-back) bring a full collection due in the
session's last moments (on idna's suite, while Hypothesis's plugin imports Hypothesis for its
terminal summary), just before pytest makes five of its own at unconfigure. The plugin waits
from its end work to pytest's cleanups, so that pass is not made twice.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
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


def paused_until_cleanup(add_cleanup: Callable[[Callable[[], None]], None]) -> None:
    """Pause the automatic collector until the callbacks `add_cleanup` registers run (pytest's
    `config.add_cleanup`: the last one registered runs first, before the cleanup in which
    pytest makes its own five full collections, `gc_collect_harder`). A pass that falls due
    in between walks the very objects those five walk a moment later; explicit collections
    are not paused. Left as it was found: a collector already off stays off."""
    if gc.isenabled():
        gc.disable()
        add_cleanup(gc.enable)
