"""Parser events to the counter's calls: the JUnit reader's hot path, building no tree.

lxml hands a parser target each start tag with its attributes as a dict, each end tag, and
the text in pieces; libxml2 then builds no tree at all, which is most of the reader's speed
(it reads a report in about the time a bare `iterparse` pass takes to build and drop one).
A case that passed, the bulk of any report, costs a start and an end call and a few dict
reads (its `<system-out>` two more calls), and nothing of it is left once it ended.

What the counter reads in full is kept as a `Node` (junit_node): the suites and the
elements around them (a skeleton of the open ones, so `getparent()` answers as in the
file), properties, suite-level failures, and every case that has a result element or asks
for more than a count (a named test, a status attribute, merged reruns). The judging code
(`_Counter.case`, `suite`, `property`) therefore sees what it would see in a whole tree,
and only those rare elements pay for it.

A target parser skips libxml2's tree-building limit on a text (10 MB), and its push parser
the one on nesting (256; the pull parser the reader uses applies it, junit_reader). Text is
kept only inside a result element or a property, and dropped after each chunk otherwise, so
a long captured output costs no memory; both limits are applied to what is kept and to the
open elements after each chunk.
"""

from __future__ import annotations

import inspect
from collections.abc import Container
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import Outcome
from gate.evidence.junit_node import Node
from gate.evidence.junit_tags import PLAIN_RESULT, PLAIN_STATUS, RESULTS, ROOTS, local

if TYPE_CHECKING:
    from gate.evidence.junit_counter import Counter

#: libxml2's limits without huge_tree, which its tree builder applies and a target parser
#: does not: the gate keeps them for the elements it has open and the text it keeps.
MAX_DEPTH = 256
MAX_KEPT_TEXT = 10_000_000


class _Kind(Enum):
    CASE_RESULT = 1  # a result element of a case: judged with its case
    SUITE_LEVEL = 2  # a failure or error directly under a testsuite
    PROPERTY = 3


@dataclass(slots=True)
class _Leaf:
    """An element whose text is kept: what a case's result, a suite-level failure or a
    property says (all the text inside it, children's too: none of them has children
    that matter)."""

    tag: str
    attrib: dict[str, str]
    kind: _Kind
    mark: int  # where its text starts in the list of text pieces
    text: str = ""


def _attributes(attrib: Any) -> dict[str, str]:
    """lxml hands a dict, or a shared empty mapping when there is no attribute."""
    return attrib if type(attrib) is dict else {}


