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
counts each passing `<testcase>` from its attributes and keeps as small records only
what is judged in full (suites, properties, cases with a result element), then drops them.
A passing test leaves nothing behind once its suite element closes (its identity is kept
until then, to count `unique`: junit_unique); under `junit.reruns: repeated-cases` it
leaves 8 bytes (a 62-bit digest of its identity plus two flag bits), which is what lets
repeated attempts be merged without keeping names. Failing tests keep
their details (they are what a verdict and an annotation need), and so do tests a policy
or claim named. Failing tests are matched by their full identity, never by digest, so a
digest collision (keyed SipHash, 2**-62 per pair) could at worst merge the counts of two
passing or skipped tests: it can never hide a failure.

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

import hashlib
import re
import stat
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from gate.claim.errors import InvalidInput
from gate.claim.fail_to_pass import BASE_CODE_PROPERTY
from gate.claim.junit_facts import (
    FailingTest,
    JUnitFile,
    Outcome,
    SuiteMismatch,
    TimeSource,
    Totals,
)
from gate.claim.junit_options import JUnitOptions
from gate.claim.limits import DEFAULT_MAX_JUNIT_BYTES as DEFAULT_MAX_JUNIT_BYTES
from gate.claim.regular_file import open_regular
from gate.evidence.junit_events import CaseEvents
from gate.evidence.junit_names import aliases, identity, last_segments
from gate.evidence.junit_node import Node
from gate.evidence.junit_tags import RETRIES, ROOTS, SEVERITY, SKIP_STATUS, local
from gate.evidence.junit_time import parse_suite_timestamp
from gate.evidence.junit_unique import ScopeIdentities

if TYPE_CHECKING:
    from lxml import etree

#: A JUnit root element starts near the top; a longer prolog is a DTD trick, not a report.
MAX_PROLOG_BYTES = 1 << 20
_CHUNK = 1 << 16
_MESSAGE_CHARS = 500
#: Failing tests whose message and place are kept; beyond this they are counted and named
#: only, so a report with a million failures cannot exhaust memory through their texts.
MAX_DETAILED_FAILURES = 10_000
_SCAN_CHARS = 10_000
DEFAULT_OPTIONS = JUnitOptions()
#: Suite mismatches kept per kind (hiding failures, or only disagreeing); the rest are
#: counted by nothing: one is enough to say the file is not to be trusted as it stands.
MAX_MISMATCHES = 20

#: Properties naming the commit a run tested (the pytest plugin writes the first).
COMMIT_PROPERTIES = ("claim-gate.commit", "git.commit", "vcs.revision")
TREE_CLEAN_PROPERTY = "claim-gate.tree_clean"
#: The plugin's judgement of its own run (`inventory_properties`): a run it saw modified
#: never counts, whichever file reports it.
PLUGIN_MODIFIED_PROPERTY = "claim-gate.producer_modified"
PLUGIN_FINDING_PROPERTY = "claim-gate.finding"
_MAX_PLUGIN_FINDINGS = 20
#: The plugin's word that its run did not finish (`completion_properties`): how many collected
#: tests have no result of their own, and what ended the session early ("false": nothing).
PLUGIN_UNFINISHED_PROPERTY = "claim-gate.unfinished"
PLUGIN_INTERRUPTED_PROPERTY = "claim-gate.interrupted"
#: Written by claim-gate's pytest plugin: when the session started, with a zone.
STARTED_AT_PROPERTY = "claim-gate.started_at"
#: `claim-gate.tree_clean` values that say the tree was clean; any other stated value (false,
#: dirty, maybe, ...) means it was not: a run is trusted clean only when it says so plainly.
CLEAN = frozenset({"true", "1", "yes", "clean"})

_PLACE = re.compile(r"([A-Za-z0-9_./\\-]+\.[A-Za-z]{1,6}):(\d{1,7})\b")
_SKIPPED_BIT = 1
_FLAKY_BIT = 2


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

    __slots__ = ("_cap", "_handle", "_source", "count", "digest")

    def __init__(self, handle: IO[bytes], cap: int, source: str) -> None:
        self._handle = handle
        self._cap = cap
        self._source = source
        self.count = 0
        self.digest = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size if size > 0 else _CHUNK)
        self.count += len(data)
        if self.count > self._cap:
            raise _too_big(self._source, self.count, self._cap)
        self.digest.update(data)
        return data


