"""The time line renders: headless Chromium draws the Mermaid chart (with Mermaid's own code,
as GitHub draws a ```mermaid block) and opens the SVG file, and every mutation and evidence
label is in the rendered page. Skips, saying why, where Debian's `chromium` is missing (.ci/run
installs it). The Mermaid bundle is vendored in tests/data/mermaid (MIT; no network here)."""

from __future__ import annotations

import html
import json
import re
import struct
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.report.timeline import Kind, Timeline
from gate.report.timeline_mermaid import event_label, render_mermaid
from gate.report.timeline_svg import (
    NAME_CHARS,
    NOTE_CHARS,
    NOTE_X,
    PLOT_X0,
    STYLE,
    WIDTH,
    note_of,
    plain,
    render_svg,
)
from tests.check_run_picture import CHROMIUM_FLAGS, chromium, screenshot_sized
from tests.test_timeline import mermaid_block
from tests.timeline_picture import Example, hostile, many_and_far, stale_and_early

ROOT = Path(__file__).resolve().parent.parent
MERMAID = ROOT / "tests" / "data" / "mermaid" / "mermaid.min.js"
EXAMPLES: dict[str, Callable[[], Example]] = {
    "stale and before the mutation": stale_and_early,
    "hostile labels": hostile,
    "many rows, decades apart": many_and_far,
}


@pytest.fixture(scope="module")
def browser() -> str:
    found = chromium()
    if found is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run does)")
    return found


def dump_dom(browser: str, page: Path) -> str:
    """The page's DOM after its scripts ran (Chromium's virtual time lets Mermaid finish)."""
    with tempfile.TemporaryDirectory(prefix="claim-gate-chromium-") as profile:
        done = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               "--virtual-time-budget=20000", "--window-size=1200,900",
                               "--dump-dom", page.as_uri()],
                              capture_output=True, text=True, check=True, timeout=180)
    return done.stdout


def text_of(markup: str) -> str:
    """What a reader sees: the text of every element, tags dropped, entities read."""
    without = re.sub(r"<style[^>]*>.*?</style>", " ", markup, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "\n", without))


def mermaid_page(charts: list[str]) -> str:
    """Each chart in its own <pre class="mermaid">, as GitHub hands Mermaid the block's text;
    the page's title says whether Mermaid rendered them all."""
    blocks = "".join(f'<pre class="mermaid" id="chart{n}">{html.escape(chart)}</pre>'
                     for n, chart in enumerate(charts))
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>pending</title>
<script src="{MERMAID.as_uri()}"></script></head><body>{blocks}
<script>
mermaid.initialize({{startOnLoad: false, securityLevel: "strict"}});
mermaid.run({{querySelector: "pre.mermaid"}}).then(
  () => {{ document.title = "rendered"; }},
  (error) => {{ document.title = "failed: " + error; }});
