"""The floor a JUnit reader is measured against: a bare lxml iterparse pass.

    python -m bench.junit_floor FILE [FILE ...]

It does the least a streaming reader must, with the same lxml safety settings on the same
file: `iterparse` with entity expansion, DTD loading and network off, no huge_tree, comments
and PIs dropped, and a tag filter (cases, suites, properties and result elements: all a
JUnit reader needs as end events, which only makes the floor faster), reading the file by
name (no size cap, no hash), counting testcases and result elements, clearing each case and
unlinking what came before it. Run as a command it is the whole-process floor of `claim-gate
junit`: this module imports lxml and nothing of the gate, so the floor's start is an
interpreter's and lxml's, and the comparison charges the gate's own start to the gate.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from lxml import etree

#: The reader's chunk size (gate/evidence/junit_prolog.py: a test keeps them equal).
CHUNK = 1 << 16
SEVERITY = ("error", "failure", "skipped")
RETRIES = ("flakyError", "flakyFailure", "rerunError", "rerunFailure")
#: The floor's tag filter: the end events a JUnit reader needs from iterparse.
TAGS = (
    "{*}testcase", "{*}testsuite", "{*}testsuites", "{*}property",
    *(f"{{*}}{tag}" for tag in (*SEVERITY, *RETRIES)),
)


def floor(path: str) -> tuple[int, int]:
    """The bare pass: the reader's lxml settings, counting cases and result elements."""
    tests = results = 0
    for _event, element in etree.iterparse(
        path, events=("end",), tag=TAGS, resolve_entities=False, load_dtd=False,
        no_network=True, huge_tree=False, remove_comments=True, remove_pis=True,
        chunk_size=CHUNK,
    ):
        if element.tag == "testcase":
            tests += 1
            element.clear()
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
        else:
            results += 1
    return tests, results


def main(argv: Sequence[str] | None = None) -> int:
    tests = results = 0
    for path in sys.argv[1:] if argv is None else argv:
        counted, found = floor(path)
        tests, results = tests + counted, results + found
    print(f"{tests} testcases, {results} result elements")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
