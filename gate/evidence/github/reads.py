"""GitHub reads that do not depend on each other, made a few at a time, answered in order.

Most of the gate's wait is GitHub's round trips, one after the other; reads whose inputs are
already known (the artifacts of several runs, the deployments' statuses, the change's files)
can be in flight together. What comes back is exactly what the sequential path returns: the
results in the order asked, and the first failure in that order raised, after every read
already started has finished (nothing is left writing into a scratch folder that is about to
go). With `workers` 1 there is no thread at all: the old path, one call after the other.

The pool belongs to one run (`read_pool`, a context manager) and is shut down with it. A
read that waits on reads of its own never blocks the pool: what no worker has started yet,
the waiting caller runs itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar, cast

#: Reads in flight at once: enough to hide most round trips, few enough to stay far from
#: GitHub's secondary rate limit (it asks integrators not to fire many requests at once).
READ_WORKERS = 4

_T = TypeVar("_T")
_R = TypeVar("_R")


@dataclass(frozen=True)
class Reads:
    """Where independent reads run: a bounded pool, or (None) the calling thread."""

    executor: Executor | None = None

    def each(self, read: Callable[[_T], _R], items: Iterable[_T]) -> list[_R]:
        """`[read(x) for x in items]`, the reads overlapping; same results, same order, and
        the first exception in that order (later items not yet started are not read)."""
        work = list(items)
        if self.executor is None or len(work) < 2:
            return [read(item) for item in work]
        futures = [self.executor.submit(read, item) for item in work]
        return _in_order(read, work, futures)

    def both(self, first: Callable[[], _T], second: Callable[[], _R]) -> tuple[_T, _R]:
        """Two reads of different kinds together: (first(), second()), as if in that order."""
        answers = self.each(_call, [first, second])
        return cast(_T, answers[0]), cast(_R, answers[1])


def _call(read: Callable[[], object]) -> object:
    return read()


def _in_order(read: Callable[[_T], _R], work: list[_T], futures: list[Future[_R]]) -> list[_R]:
    results: list[_R] = []
    failure: BaseException | None = None
    for item, future in zip(work, futures, strict=True):
        if future.cancel():  # no worker took it: run it here, unless an earlier one failed
            if failure is None:
                try:
                    results.append(read(item))
                except BaseException as exc:  # re-raised below, in order
                    failure = exc
            continue
        try:
            value = future.result()  # started: always waited for
        except BaseException as exc:
            failure = failure or exc
            continue
        if failure is None:
            results.append(value)
    if failure is not None:
        raise failure
    return results


@contextmanager
def read_pool(workers: int = READ_WORKERS) -> Iterator[Reads]:
    """A pool for one run, shut down when the run ends; 1 (or less): no pool."""
    if workers <= 1:
        yield Reads()
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="claim-gate-read") as pool:
        yield Reads(pool)