class CaseEvents:
    """An lxml parser target over one file; `after_chunk` after each chunk. Mutable on
    purpose: it lives for one parse."""

    __slots__ = ("cases", "counter", "data", "fast", "judged", "kept", "open", "pieces",
                 "prefilter", "quick", "remember", "root", "source")

    def __init__(self, counter: Counter, source: str) -> None:
        self.counter = counter
        self.source = source
        self.pieces: list[str] = []
        #: lxml calls it with each piece of text: a C method, no Python frame per piece.
        self.data = self.pieces.append
        #: One entry per open element: a case's attribute dict, a skeleton element, a
        #: leaf whose text is kept, or None (nothing in it is read).
        self.open: list[Any] = []
        self.judged: dict[int, list[_Leaf]] = {}  # id(case dict) -> its result elements
        self.kept = 0  # leaves open
        self.cases = 0  # <testcase> elements ended; those `counter.case` did not see passed
        self.root: str | None = None  # the root element's local name
        self.remember = counter.scopes.remember
        prefilter: Container[str] = counter.prefilter if counter.requested else frozenset()
        self.prefilter = prefilter
        #: Nothing asks more of a passing case than its identity: no names, no reruns, no
        #: outcome per identity (comparing test sets).
        self.quick = not prefilter and not counter.repeated and counter.identities is None
        #: `quick`, no case has a result element open and no text is kept: one attribute
        #: read per passing case for three (kept up to date where the rare paths change them).
        self.fast = self.quick

    # -- called by lxml ---------------------------------------------------------------
    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if tag == "testcase":
            self.open.append(attrib or {})  # a case without attributes gets its own dict
        elif tag == "system-out" or tag == "system-err":
            self.open.append(None)  # captured output: nothing in it counts
        else:
            self._start(tag, attrib)

    def end(self, tag: str) -> None:
        frame = self.open.pop()
        if type(frame) is dict:
            self.cases += 1
            if self.fast and "status" not in frame and "result" not in frame:
                classname = frame.get("classname")
                name = frame.get("name")
                if classname and name:
                    self.remember(f"{classname}::{name}")  # most of any report
                    self.pieces.clear()  # its text, at once: the next case reuses the memory
                    return
            self._case(tag, frame)
        elif frame is not None:
            self._end(frame)

    def close(self) -> None:
        """lxml calls it at the end of the document; the counter holds the results."""

    # -- the rare elements ------------------------------------------------------------
    def _start(self, tag: str, attrib: Any) -> None:
        name = local(tag)
        opened = self.open
        if name == "testcase":
            opened.append(_attributes(attrib))
            return
        if not opened:  # the root (its name was checked before the body was read)
            self.root = name
            if name in ROOTS:
                self.counter.suite_opened(self.cases)
            opened.append(Node(tag, _attributes(attrib)))
            return
        if len(opened) >= MAX_DEPTH:
            raise self.too_deep()
        parent = opened[-1]
        if type(parent) is dict:  # a child of a case
            if name in RESULTS:
                leaf = _Leaf(tag, _attributes(attrib), _Kind.CASE_RESULT, len(self.pieces))
                self.judged.setdefault(id(parent), []).append(leaf)
                self._keep(leaf)
            else:
                opened.append(None)
        elif isinstance(parent, Node):
            if name == "property":
                self._keep(_Leaf(tag, _attributes(attrib), _Kind.PROPERTY, len(self.pieces)))
            elif name in ("failure", "error") and local(parent.tag) == "testsuite":
                self._keep(_Leaf(tag, _attributes(attrib), _Kind.SUITE_LEVEL, len(self.pieces)))
            else:
                if name in ROOTS:
                    self.counter.suite_opened(self.cases)
                opened.append(Node(tag, _attributes(attrib), parent))
        else:  # inside an element nothing is read from (a leaf, output, an unknown one)
            opened.append(None)

    def _keep(self, leaf: _Leaf) -> None:
        self.open.append(leaf)
        self.kept += 1
        self.fast = False

    def _refresh(self) -> None:
        """After a case was judged or a leaf ended: can the inline count go on?"""
        self.fast = self.quick and not self.judged and not self.kept

    def _skeleton(self) -> Node:
        """The innermost open skeleton element (the suite of a case, for one)."""
        for frame in reversed(self.open):
            if isinstance(frame, Node):
                return frame
        raise AssertionError("the root is a skeleton element")  # pragma: no cover

    def _case(self, tag: str, attrib: dict[str, str]) -> None:
        """A case the inline count does not cover: a digest (merged reruns), or judged."""
        results = None
        if self.judged:
            results = self.judged.pop(id(attrib), None)
            self._refresh()
        counter = self.counter
        classname = attrib.get("classname")
        name = attrib.get("name")
        if (results is None and classname and name and attrib.get("status") in PLAIN_STATUS
                and attrib.get("result") in PLAIN_RESULT
                and not (self.prefilter and name in self.prefilter)):
            key = f"{classname}::{name}"
            if not counter.repeated:
                self.remember(key)
                counter.note_identity(key, Outcome.PASSED)
                return
            if not (counter.current and key in counter.current):
                counter.note_identity(key, Outcome.PASSED)
                digest = hash(key) ^ counter.salt
                counter.buckets[digest & 255].append(digest & ~3)
                return
        case = Node(tag, attrib, self._skeleton())
        case.children = [Node(leaf.tag, leaf.attrib, case, text=leaf.text or None)
                         for leaf in results or ()]
        counter.case(case)
        case.children.clear()  # no cycle left to the collector (which is off while parsing)

    def _end(self, frame: Node | _Leaf) -> None:
        counter = self.counter
        if isinstance(frame, _Leaf):
            self.kept -= 1
            self._refresh()
            frame.text = "".join(self.pieces[frame.mark :])
            if frame.kind is _Kind.CASE_RESULT:
                return  # judged when its case ends
            parent = self._skeleton()
            element = Node(frame.tag, frame.attrib, parent, text=frame.text or None)
            if frame.kind is _Kind.PROPERTY:
                counter.property(element)
            else:
                counter.suite_level(element, parent)
            return
        if local(frame.tag) in ROOTS:
            counter.suite(frame, self.cases)

    def too_deep(self) -> InvalidInput:
        return InvalidInput(
            self.source, None,
            f"elements are nested deeper than {MAX_DEPTH}; the gate refuses them, as libxml2"
            " does without huge_tree",
            "a JUnit report nests suites a few levels deep; fix the tool that wrote it",
        )

    # -- called by the reader ---------------------------------------------------------
    def after_chunk(self, offset: int) -> None:
        """After each chunk (`offset`: bytes read so far): drop text nothing keeps, apply the
        limits, and let a large suite element's identities spill to compact arrays."""
        if len(self.open) > MAX_DEPTH:  # cases in cases (the start of one is not checked)
            raise self.too_deep()
        if not self.kept:  # the text since the last passing case (or suite element)
            self.pieces.clear()
        elif len(self.pieces) > 64 and sum(map(len, self.pieces)) > MAX_KEPT_TEXT:
            raise InvalidInput(
                self.source, None,
                f"a failure message or property is over {MAX_KEPT_TEXT} characters"
                f" (Text node too long, by byte {offset})",
                "the gate keeps libxml2's 10 MB limit on the texts it reads; have the test"
                " runner put less output into the report",
            )
        self.counter.scopes.check()


# lxml inspects a target's `start` on every parser it makes (does it take an nsmap?), which
# builds a signature from the code object: a third of the cost of a small file. Stated once.
CaseEvents.start.__signature__ = inspect.signature(CaseEvents.start)  # type: ignore[attr-defined]
