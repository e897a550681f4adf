"""The streaming JUnit XML reader: one file in, a `JUnitFile` out, memory flat.

Safety first, because the file comes from a CI job an agent may have influenced:
* the prolog (everything before the root element) is parsed on its own first and a DOCTYPE
  that declares entities or names an external DTD is refused before the body is read, so
  billion-laughs, quadratic-blowup and external-entity (XXE) files never get expanded;
* the body is parsed by an lxml parser with entity expansion, DTD loading and network
  access off, no `huge_tree`, and libxml2's tree-building limits applied by the gate
  itself (nesting deeper than 256, a kept text over 10 MB: junit_events);
* the file is read through a counter that stops at the size cap (default 1 GiB), also when
  the file grows while it is read.

Streaming: the parser builds no tree; its events go to a parser target (junit_events) that
counts each passing `<testcase>` from its attributes and hands the counter (junit_counter)
as small records only what is judged in full (suites, properties, cases with a result
element), then drops them. Memory stays flat: a passing test leaves nothing behind once
its suite element closes, or 8 bytes under `junit.reruns: repeated-cases` (junit_attempts).

The parts, and the one way they call each other: this module opens, caps, hashes and
parses the file and freezes what was counted; junit_prolog checks what comes before the
root element; junit_events is what is parsed (lxml's target calls) and calls the counter;
junit_counter is what is judged (the counting rule), with junit_attempts (merged reruns),
junit_suites (a suite's own counts), junit_properties (the run's properties and time) and
junit_failure (a failing test's message and place). None of them imports the one above
it (an import-linter contract in pyproject.toml).

A case's `time` attribute is not read: a verdict needs no durations, writers disagree on
the unit (seconds, milliseconds, nanoseconds) and the notation (`1.7e-05`, `0.`, `2,503.1`,
negative), and reading it costs a sixth of the reader's time.

junitparser (a project dependency) is not used here: it builds the whole tree in memory,
follows only one level of nested suites and reads the `tests` attributes we do not trust.
The tests use it as an independent *writer* of reports (`tests/junit_files.py`), which this
reader must read back; `tests/test_junit_oracle.py` checks this reader against a naive
whole-tree reading of the counting rule.
"""

from __future__ import annotations

import gc
import hashlib
import stat
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, cast

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import JUnitFile
from gate.claim.junit_options import JUnitOptions
from gate.claim.limits import DEFAULT_MAX_JUNIT_BYTES as DEFAULT_MAX_JUNIT_BYTES
from gate.claim.regular_file import open_regular
from gate.evidence.junit_counter import Counter
from gate.evidence.junit_events import CaseEvents
from gate.evidence.junit_prolog import CHUNK, check_prolog, syntax_error
from gate.evidence.junit_properties import CLEAN as CLEAN
from gate.evidence.junit_properties import COMMIT_PROPERTIES as COMMIT_PROPERTIES
from gate.evidence.junit_tags import ROOTS

#: Failing tests whose message and place are kept; beyond this they are counted and named
#: only, so a report with a million failures cannot exhaust memory through their texts.
MAX_DETAILED_FAILURES = 10_000
DEFAULT_OPTIONS = JUnitOptions()
#: The body's feed size (the prolog's largest): the tests and the bench read it here.
_CHUNK = CHUNK


class NotJUnit(InvalidInput):
    """Well-formed enough to have a root element, and that root is not a JUnit one
    (coverage.xml, Cobertura, checkstyle...): a caller reading a folder or an artifact
    skips the file with a note. A subclass, so a caller that does not expect it still
    refuses the file (fail closed); malformed XML is plain InvalidInput, never skipped."""

    def __init__(self, source: str, root: str) -> None:
        self.root = root
        super().__init__(
            source, None, f"the root element is <{root}>, not <testsuites> or <testsuite>;"
            " this is not a JUnit report", "point --junit at the JUnit XML files",
        )


class _CappedReader:
    """Reads a file in chunks for the parser, counting, hashing and stopping at the size
    cap (also when the file grows while it is read)."""

    __slots__ = ("_after", "_cap", "_handle", "_source", "count", "digest")

    def __init__(self, handle: IO[bytes], cap: int, source: str,
                 after: Callable[[int], None] | None = None) -> None:
        self._handle = handle
        self._cap = cap
        self._source = source
        self._after = after
        self.count = 0
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size if size > 0 else _CHUNK)
        self.count += len(data)
        if self.count > self._cap:
            raise _too_big(self._source, self.count, self._cap)
        self.digest.update(data)
        return data

    def chunk(self, _size: int = -1) -> bytes:
        """What the parser pulls: a whole chunk whatever size libxml2 asks for (4,000 bytes;
        lxml keeps the rest), after `after(count)`: the parser has then consumed every byte
        read so far, so the limits are checked once per chunk."""
        if self._after is not None:
            self._after(self.count)
        return self.read(_CHUNK)


class _Pulled:
    """The file object lxml pulls the body from: `read` is a capped reader's `chunk`."""

    __slots__ = ("read",)

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self.read = read


def _too_big(source: str, size: int, cap: int) -> InvalidInput:
    return InvalidInput(
        source, None, f"the file is over the size cap ({size} > {cap} bytes)",
        "raise it with --junit-max-bytes if the report is genuine",
    )