def _too_big(source: str, size: int, cap: int) -> InvalidInput:
    return InvalidInput(
        source, None, f"the file is over the size cap ({size} > {cap} bytes)",
        "raise it with --junit-max-bytes if the report is genuine",
    )


def _syntax_error(exc: etree.XMLSyntaxError, source: str, log: Any) -> InvalidInput:
    """libxml2's first fatal error, with its place (the exception's own message can be vague).

    `log` is the parser's own error log (`exc.error_log` may hold other parses' errors)."""
    line, column = exc.position if exc.position else (0, 0)
    message = (exc.msg or str(exc)).strip()
    fatal = [entry for entry in log if entry.level_name == "FATAL"]
    if fatal:
        first = fatal[0]
        line, column, message = first.line, first.column, first.message.strip()
    place = f"{line}:{column}" if line else None
    fix = "a JUnit report must be complete, well-formed XML"
    return InvalidInput(source, place, f"not well-formed XML: {message}", fix)


_DOCTYPE = re.compile(r"<!DOCTYPE\s+[^\s\[>]+\s*(.?)", re.DOTALL)


def _prolog_text(head: bytes) -> str:
    """The first bytes as text, enough to see markup (UTF-16 by BOM or by '<' pattern)."""
    if head.startswith((b"\xff\xfe", b"<\x00")):
        return head.decode("utf-16-le", errors="replace")
    if head.startswith((b"\xfe\xff", b"\x00<")):
        return head.decode("utf-16-be", errors="replace")
    return head.removeprefix(b"\xef\xbb\xbf").decode("latin-1")


def scan_doctype(head: bytes, source: str) -> bool:
    """Refuse a DOCTYPE with an internal subset or an external DTD, reading only the prolog.

    This runs before libxml2 sees the file, so a bomb is refused without being parsed at
    all (libxml2 expands entities inside attribute values even with resolve_entities off;
    its amplification limit would stop it, but with a message nobody could act on).
    False when `head` ended inside the prolog (the caller reads more and asks again)."""
    text = _prolog_text(head).lstrip("\ufeff")
    position = 0
    while True:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        if text.startswith("<?", position):
            end = text.find("?>", position)
            position = len(text) if end < 0 else end + 2
        elif text.startswith("<!--", position):
            end = text.find("-->", position)
            position = len(text) if end < 0 else end + 3
        elif text.startswith("<!DOCTYPE", position):
            found = _DOCTYPE.match(text, position)
            follow = found[1] if found else ""
            if follow == ">":
                position = found.end() if found else len(text)
                continue
            if follow == "[":
                declares = "<!ENTITY" in text[position:]
                what = ("declares entities" if declares
                        else "has an internal DTD subset (where entities are declared)")
            else:
                what = "names an external DTD (which could declare entities)"
            raise InvalidInput(
                source, None,
                f"the DOCTYPE {what}; the gate refuses it before parsing (entity expansion"
                " is how billion-laughs, quadratic-blowup and external-entity attacks work)",
                "JUnit reports need no DOCTYPE; remove it",
            )
        else:
            return position < len(text)


#: The first look at a file: a JUnit prolog is a declaration and perhaps a comment.
_FIRST_LOOK = 4096


