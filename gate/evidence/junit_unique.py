"""Counting distinct test identities per suite element, at C speed and in bounded memory.

`unique` counts (suite element, identity) pairs: the same name in two `<testsuite>`
elements (py310 and py311 shards merged into one file) is two identities. So identities
only need comparing within one suite element, and the reader keeps the identities of the
current one in a set (one `set.add` per case in the hot loop, no hash arithmetic) and
counts it when the element closes. A suite element over `SPILL_AT` cases (one giant
`<testsuite>`) moves their 64-bit string hashes to 64 compact arrays by their low bits,
counted bucket by bucket at the end, so memory stays about 8 bytes per case there too;
two of its identities whose hashes collide (2**-64 per pair) would count as one: `unique`
is a figure for people, never what a verdict or a failure count rests on.
"""

from __future__ import annotations

from array import array

SPILL_AT = 1 << 14
_BUCKETS = 64


class ScopeIdentities:
    """The current suite element's identities; `total` for those closed."""

    __slots__ = ("_spilled", "current", "remember", "total")

    def __init__(self) -> None:
        self.current: set[str] = set()
        #: Bound once: the hot loop calls it per case (cleared, never replaced).
        self.remember = self.current.add
        self._spilled: list[array[int]] | None = None
        self.total = 0

    def check(self) -> None:
        """Called every few dozen cases: spill a large suite element to arrays."""
        if len(self.current) >= SPILL_AT:
            self._spill()

    def _spill(self) -> None:
        if self._spilled is None:
            self._spilled = [array("q") for _ in range(_BUCKETS)]
        appends = [bucket.append for bucket in self._spilled]
        for value in self.current:
            digest = hash(value)
            appends[digest & (_BUCKETS - 1)](digest)
        self.current.clear()

    def close(self) -> None:
        """The suite element ended: count its distinct identities and start afresh."""
        if self._spilled is None:
            self.total += len(self.current)
            self.current.clear()
            return
        self._spill()
        self.total += sum(len(set(bucket)) for bucket in self._spilled)
        self._spilled = None