def _open(path: Path, source: str, max_bytes: int) -> tuple[IO[bytes], datetime]:
    """Open a regular file under the cap (a FIFO or device could block or never end)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InvalidInput(source, None, "no such file") from None
    except OSError as exc:
        raise InvalidInput(source, None, f"cannot read the file: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise InvalidInput(source, None, "is a directory, not a JUnit XML file")
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(source, None, "is not a regular file")
    if info.st_size > max_bytes:
        raise _too_big(source, info.st_size, max_bytes)
    if info.st_size == 0:
        raise InvalidInput(source, "1:1", "the file is empty",
                           "a JUnit report has at least a root element")
    try:
        handle = open_regular(path, source, "JUnit XML file")  # not swapped since stat
    except OSError as exc:
        raise InvalidInput(source, None, f"cannot read the file: {exc.strerror}") from None
    return handle, datetime.fromtimestamp(info.st_mtime, UTC)


def read_junit_file(
    path: Path,
    requested: Iterable[str] = (),
    max_bytes: int = DEFAULT_MAX_JUNIT_BYTES,
    source: str | None = None,
    identities: int | None = None,
    options: JUnitOptions = DEFAULT_OPTIONS,
) -> JUnitFile:
    """Read one JUnit XML file; InvalidInput (with line:column when known) if it cannot be,
    NotJUnit (a subclass) if its root element is not a JUnit one.

    With `identities` (a cap), also keep every test's identity and final outcome, up to
    that many tests (`identities_complete` says whether all fit): what comparing the test
    sets of two runs needs. Off by default, so memory stays flat in the number of tests.
    `options`: the policy's `junit` section (whether repeated cases are reruns)."""
    shown = source or str(path)
    counter = Counter(frozenset(requested), identities, options.repeated_cases,
                      MAX_DETAILED_FAILURES)
    handle, mtime = _open(path, shown, max_bytes)
    with handle:
        root_tag = check_prolog(handle, shown)
        if root_tag not in ROOTS:
            raise NotJUnit(shown, root_tag)
        handle.seek(0)
        events = CaseEvents(counter, shown)
        reader = _CappedReader(handle, max_bytes, shown, events.after_chunk)
        _parse(reader, events, shown)
    counter.quiet_passed += events.cases - counter.seen  # every case `case` did not judge
    root = events.root
    if root not in ROOTS:
        raise NotJUnit(shown, root or "?")
    totals, failing = counter.totals()
    run = counter.run
    return JUnitFile(
        path=shown,
        sha256=reader.digest.hexdigest(),
        root=root,
        suites=counter.suites,
        totals=totals,
        failing=tuple(failing),
        flaky=tuple(dict.fromkeys(counter.flaky_names)),
        named=dict(counter.named),
        matches={name: tuple(keys) for name, keys in counter.matches.items()},
        time=counter.time_source(mtime),
        commits=tuple(run.commits),
        tree_clean=run.tree_clean,
        base_code=tuple(run.base_code),
        plugin_modified=run.plugin_modified,
        plugin_findings=tuple(run.plugin_findings),
        plugin_unfinished=run.plugin_unfinished,
        plugin_interrupted=run.plugin_interrupted,
        identities=counter.identities,
        identities_complete=counter.identities_complete,
        mismatches=tuple(counter.checks.mismatches),
        reruns=options.reruns.value,
    )


def _too_deep(log: Any) -> bool:
    """libxml2's pull parser applies its own depth limit (256 without huge_tree), which can
    come before the gate's check at the end of a chunk: the same refusal, said one way."""
    fatal = next((entry for entry in log if entry.level_name == "FATAL"), None)
    return fatal is not None and fatal.message.startswith("Excessive depth in document")


def _parse(reader: _CappedReader, events: CaseEvents, source: str) -> None:
    """Parse the file with a parser whose target is `events`, reading a chunk at a time.

    libxml2 pulls the chunks through `reader.read` (`etree.parse` of a file object) rather
    than being pushed them (`feed`): the push parser looks ahead for the end of each tag
    before parsing it, and the pull parser reads the same bytes in about 4% fewer
    instructions of the floor's (docs/benchmarks.md)."""
    # lxml calls only the methods a target has (no comment, pi). "internal": a target gets
    # attribute values as written otherwise (`&` as `&#38;`); no entity is declared (the
    # prolog check refused any DTD) and an external one would be an error, never loaded.
    from lxml import etree  # only when JUnit is read, not at every start (issue 23)

    parser = etree.XMLParser(
        target=cast(Any, events), resolve_entities=cast(Any, "internal"), load_dtd=False,
        no_network=True, huge_tree=False,
    )
    # The cyclic collector would run every few hundred cases and find nothing: what a case
    # leaves is freed by reference counting (junit_events breaks the one cycle, a judged
    # case and its result elements). Turned back on only if it was on.
    collecting = gc.isenabled()
    gc.disable()
    try:
        etree.parse(cast(Any, _Pulled(reader.chunk)), parser)
    except etree.XMLSyntaxError as exc:
        if _too_deep(parser.error_log):
            raise events.too_deep() from None
        raise syntax_error(exc, source, parser.error_log) from None
    finally:
        if collecting:
            gc.enable()