def check_prolog(handle: IO[bytes], source: str) -> str:
    """Refuse a DOCTYPE that declares entities or loads a DTD, before the body is parsed;
    return the root element's local name. Cheap per file: a 4 KiB look (the whole 1 MiB
    only for a long prolog or any DOCTYPE), then small feeds up to the first start tag."""
    head = handle.read(_FIRST_LOOK)
    if b"DOCTYPE" in head.replace(b"\x00", b"") or (
        not scan_doctype(head, source) and len(head) == _FIRST_LOOK
    ):
        handle.seek(0)
        scan_doctype(handle.read(MAX_PROLOG_BYTES), source)
    handle.seek(0)
    from lxml import etree  # only when JUnit is read, not at every start (issue 23)

    parser = etree.XMLPullParser(
        events=("start",), resolve_entities=False, load_dtd=False, no_network=True,
        huge_tree=False,
    )
    read = 0
    size = 512
    try:
        while read < MAX_PROLOG_BYTES:
            data = handle.read(size)
            size = min(size * 4, _CHUNK)
            if not data:
                parser.close()
                break
            read += len(data)
            parser.feed(data)
            for _event, element in parser.read_events():
                if isinstance(element, etree._Element):
                    _refuse_dtd(element.getroottree().docinfo, source)
                    return local(element.tag) if isinstance(element.tag, str) else "?"
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(exc, source, parser.error_log) from None
    raise InvalidInput(
        source, None, f"no root element within the first {MAX_PROLOG_BYTES} bytes",
        "a JUnit report starts with <testsuites> or <testsuite>",
    )


def _refuse_dtd(docinfo: Any, source: str) -> None:
    """`docinfo` is lxml's DocInfo (its stubs lack system_url and the DTD's entities)."""
    if docinfo.system_url or docinfo.public_id:
        raise InvalidInput(
            source, None,
            f"the DOCTYPE names an external DTD ({docinfo.system_url or docinfo.public_id});"
            " the gate never loads one (it could declare entities or reach the network)",
            "JUnit reports need no DOCTYPE; remove it",
        )
    dtd = docinfo.internalDTD
    if dtd is None:
        return
    entities = [entity.name or "?" for entity in dtd.iterentities()]
    if entities:
        shown = ", ".join(entities[:5]) + (" ..." if len(entities) > 5 else "")
        raise InvalidInput(
            source, None,
            f"the DOCTYPE declares entities ({shown}); the gate refuses them"
            " (entity expansion is how billion-laughs and external-entity attacks work)",
            "JUnit reports need no DOCTYPE; remove it",
        )


@dataclass(slots=True)
class _Attempts:
    """Attempts of one test whose first failing attempt was seen (rare: kept in full)."""

    suite: str
    classname: str
    name: str
    attempts: int
    last: Outcome
    failed_before: bool
    detail: FailingTest | None
    flaky: bool


def _first_line(text: str | None) -> str:
    for line in (text or "")[:_SCAN_CHARS].splitlines():
        if line.strip():
            return line.strip()
    return ""


def _int(text: str | None) -> int | None:
    if text is not None and text.strip().isdigit():
        return int(text.strip())
    return None


def _failing(
    key: str, outcome: Outcome, case: Node, result: Node,
    suite: str, classname: str, name: str,
) -> FailingTest:
    text = result.text
    message = result.get("message") or _first_line(text) or result.get("type") or ""
    if len(message) > _MESSAGE_CHARS:
        message = message[: _MESSAGE_CHARS - 3] + "..."
    file = case.get("file") or result.get("file")
    line = _int(case.get("line")) or _int(result.get("line"))
    if (file is None or line is None) and text:
        found = _PLACE.search(text[:_SCAN_CHARS])
        if found is not None and (file is None or found[1].endswith(Path(file).name)):
            file = file or found[1]
            line = line or int(found[2])
    return FailingTest(key, outcome, suite, classname, name, message, file, line)


