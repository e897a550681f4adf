"""Whether a JUnit file may carry `status`/`result` attributes on its cases, seen in its bytes.

The reader's hot loop reads a case's `status` and `result` attributes (GoogleTest's
`result="skipped"`, jasmine's `status="notrun"`) only once the bytes read so far contain
one of those names followed by `=` (or by the end of the chunk): most reports never write
them, and two attribute look-ups are a fifth of the per-case work. The watch is only
trusted for encodings in which an ASCII attribute name is the same ASCII bytes (UTF-8,
ASCII, the ISO 8859 and Windows single-byte sets); for any other encoding, or a file whose
first byte is not `<`, every case is checked in full. A false alarm (a test *named*
`test_result_ok`) only costs speed: the flag never goes back to off.
"""

from __future__ import annotations

import re

#: The name then optional white space, then `=` or the end of what was read (the rest of
#: the attribute may be in the next chunk). No look-behind: a hit inside a value is a
#: false alarm, which is safe.
_ATTRIBUTE = re.compile(rb"(?:status|result)[ \t\r\n]*(?:=|\Z)")
#: Enough of the previous chunk to see a name cut in two by a chunk boundary.
TAIL = 16
_ENCODING = re.compile(rb"encoding\s*=\s*[\"']([^\"']{0,40})[\"']")
_ASCII_SUPERSETS = re.compile(
    r"utf-?8|us-ascii|ascii|iso-?8859-\d{1,2}|latin-?1|windows-125\d|cp125\d", re.IGNORECASE
)


def watchable(head: bytes) -> bool:
    """True when `head` (the file's first bytes) shows an encoding in which the names are
    ASCII bytes: no BOM but UTF-8's, `<` first, no NUL, and no declared encoding (UTF-8)
    or one that is a superset of ASCII byte for byte."""
    head = head.removeprefix(b"\xef\xbb\xbf")[:512]
    if not head.startswith(b"<") or b"\x00" in head:
        return False  # UTF-16/32 (BOM or not), EBCDIC, leading white space: check in full
    if not head.startswith(b"<?xml"):
        return True  # no declaration: UTF-8
    end = head.find(b"?>")
    if end < 0:
        return False
    declared = _ENCODING.search(head, 0, end)
    if declared is None:
        return b"encoding" not in head[:end]
    return _ASCII_SUPERSETS.fullmatch(declared[1].decode("latin-1")) is not None


def mentions(tail: bytes, data: bytes) -> bool:
    """True when the chunk `data` (after `tail`, the end of the previous chunk) may hold a
    `status` or `result` attribute. Cheap when it does not: two substring searches, no copy."""
    if b"status" in data or b"result" in data:
        return _ATTRIBUTE.search(tail + data) is not None
    edge = tail + data[:TAIL]  # a name cut in two by the chunk boundary
    return _ATTRIBUTE.search(edge) is not None