</script></body></html>
"""


def _labels(timeline: Timeline) -> list[str]:
    return [event_label(e) for e in timeline.events]


def test_mermaid_renders_every_label(browser: str, tmp_path: Path) -> None:
    timelines = {name: make().timeline() for name, make in EXAMPLES.items()}
    charts = [mermaid_block(render_mermaid(t)) for t in timelines.values()]
    page = tmp_path / "mermaid.html"
    page.write_text(mermaid_page(charts), "utf-8")
    dom = dump_dom(browser, page)
    assert "<title>rendered</title>" in dom, dom[-3000:]
    for n, (name, timeline) in enumerate(timelines.items()):
        chart = dom.split(f'id="chart{n}"', 1)[1].split("</pre>", 1)[0]
        assert 'aria-roledescription="gantt"' in chart, name
        assert "Syntax error" not in chart, name
        shown = text_of(chart)
        missing = [label for label in _labels(timeline) if label not in shown]
        assert not missing, f"{name}: not in the rendered chart: {missing}"
        # Nothing the agent wrote became an element or a link in Mermaid's drawing.
        assert not re.search(r"<(script|a|foreignObject|iframe)\b", chart), name
        assert "javascript:" not in chart, name


def test_mermaid_reports_a_broken_chart(browser: str, tmp_path: Path) -> None:
    """The check above can fail: a chart whose task line is not gantt grammar is refused."""
    page = tmp_path / "broken.html"
    page.write_text(mermaid_page(["gantt\n    dateFormat YYYY-MM-DD\n    a :b, c, d, e, f"]),
                    "utf-8")
    dom = dump_dom(browser, page)
    assert "<title>rendered</title>" not in dom


def _svg_labels(timeline: Timeline) -> list[str]:
    labels = []
    for event in timeline.events:
        labels.append(plain(event.name, NAME_CHARS))
        if event.kind in (Kind.MUTATION, Kind.EVIDENCE):
            labels.append(plain(note_of(event), NOTE_CHARS))
    return labels


@pytest.mark.parametrize("name", EXAMPLES)
def test_chromium_opens_the_svg_with_every_label(browser: str, tmp_path: Path,
                                                 name: str) -> None:
    timeline = EXAMPLES[name]().timeline()
    svg = tmp_path / "timeline.svg"
    svg.write_text(render_svg(timeline), "utf-8")
    dom = dump_dom(browser, svg)
    assert "parsererror" not in dom
    assert "This page contains the following errors" not in dom
    assert dom.lstrip().startswith("<svg"), dom[:300]
    shown = text_of(dom)
    missing = [label for label in _svg_labels(timeline) if label not in shown]
    assert not missing, f"not in the rendered SVG: {missing}"
    assert not re.search(r"<(script|a|foreignObject|iframe|image)\b", dom)


def test_chromium_draws_the_svg(browser: str, tmp_path: Path) -> None:
    text = render_svg(stale_and_early().timeline())
    svg = tmp_path / "timeline.svg"
    svg.write_text(text, "utf-8")
    height = int(text.split('height="', 1)[1].split('"', 1)[0])
    png = tmp_path / "timeline.png"
    screenshot_sized(svg, png, browser, WIDTH, height)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (WIDTH, height)
    assert len(data) > 20_000  # text, markers and lines, not a blank page


def test_the_committed_picture_is_the_example() -> None:
    """docs/timeline.png is a screenshot of docs/timeline.svg, the example's rendering
    (regenerate both with `python3 -m tests.timeline_picture`)."""
    committed = (ROOT / "docs" / "timeline.svg").read_text("utf-8")
    shown = text_of(committed)
    assert all(label in shown for label in _svg_labels(stale_and_early().timeline()))
    data = (ROOT / "docs" / "timeline.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == WIDTH
    assert height >= 300


def test_no_two_marks_look_alike() -> None:
    """Colour, fill and shape together tell every mark apart (the two "too early" marks were
    once the same open circle); the words beside them are drawn too."""
    assert len(set(STYLE.values())) == len(STYLE)


def _overflows(browser: str, svg_text: str, tmp_path: Path) -> list[str]:
    """Each row's name that runs into the note column, each note that runs into the plot,
    and each legend entry past the picture's edge, as Chromium lays the text out."""
    svg = svg_text.split("?>", 1)[1]
    page = tmp_path / "measure.html"
    page.write_text(f"""<!doctype html><html><head><meta charset="utf-8"><title>pending</title>
</head><body style="margin:0">{svg}<script>
const out = [];
for (const t of document.querySelectorAll("svg text")) {{
  const x = Number(t.getAttribute("x")), box = t.getBBox(), end = box.x + box.width;
  const name = x === 14 && t.getAttribute("font-size") === "12";  // a row's name
  const limit = name ? {NOTE_X} - 6 : x === {NOTE_X} ? {PLOT_X0} - 6 : {WIDTH};
  if (!t.getAttribute("transform") && end > limit) out.push(t.textContent + " ends at " + end);
}}
document.title = JSON.stringify(out);
</script></body></html>""", "utf-8")
    dom = dump_dom(browser, page)
    found = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert found is not None, dom[-2000:]
    assert found[1] != "pending", dom[-2000:]
    return list(json.loads(html.unescape(found[1])))


def test_the_examples_text_is_whole_and_inside_its_column(browser: str, tmp_path: Path) -> None:
    """The committed picture's key text is not cut ("…") and no text runs into the next
    column: the run's whole name and the engine's whole note are read off the picture."""
    timeline = stale_and_early().timeline()
    cut = [label for label in _svg_labels(timeline) if label.endswith("…")]
    assert cut == []
    assert _overflows(browser, render_svg(timeline), tmp_path) == []


def test_text_running_into_the_next_column_is_caught(browser: str, tmp_path: Path) -> None:
    """The check above can fail: a name as wide as its cap allows runs past its column."""
    svg = render_svg(stale_and_early().timeline()).replace("m1 (file_edit src/parser.py)",
                                                           "W" * NAME_CHARS)
    assert any(o.startswith("WWW") for o in _overflows(browser, svg, tmp_path))