class _Counter:
    """Accumulates one file. Mutable on purpose: it lives for one parse and is then frozen."""

    def __init__(
        self, requested: frozenset[str], identity_cap: int | None = None,
        repeated: bool = False,
    ) -> None:
        self.requested = requested
        #: True: same-identity cases in one suite element are attempts of one test (policy).
        self.repeated = repeated
        #: identity -> final outcome, only when asked for (comparing test sets), at most cap.
        self.identities: dict[str, Outcome] | None = None if identity_cap is None else {}
        self.identity_cap = identity_cap or 0
        self.identities_complete = True
        self.prefilter = last_segments(requested)
        #: Digests of named cases in buckets by their low bits: merging (`repeated`) works a
        #: bucket at a time, so that no set of a million Python ints is ever built.
        self.buckets = [array("q") for _ in range(256)] if repeated else []
        #: Otherwise `unique` is counted one suite element at a time (junit_unique).
        self.scopes = ScopeIdentities()
        self.quiet_passed = 0
        self.quiet_skipped = 0
        self.quiet_flaky = 0
        self.unnamed = 0
        #: (suite scope, identity) -> attempts of a test that failed at least once (repeated).
        self.troubled: dict[tuple[int, str], _Attempts] = {}
        #: Failing cases, each one a failing test (separate, the default).
        self.failing: list[FailingTest] = []
        self.failures = 0
        self.errors = 0
        self.suite_errors = 0
        #: (scope, identity) of named cases with no child element in the open suite: passes
        #: unless the suite's own `tests` leaves cases out (jest-junit's `test.todo`).
        self.bare_named: list[tuple[int, str]] = []
        #: (scope, identity) of each suite-level result: failing, but not a test.
        self.suite_level_keys: set[tuple[int, str]] = set()
        #: Attempts merge only within one <testsuite> element (a scope): a file merged from
        #: several runs (py310, py311) must not let one run's pass hide another's failure.
        self.scope = 0
        self.salt = 0
        self.current: set[str] = set()  # identities troubled in the current scope
        self.named: dict[str, Outcome] = {}
        #: (scope, identity) -> last outcome, for named tests and identities (repeated).
        self.scoped_named: dict[tuple[int, str], Outcome] = {}
        self.scoped_ids: dict[tuple[int, str], Outcome] = {}
        self.matches: dict[str, list[str]] = {}
        self.flaky_names: list[str] = []
        self.suites = 0
        self.zoned: list[datetime] = []
        self.started: list[datetime] = []  # claim-gate.started_at (the pytest plugin's)
        self.time_problems: list[str] = []
        self.commits: dict[tuple[str, str], None] = {}
        self.tree_clean: str | None = None
        self.base_code: dict[str, None] = {}  # claim-gate.base_code values (a set, in order)
        self.plugin_modified: str | None = None
        self.plugin_findings: list[str] = []
        self.plugin_unfinished = 0
        self.plugin_interrupted: str | None = None
        self.coded = 0  # quiet attempts stored with a skipped/flaky flag
        #: <testcase> elements judged by `case` (the inline ones are counted by the loop),
        #: and failing elements (including suite-level ones), for the attribute check.
        self.seen = 0
        self.seen_failing = 0
        self.marks: list[tuple[int, int, int]] = []  # (depth, elements, failing) at suite ends
        self.mismatches: list[SuiteMismatch] = []

    # -- one <testcase> -------------------------------------------------------------
    def case(self, case: Node) -> None:
        self.seen += 1
        outcome = Outcome.PASSED
        worst: Node | None = None
        retried = False
        if len(case):
            for child in case:
                tag = child.tag
                if not isinstance(tag, str):
                    continue
                if tag[:1] == "{":
                    tag = local(tag)
                severity = SEVERITY.get(tag)
                if severity is not None:
                    if severity > outcome:
                        outcome, worst = severity, child
                elif tag in RETRIES:
                    retried = True
        if outcome is Outcome.PASSED:
            # GoogleTest writes status="run" result="skipped"; jasmine status="notrun".
            for attribute in ("status", "result"):
                value = case.get(attribute)
                if value is not None and value.strip().lower() in SKIP_STATUS:
                    outcome = Outcome.SKIPPED
        name = case.get("name") or ""
        classname = case.get("classname") or ""
        suite = ""
        if not classname or outcome >= Outcome.FAILURE:
            parent = case.getparent()
            suite = (parent.get("name") or "") if parent is not None else ""
        self.record(case, worst, outcome, retried and outcome is Outcome.PASSED,
                    suite, classname, name)

    def suite_level(self, result: Node, suite: Node) -> None:
        """A <failure>/<error> directly under a suite (class setup failed): a failure or an
        error of the run, counted in `suite_errors`, and not one more test (a suite of 7
        cases and a suite error is 7 tests, 1 error)."""
        tag = local(result.tag)
        outcome = Outcome.ERROR if tag == "error" else Outcome.FAILURE
        name = suite.get("name") or ""
        self.suite_errors += 1
        label = f"({tag} outside any testcase)"
        self.suite_level_keys.add((self.scope, identity("", label, name)))
        self.record(result, result, outcome, False, name, "", label)

    def _outcome_of(
        self, table: dict[str, Outcome], scoped: dict[tuple[int, str], Outcome], key: str,
        outcome: Outcome,
    ) -> None:
        if self.repeated:  # the last attempt in a scope; scopes are combined at the end
            scoped[(self.scope, key)] = outcome
        else:
            table[key] = _combined(table.get(key), outcome)

    def note_identity(self, key: str, outcome: Outcome) -> None:
        """Keep the identity's outcome for comparing test sets, up to the cap (if asked)."""
        ids = self.identities
        if ids is None:
            return
        held = len(self.scoped_ids) if self.repeated else len(ids)
        if key in ids or (self.scope, key) in self.scoped_ids or held < self.identity_cap:
            self._outcome_of(ids, self.scoped_ids, key, outcome)
        else:
            self.identities_complete = False

    def record(
        self, case: Node, worst: Node | None, outcome: Outcome,
        flaky: bool, suite: str, classname: str, name: str,
    ) -> None:
        failing = outcome >= Outcome.FAILURE
        self.seen_failing += failing
        if not name and not classname:
            self.unnamed += 1
            key = f"(unnamed testcase #{self.unnamed})"
            merge = False
        else:
            key = identity(classname, name, suite)
            merge = True
            self.note_identity(key, outcome)
        if self.requested and (name in self.prefilter or key in self.prefilter):
            file = case.get("file")
            matched = aliases(classname, name, suite, file) & self.requested
            if matched:
                self._outcome_of(self.named, self.scoped_named, key, outcome)
                if outcome is Outcome.PASSED and not len(case):
                    self.bare_named.append((self.scope, key))
                for wanted in matched:
                    keys = self.matches.setdefault(wanted, [])
                    if key not in keys:
                        keys.append(key)
        if not self.repeated:
            self._separate(case, worst, outcome, flaky, suite, classname, name, key, merge)
            return
        entry = self.troubled.get((self.scope, key)) if merge else None
        if entry is None and not failing:
            if flaky:
                self.flaky_names.append(key)
            if merge:  # a later attempt may still fail: remember this one by its digest
                digest = hash(key) ^ self.salt
                code = (_SKIPPED_BIT if outcome is Outcome.SKIPPED else 0) | (_FLAKY_BIT * flaky)
                self.coded += code != 0
                self.buckets[digest & 255].append((digest & ~3) | code)
            if outcome is Outcome.SKIPPED:
                self.quiet_skipped += 1
            else:
                self.quiet_passed += 1
                self.quiet_flaky += flaky
            return
        detail = None
        if failing and worst is not None and len(self.troubled) < MAX_DETAILED_FAILURES:
            detail = _failing(key, outcome, case, worst, suite, classname, name)
        if entry is None:
            self.current.add(key)
            self.troubled[(self.scope, key)] = _Attempts(
                suite, classname, name, 1, outcome, failing, detail, flaky
            )
            return
        entry.attempts += 1
        entry.failed_before = entry.failed_before or entry.last >= Outcome.FAILURE
        entry.last = outcome
        entry.flaky = flaky
        if detail is not None:
            entry.detail = detail

    def _separate(
        self, case: Node, worst: Node | None, outcome: Outcome,
        flaky: bool, suite: str, classname: str, name: str, key: str, merge: bool,
    ) -> None:
        """The default rule: this case is one run of a test, whatever other cases say."""
        if merge and (self.scope, key) not in self.suite_level_keys:
            self.scopes.remember(key)
        if outcome is Outcome.PASSED:
            self.quiet_passed += 1
            if flaky:
                self.quiet_flaky += 1
                self.flaky_names.append(key)
            return
        if outcome is Outcome.SKIPPED:
            self.quiet_skipped += 1
            return
        if outcome is Outcome.ERROR:
            self.errors += 1
        else:
            self.failures += 1
        detail = None
        if worst is not None and len(self.failing) < MAX_DETAILED_FAILURES:
            detail = _failing(key, outcome, case, worst, suite, classname, name)
        self.failing.append(detail or FailingTest(key, outcome, suite, classname, name, ""))

    # -- suites and properties ------------------------------------------------------
    def suite(self, suite: Node, inline: int) -> None:
        """A suite element closed; `inline`: cases the hot loop counted so far by itself."""
        element = local(suite.tag)
        if element == "testsuite":
            self.suites += 1
            self.scopes.close()
            self.scope += 1  # the cases read from here on belong to the next suite element
            self.salt = _scope_salt(self.scope)
            self.current = set()
        stamp = suite.get("timestamp")
        if stamp:
            parsed = parse_suite_timestamp(stamp)
            if parsed.at is not None:
                self.zoned.append(parsed.at)
            elif parsed.problem is not None and len(self.time_problems) < 3:
                self.time_problems.append(parsed.problem)
        self._check_attributes(suite, element, self.seen + inline, self.seen_failing)

    def _check_attributes(
        self, suite: Node, element: str, elements: int, failing: int
    ) -> None:
        """Compare the suite's own tests/failures/errors with what was counted inside it.

        Only end events reach Python, so a suite's share is the running count since the
        last suite that closed at its depth or above (earlier deeper ones are its own
        children). Exact unless a suite mixes loose cases between child suites."""
        depth = 0
        parent = suite.getparent()
        while parent is not None:
            depth += 1
            parent = parent.getparent()
        marks = self.marks
        while marks and marks[-1][0] > depth:
            marks.pop()
        before = marks[-1] if marks else (0, 0, 0)
        while marks and marks[-1][0] >= depth:
            marks.pop()
        marks.append((depth, elements, failing))
        counted_tests = elements - before[1]
        counted_failing = failing - before[2]
        tests = _int(suite.get("tests"))
        failures, errors = _int(suite.get("failures")), _int(suite.get("errors"))
        stated = None if failures is None and errors is None else (failures or 0) + (errors or 0)
        tests_differ = tests is not None and tests != counted_tests
        if tests is not None and tests < counted_tests:
            self._bare_cases_unproven()
        self.bare_named = []
        if not tests_differ and (stated is None or stated == counted_failing):
            return
        found = SuiteMismatch(element, suite.get("name") or "", tests, counted_tests, stated,
                              counted_failing)
        kept = sum(m.hides_failures is found.hides_failures for m in self.mismatches)
        if kept < MAX_MISMATCHES:
            self.mismatches.append(found)

    def _bare_cases_unproven(self) -> None:
        """The suite counts fewer tests than it holds cases: a bare case may be one it left out
        (a `test.todo`), so no bare case of it shows a named test passed (never a pass)."""
        for scope, key in self.bare_named:
            if self.repeated and self.scoped_named.get((scope, key)) is Outcome.PASSED:
                self.scoped_named[(scope, key)] = Outcome.SKIPPED
            elif not self.repeated and self.named.get(key) is Outcome.PASSED:
                self.named[key] = Outcome.SKIPPED

    def property(self, prop: Node) -> None:
        holder = prop.getparent()
        owner = holder.getparent() if holder is not None else None
        if owner is None or not isinstance(owner.tag, str) or local(owner.tag) not in ROOTS:
            return
        name = prop.get("name")
        value = (prop.get("value") or prop.text or "").strip()
        if name == STARTED_AT_PROPERTY and value:
            parsed = parse_suite_timestamp(value)
            if parsed.at is not None:
                self.started.append(parsed.at)  # a naive value is ignored, never read as UTC
        elif name in COMMIT_PROPERTIES and value:
            self.commits[(name, value)] = None
        elif name == BASE_CODE_PROPERTY:
            self.base_code[value] = None
        elif name == TREE_CLEAN_PROPERTY and (
            self.tree_clean is None or value.lower() not in CLEAN
        ):
            self.tree_clean = value  # shards merged into one file: any dirty one decides
        elif name == PLUGIN_MODIFIED_PROPERTY and (
            self.plugin_modified is None or value.lower() != "false"
        ):
            self.plugin_modified = value  # any shard the plugin saw modified decides
        elif name == PLUGIN_FINDING_PROPERTY and len(self.plugin_findings) < _MAX_PLUGIN_FINDINGS:
            self.plugin_findings.append(value[:200])
        elif name == PLUGIN_UNFINISHED_PROPERTY:
            # Shards merged into one file each say theirs; a value that is no count is no
            # "nothing unfinished" either.
            self.plugin_unfinished += int(value) if value.isdigit() else 1
        elif name == PLUGIN_INTERRUPTED_PROPERTY and value.lower() != "false":
            self.plugin_interrupted = value[:300]

    # -- the end ----------------------------------------------------------------------
    def totals(self) -> tuple[Totals, list[FailingTest]]:
        for table, scoped in ((self.named, self.scoped_named),
                              (self.identities, self.scoped_ids)):
            for (_, key), outcome in scoped.items():
                if table is not None:
                    table[key] = _combined(table.get(key), outcome)
        passed, skipped, flaky = self.quiet_passed, self.quiet_skipped, self.quiet_flaky
        if not self.repeated:
            self.scopes.close()
            unique = self.scopes.total + self.unnamed
            tests = passed + skipped + self.failures + self.errors - self.suite_errors
            return Totals(tests, passed, self.failures, self.errors, skipped, flaky, unique,
                          self.suite_errors), self.failing
        tests = passed + skipped
        # Quiet attempts before a test's first failure are attempts of that test: drop them.
        early: dict[int, dict[int, tuple[int, str]]] = {}
        for scope, key in self.troubled:
            digest = hash(key) ^ _scope_salt(scope)
            early.setdefault(digest & 255, {})[digest >> 2] = (scope, key)
        failing: list[FailingTest] = []
        failures = errors = 0
        for index, bucket in enumerate(self.buckets):
            troubled_here = early.get(index, {})
            if not bucket:
                continue
            if not troubled_here and not self.coded and len(set(bucket)) == len(bucket):
                continue  # the common case, checked at C speed: no flags, no repeats
            keys = {value >> 2 for value in bucket}
            if len(keys) == len(bucket) and keys.isdisjoint(troubled_here):
                continue
            last: dict[int, int] = {}
            for value in bucket:
                short = value >> 2
                before = last.get(short)
                code = value & 3
                if before is not None:
                    code |= before & _FLAKY_BIT
                last[short] = code
                # undo this attempt's contribution; the merged outcome is added back below
                tests -= 1
                if value & _SKIPPED_BIT:
                    skipped -= 1
                else:
                    passed -= 1
                    flaky -= (value & _FLAKY_BIT) >> 1
                if short in troubled_here:  # an attempt before this test's first failure
                    self.troubled[troubled_here[short]].attempts += 1
            for short, code in last.items():
                if short in troubled_here:
                    continue
                tests += 1
                if code & _SKIPPED_BIT:
                    skipped += 1
                else:
                    passed += 1
                    flaky += (code & _FLAKY_BIT) >> 1
        failing_keys: set[str] = set()
        for (scope, key), entry in self.troubled.items():
            tests += (scope, key) not in self.suite_level_keys
            if entry.last is Outcome.PASSED:
                passed += 1
                if entry.failed_before or entry.flaky:
                    flaky += 1
                    self.flaky_names.append(key)
            elif entry.last is Outcome.SKIPPED:
                skipped += 1
            else:
                if entry.last is Outcome.ERROR:
                    errors += 1
                else:
                    failures += 1
                failing.append(_final_detail(key, entry))
                failing_keys.add(key)
        self.flaky_names = [  # a test flaky in one attempt but failing in its last is not
            key for key in self.flaky_names if key not in failing_keys
        ]
        # merged within each suite element, every test here is one identity there
        totals = Totals(tests, passed, failures, errors, skipped, flaky, tests,
                        self.suite_errors)
        return totals, failing

    def time_source(self, mtime: datetime) -> TimeSource:
        if self.started:
            return TimeSource(min(self.started), "timestamp",
                              "claim-gate.started_at, written by the pytest plugin with a zone")
        if self.time_problems:
            return TimeSource(
                mtime, "mtime",
                f"{self.time_problems[0]}; using the file's modification time on this machine"
                " (a time without a zone is never read as UTC)",
            )
        if self.zoned:
            return TimeSource(min(self.zoned), "timestamp",
                              "the earliest suite timestamp (it carries a zone)")
        return TimeSource(mtime, "mtime",
                          "no suite timestamp; using the file's modification time on this machine")


