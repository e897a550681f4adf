"""The prolog of a JUnit file, checked before its body is parsed, and libxml2's errors.

The file comes from a CI job an agent may have influenced, so everything before the root
element is read on its own first: a DOCTYPE that declares entities or names an external
DTD is refused before the body reaches libxml2, so billion-laughs, quadratic-blowup and
external-entity (XXE) files never get expanded. Nothing here counts or judges a test.
"""

from __future__ import annotations

import re
from typing import IO, TYPE_CHECKING, Any

from gate.claim.errors import InvalidInput
from gate.evidence.junit_tags import local

if TYPE_CHECKING:
    from lxml import etree

#: A JUnit root element starts near the top; a longer prolog is a DTD trick, not a report.
MAX_PROLOG_BYTES = 1 << 20
#: The largest feed of the prolog's parser (the body's chunk size too).
CHUNK = 1 << 16


def syntax_error(exc: etree.XMLSyntaxError, source: str, log: Any) -> InvalidInput:
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
            size = min(size * 4, CHUNK)
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
        raise syntax_error(exc, source, parser.error_log) from None
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
