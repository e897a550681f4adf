"""Hostile XML: entity bombs and external entities are refused before they can expand.

Each attack is read in a child process that reports its own peak memory (`VmHWM` of its
address space: `ru_maxrss` would include the forked copy of the big pytest parent before
exec). The assertion is on the refusal and on memory, never on time.
"""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.evidence.junit_reader import read_junit_file

#: The whole child (interpreter, lxml and the gate: about 35 MiB) must stay under the
#: issue's 50 MB; an expanded billion-laughs needs gigabytes, the quadratic blowup below
#: about 2.5 GB.
CHILD_PEAK_RSS_KB = 50 * 1024

_CHILD = """
import sys
from pathlib import Path
from gate.claim.errors import InvalidInput
from gate.evidence.junit_reader import read_junit_file
try:
    read_junit_file(Path(sys.argv[1]))
except InvalidInput as exc:
    print("REFUSED", exc)
else:
    print("READ")
status = Path("/proc/self/status").read_text()
print("PEAK", next(l.split()[1] for l in status.splitlines() if l.startswith("VmHWM:")))
"""


def _billion_laughs() -> str:
    lines = ['<!ENTITY lol0 "lol">']
    lines += [f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10)]
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE testsuite [\n' + "\n".join(lines) + "\n]>\n"
        '<testsuite name="s"><testcase classname="c" name="&lol9;"/></testsuite>\n'
    )


def _quadratic() -> str:
    blob = "A" * 50_000
    refs = "&a;" * 50_000
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE testsuite [<!ENTITY a "{blob}">]>\n'
        f'<testsuite name="s"><testcase classname="c" name="t">'
        f'<failure>{refs}</failure></testcase></testsuite>\n'
    )


def _local_file(target: Path) -> str:
    return (
        f'<?xml version="1.0"?>\n<!DOCTYPE testsuite [<!ENTITY x SYSTEM "file://{target}">]>\n'
        '<testsuite name="s"><testcase classname="c" name="t"><failure>&x;</failure>'
        "</testcase></testsuite>\n"
    )


def _run_child(path: Path) -> tuple[str, int]:
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)], cwd=root, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )
    output, _ = process.communicate()
    assert process.returncode == 0, output
    report, peak = output.rsplit("PEAK ", 1)
    return report, int(peak)


@pytest.mark.parametrize("maker", [_billion_laughs, _quadratic], ids=["billion", "quadratic"])
def test_entity_bombs_are_refused_with_small_memory(
    tmp_path: Path, maker: object
) -> None:
    assert callable(maker)
    path = tmp_path / "bomb.xml"
    path.write_text(maker(), encoding="utf-8")
    output, peak_kb = _run_child(path)
    assert output.startswith("REFUSED "), output
    assert "the DOCTYPE declares entities" in output
    assert str(path) in output
    assert peak_kb < CHILD_PEAK_RSS_KB, f"peak RSS {peak_kb} KiB"


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-8", b"\xef\xbb\xbf"), ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")],
)
def test_a_bomb_behind_a_byte_order_mark_is_refused_by_the_scan(
    tmp_path: Path, encoding: str, bom: bytes
) -> None:
    path = tmp_path / "bomb.xml"
    text = _billion_laughs().replace('<?xml version="1.0"?>', "")
    path.write_bytes(bom + text.encode(encoding))
    with pytest.raises(InvalidInput, match="the DOCTYPE declares entities"):
        read_junit_file(path)