def _combined(before: Outcome | None, now: Outcome) -> Outcome:
    """One identity seen more than once: a failure stands; else a pass beats a skip."""
    if before is None:
        return now
    worst = max(before, now)
    if worst >= Outcome.FAILURE:
        return worst
    return Outcome.PASSED if Outcome.PASSED in (before, now) else Outcome.SKIPPED


def _scope_salt(scope: int) -> int:
    """Mixed into a quiet attempt's digest so attempts in different suite elements differ;
    the low two bits stay clear for the skipped/flaky flags."""
    return 0 if scope == 0 else hash(("claim-gate junit scope", scope)) & ~3


def _final_detail(key: str, entry: _Attempts) -> FailingTest:
    detail = entry.detail or FailingTest(
        key, entry.last, entry.suite, entry.classname, entry.name, ""
    )
    if detail.outcome is not entry.last or detail.attempts != entry.attempts:
        detail = FailingTest(
            detail.identity, entry.last, detail.suite, detail.classname, detail.name,
            detail.message, detail.file, detail.line, entry.attempts,
        )
    return detail


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
    counter = _Counter(frozenset(requested), identities, options.repeated_cases)
    handle, mtime = _open(path, shown, max_bytes)
    with handle:
        root_tag = check_prolog(handle, shown)
        if root_tag not in ROOTS:
            raise NotJUnit(shown, root_tag)
        handle.seek(0)
        reader = _CappedReader(handle, max_bytes, shown)
        events = CaseEvents(counter, shown)
        _parse(reader, events, shown)
    counter.quiet_passed += events.cases - counter.seen  # every case `case` did not judge
    root = events.root
    if root not in ROOTS:
        raise NotJUnit(shown, root or "?")
    totals, failing = counter.totals()
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
        commits=tuple(counter.commits),
        tree_clean=counter.tree_clean,
        base_code=tuple(counter.base_code),
        plugin_modified=counter.plugin_modified,
        plugin_findings=tuple(counter.plugin_findings),
        plugin_unfinished=counter.plugin_unfinished,
        plugin_interrupted=counter.plugin_interrupted,
        identities=counter.identities,
        identities_complete=counter.identities_complete,
        mismatches=tuple(counter.mismatches),
        reruns=options.reruns.value,
    )


def _parse(reader: _CappedReader, events: CaseEvents, source: str) -> None:
    """Feed the file to a parser whose target is `events`, a chunk at a time."""
    # lxml calls only the methods a target has (no comment, pi). "internal": a target gets
    # attribute values as written otherwise (`&` as `&#38;`); no entity is declared (the
    # prolog check refused any DTD) and an external one would be an error, never loaded.
    from lxml import etree  # only when JUnit is read, not at every start (issue 23)

    parser = etree.XMLParser(
        target=cast(Any, events), resolve_entities=cast(Any, "internal"), load_dtd=False,
        no_network=True, huge_tree=False,
    )
    try:
        while data := reader.read(_CHUNK):
            parser.feed(data)
            events.after_chunk(reader.count)
        parser.close()
    except etree.XMLSyntaxError as exc:
        raise _syntax_error(exc, source, parser.error_log) from None
