"""The README's picture of the check run is the real thing: the page made from an actual action
run against the stand-in shows the verdict and the unmet items, and no markup from the claim."""

from __future__ import annotations

import html
import re
import struct
from pathlib import Path

import pytest

from tests.check_run_picture import (
    OUT,
    CheckRunView,
    chromium,
    make_check_run,
    render_markdown,
    render_page,
    screenshot,
)
from tests.github_standin.hub import Hub

#: An agent's text that a renderer passing HTML through would turn into a banner and an image
#: fetched from the agent's host.
HOSTILE = ('Fixed the parser <h1>APPROVED BY SECURITY</h1><img src="https://evil.example/x.png">'
           " and deployed it.")


@pytest.fixture
def hostile_check(github_hub: Hub, tmp_path: Path) -> CheckRunView:
    return make_check_run(github_hub, tmp_path, outcome=HOSTILE)


def test_the_page_shows_the_verdict_and_the_unmet_items(hostile_check: CheckRunView) -> None:
    assert hostile_check.conclusion == "action_required"
    page = render_page(hostile_check)
    assert "Action required" in page
    assert "Completion claim: ⚠️ unverified</h2>" in page
    reason = page.split("<strong>Reason:</strong>", 1)[1].split("</p>", 1)[0]
    assert "unverified: <code>no_evidence</code>: mutation m3 (deploy production): no evidence" \
        " covers it" in reason
    assert "<code>.claim.json#L22</code>" in page  # the annotation on the mutation's line
    assert "covered by #0 test_run" in page  # the parts that are backed are shown as such


def test_the_page_says_the_reason_once_in_each_place(hostile_check: CheckRunView) -> None:
    """Title, summary and the claim line's annotation; not a fourth time as a one-item list."""
    text = html.unescape(re.sub(r"<[^>]+>", "", render_page(hostile_check)))
    assert text.count("no evidence covers it") == 3, text
    assert "Unmet (1)" not in text


def test_the_page_is_the_recommended_set_up(hostile_check: CheckRunView) -> None:
    """Posted by the gate's App: the history is read, not the GITHUB_TOKEN note, and no
    gate-written Markdown is shown as escaped backticks."""
    page = render_page(hostile_check)
    history = page.split("History on this PR</h3>", 1)[1].split("</ul>", 1)[0]
    assert "(this decision)" in history
    assert "GITHUB_TOKEN" not in page
    text = re.sub(r"<code>.*?</code>", "", page.split('<article class="markdown-body">', 1)[1],
                  flags=re.S)
    assert "`" not in html.unescape(re.sub(r"<[^>]+>", "", text))


def test_no_markup_from_the_claim_reaches_the_page(hostile_check: CheckRunView) -> None:
    page = render_page(hostile_check)
    assert "<h1>" not in page
    assert "&lt;h1&gt;APPROVED BY SECURITY&lt;/h1&gt;" in page
    # the agent's <img> is text on the page: no tag (img, a) points at its host
    assert not re.search(r"<[^>]*evil\.example", page)
    assert "&lt;img src=" in page


def test_the_renderer_keeps_githubs_tags_and_drops_the_rest() -> None:
    """The page is rendered as GitHub would: tables and details stay, scripts go."""
    html = render_markdown(
        "| a |\n|---|\n| b |\n\n<details><summary>s</summary>x</details>\n\n"
        '<script>alert(1)</script><img src="https://e.example/i.png" onerror="x">')
    for kept in ("<table>", "<details>", "<summary>s</summary>"):
        assert kept in html
    for dropped in ("<script>", "onerror"):
        assert dropped not in html
    assert '<img src="https://e.example/i.png">' in html


def test_the_committed_picture_is_a_png() -> None:
    png = OUT / "check-run.png"
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= 800, width
    assert height >= 600, height


def test_chromium_screenshots_the_page(hostile_check: CheckRunView, tmp_path: Path) -> None:
    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (apt-get install -y chromium; .ci/run does)")
    page = tmp_path / "page.html"
    page.write_text(render_page(hostile_check), "utf-8")
    png = tmp_path / "page.png"
    height = screenshot(page, png, browser)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24])[1] >= height > 600