def test_external_entity_to_a_local_file_is_refused_and_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE", encoding="utf-8")
    path = tmp_path / "xxe.xml"
    path.write_text(_local_file(secret), encoding="utf-8")
    with pytest.raises(InvalidInput, match="the DOCTYPE declares entities") as caught:
        read_junit_file(path)
    assert "TOP-SECRET-VALUE" not in str(caught.value)


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []  # noqa: RUF012 - one list per test, reset by the fixture

    def do_GET(self) -> None:
        _Recorder.requests.append(self.path)
        body = b'<!ENTITY leak "x">'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    _Recorder.requests = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize(
    "template",
    [
        '<!DOCTYPE testsuite [<!ENTITY x SYSTEM "{url}/entity">]>'
        '<testsuite name="s"><testcase classname="c" name="&x;"/></testsuite>',
        '<!DOCTYPE testsuite [<!ENTITY % p SYSTEM "{url}/param.dtd"> %p;]>'
        '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>',
        '<!DOCTYPE testsuite SYSTEM "{url}/external.dtd">'
        '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>',
    ],
    ids=["general-entity", "parameter-entity", "external-dtd"],
)
def test_external_entities_by_url_are_refused_without_a_request(
    tmp_path: Path, server: str, template: str
) -> None:
    path = tmp_path / "xxe.xml"
    path.write_text('<?xml version="1.0"?>\n' + template.format(url=server), encoding="utf-8")
    with pytest.raises(InvalidInput, match="DOCTYPE") as caught:
        read_junit_file(path)
    assert str(path) in str(caught.value)
    assert _Recorder.requests == []


def test_a_doctype_text_inside_cdata_is_not_a_doctype(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text(
        '<testsuite name="s"><testcase classname="c" name="t"><system-out><![CDATA['
        "<!DOCTYPE html><html></html>]]></system-out></testcase></testsuite>",
        encoding="utf-8",
    )
    assert read_junit_file(path).totals.passed == 1


def test_a_plain_doctype_without_entities_is_read(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text(
        '<?xml version="1.0"?><!DOCTYPE testsuite><testsuite name="s">'
        '<testcase classname="c" name="t"/></testsuite>',
        encoding="utf-8",
    )
    assert read_junit_file(path).totals.passed == 1


def test_undeclared_entity_in_the_body_is_malformed(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text('<testsuite name="s"><testcase classname="c" name="&x;"/></testsuite>',
                    encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"not well-formed XML.*Entity 'x' not defined"):
        read_junit_file(path)


def test_a_long_prolog_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text("<!--" + "x" * (2 << 20) + "-->\n<testsuite/>", encoding="utf-8")
    with pytest.raises(InvalidInput, match="no root element within the first"):
        read_junit_file(path)


@pytest.mark.parametrize(("opening", "closing", "depth"), [
    ("<a>", "</a>", 5000), ("<a>", "</a>", 256),
    # cases in cases are checked after each chunk: open long enough to span one
    ('<testcase classname="c" name="t">', "</testcase>", 20_000),
])
def test_deep_nesting_is_refused_as_libxml2_does(
    tmp_path: Path, opening: str, closing: str, depth: int
) -> None:
    path = tmp_path / "r.xml"
    path.write_text("<testsuite>" + opening * depth + closing * depth + "</testsuite>",
                    encoding="utf-8")
    with pytest.raises(InvalidInput, match="nested deeper than 256"):
        read_junit_file(path)


def test_nesting_up_to_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    depth = 254  # with the suite and the case: 256 open elements
    path.write_text('<testsuite name="s">' + "<a>" * depth + '<testcase classname="c" name="t"/>'
                    + "</a>" * depth + "</testsuite>", encoding="utf-8")
    assert read_junit_file(path).totals.tests == 1


def test_a_failure_text_over_libxml2s_limit_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "r.xml"
    path.write_text('<testsuite name="s"><testcase classname="c" name="t"><failure>'
                    + "x" * 10_100_000 + "</failure></testcase></testsuite>",
                    encoding="utf-8")
    with pytest.raises(InvalidInput, match="Text node too long, by byte") as caught:
        read_junit_file(path)
    assert "put less output into the report" in str(caught.value)


def test_a_long_captured_output_is_read_without_keeping_it(tmp_path: Path) -> None:
    """Output is never read, so its text is dropped chunk by chunk: a 20 MB log (over the
    10 MB libxml2 puts on one text in a tree) is read, and Python never holds it."""
    path = tmp_path / "r.xml"
    path.write_text('<testsuite name="s"><testcase classname="c" name="t"><system-out>'
                    + "x" * 20_000_000 + "</system-out></testcase></testsuite>",
                    encoding="utf-8")
    tracemalloc.start()
    try:
        read = read_junit_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read.totals.tests == read.totals.passed == 1
    assert peak < 2_000_000
