"""The README's picture of the check run, made from a real run of the action.

Run from the repository root:  python3 -m tests.check_run_picture [--out docs/screenshots]

It starts the GitHub stand-in, lets an agent's PR make an honest but incomplete claim (it
edited the parser and deployed the fix; CI's tests passed, nothing observed the deploy), runs
the action as the README's recommended set-up does (its `workflow_run` event, the gate's own
GitHub App, `require-claim: agents` with `agent-presets`), takes the check run GitHub
received (title, summary, annotations), renders the summary as GitHub does (GitHub-flavoured
Markdown with raw HTML passed through, then GitHub's allowlist of tags) inside GitHub-like CSS,
and screenshots the page in headless Chromium (Debian's `chromium`). tests/test_check_run_picture.py
checks the page; the PNG is committed under docs/screenshots/.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import cmarkgfm
import nh3
from cmarkgfm.cmark import Options

from tests.action_support import T0, act, claim_json, edit, gate_app, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.github_standin.openapi import ApiDescription
from tests.github_standin.plugin import GITHUB_TOKEN

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
HONEST_OUTCOME = "Fixed the date parser and deployed the fix to production."
WIDTH = 960

#: The tags GitHub keeps when it renders user Markdown (html-pipeline's sanitization filter);
#: everything else is dropped, as on github.com. Raw HTML from a claim that survives this list
#: would be shown to the reviewer as markup.
GITHUB_TAGS = frozenset({
    "h1", "h2", "h3", "h4", "h5", "h6", "br", "b", "i", "strong", "em", "a", "pre", "code",
    "img", "tt", "div", "ins", "del", "sup", "sub", "p", "ol", "ul", "table", "thead", "tbody",
    "tfoot", "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp",
    "li", "tr", "td", "th", "s", "strike", "summary", "details", "caption", "figure",
    "figcaption", "abbr", "bdo", "cite", "dfn", "mark", "small", "span", "time", "wbr",
})
GITHUB_ATTRIBUTES = {
    "a": {"href"}, "img": {"src", "alt", "width", "height"}, "td": {"align"},
    "th": {"align"}, "code": {"class"}, "pre": {"lang"}, "details": {"open"},
}


@dataclass(frozen=True)
class CheckRunView:
    """What GitHub shows on the check run's page."""

    name: str
    conclusion: str
    title: str
    summary: str
    annotations: tuple[dict[str, Any], ...]


def make_check_run(hub: Hub, workdir: Path, outcome: str = HONEST_OUTCOME) -> CheckRunView:
    """Run the action on an honest but incomplete claim; return the check run it posted."""
    mutations = [
        edit("m1", at=T0 - timedelta(minutes=6)),
        edit("m2", at=T0 - timedelta(minutes=5), path="tests/test_parser.py"),
        {"id": "m3", "kind": "deploy", "target": "production",
         "at": (T0 - timedelta(minutes=2)).isoformat().replace("+00:00", "Z")},
    ]
    s = scenario(hub, claim_json(mutations, claimed_outcome=outcome),
                 files={"tests/test_parser.py": "def test_parse():\n    pass\n"})
    s.add_run(junit_xml(passed=48))
    _, app = gate_app(hub, s)
    act(s, workdir, event="workflow_run", require_claim="agents", agent_presets="copilot", **app)
    check = s.check()
    return CheckRunView(
        name=check.name, conclusion=check.conclusion or "", title=check.title or "",
        summary=check.summary or "",
        annotations=tuple({"path": a.path, "line": a.start_line, "level": a.annotation_level,
                           "title": a.title or "", "message": a.message}
                          for a in check.annotations),
    )


def render_markdown(text: str) -> str:
    """GitHub's rendering of user Markdown: GFM with raw HTML kept, then its tag allowlist."""
    raw = cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)
    return nh3.clean(raw, tags=set(GITHUB_TAGS), attributes=GITHUB_ATTRIBUTES,
                     link_rel="nofollow")


_ICONS = {"success": ("✓", "#1a7f37"), "failure": ("✗", "#d1242f"),
          "action_required": ("!", "#9a6700"), "neutral": ("-", "#59636e")}
_CONCLUSION_WORDS = {"action_required": "Action required", "success": "Success",
                     "failure": "Failure", "neutral": "Neutral"}


def render_page(check: CheckRunView, nonce: str = "measure") -> str:
    """The check run's page: name, conclusion, title, summary, annotations."""
    icon, colour = _ICONS.get(check.conclusion, ("?", "#59636e"))
    notes = "".join(
        f'<div class="note {html.escape(a["level"])}"><div class="where">'
        f'<span class="level">{html.escape(a["level"].capitalize())}</span> '
        f'<code>{html.escape(a["path"])}#L{int(a["line"])}</code></div>'
        f'<div class="what"><b>{html.escape(a["title"])}</b><br>{html.escape(a["message"])}</div>'
        "</div>"
        for a in check.annotations
    )
    count = len(check.annotations)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-{nonce}'">
<title>{html.escape(check.name)}</title>
<style>{CSS}</style></head>
<body><div class="page">
<div class="head"><span class="icon" style="background:{colour}">{icon}</span>
<div><div class="name">{html.escape(check.name)}</div>
<div class="conclusion">{html.escape(_CONCLUSION_WORDS.get(check.conclusion, check.conclusion))}
 · on the pull request's head commit</div></div></div>
<h2 class="title">{html.escape(check.title)}</h2>
<article class="markdown-body">{render_markdown(check.summary)}</article>
<section class="annotations"><h3>Annotations</h3>
<div class="count">{count} warning{"" if count == 1 else "s"}</div>{notes}</section>
</div>
<script nonce="{nonce}">document.title = "height=" + document.documentElement.scrollHeight;</script>
</body></html>
"""


CSS = """
body { margin: 0; background: #f6f8fa; color: #1f2328; font: 14px/1.5 -apple-system,
  BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
.page { margin: 16px; padding: 16px 24px; background: #fff; border: 1px solid #d1d9e0;
  border-radius: 6px; }
.head { display: flex; gap: 12px; align-items: center; padding-bottom: 12px;
  border-bottom: 1px solid #d1d9e0; }
.icon { color: #fff; width: 28px; height: 28px; border-radius: 50%; text-align: center;
  font-weight: 700; line-height: 28px; font-size: 16px; }
.name { font-size: 20px; font-weight: 600; }
.conclusion { color: #59636e; }
.title { font-size: 16px; font-weight: 600; margin: 16px 0 8px; }
.markdown-body h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em;
  margin: 24px 0 16px; }
.markdown-body h3 { font-size: 1.25em; margin: 24px 0 16px; }
.markdown-body p, .markdown-body ul, .markdown-body table { margin: 0 0 16px; }
.markdown-body code { background: rgba(129,139,152,.12); border-radius: 6px; padding: .2em .4em;
  font: 85% ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, monospace; }
.markdown-body pre { background: #f6f8fa; padding: 16px; overflow: auto; border-radius: 6px; }
.markdown-body pre code { background: none; padding: 0; }
.markdown-body table { border-collapse: collapse; display: block; overflow: auto; }
.markdown-body th, .markdown-body td { border: 1px solid #d1d9e0; padding: 6px 13px; }
.markdown-body th { font-weight: 600; }
.markdown-body tr:nth-child(2n) { background: #f6f8fa; }
.markdown-body a { color: #0969da; text-decoration: none; }
.markdown-body details summary { cursor: pointer; color: #0969da; }
.annotations { border-top: 1px solid #d1d9e0; margin-top: 24px; }
.annotations h3 { margin: 16px 0 0; font-size: 16px; }
.count { color: #59636e; margin-bottom: 8px; }
.note { border: 1px solid #d1d9e0; border-left: 4px solid #9a6700; border-radius: 6px;
  margin: 8px 0; padding: 8px 12px; background: #fff8c5; }
.note.failure { border-left-color: #d1242f; background: #ffebe9; }
.note .level { font-weight: 600; }
.note code { font: 12px ui-monospace, "DejaVu Sans Mono", monospace; color: #0969da; }
"""

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars")


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot_sized(page: Path, png: Path, browser: str, width: int, height: int) -> None:
    """Screenshot `page` in a `width` x `height` window, with a fresh browser profile."""
    with tempfile.TemporaryDirectory(prefix="claim-gate-chromium-") as profile:
        subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                        f"--window-size={width},{height}", f"--screenshot={png}",
                        page.as_uri()], capture_output=True, text=True, check=True, timeout=120)
    if not png.exists():
        raise RuntimeError(f"chromium wrote no screenshot to {png}")


def screenshot(page: Path, png: Path, browser: str, width: int = WIDTH) -> int:
    """Screenshot `page` at its full height; returns that height in CSS pixels."""
    with tempfile.TemporaryDirectory(prefix="claim-gate-chromium-") as profile:
        dom = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                              f"--window-size={width},800", "--dump-dom", page.as_uri()],
                             capture_output=True, text=True, check=True, timeout=120)
    found = re.search(r"<title>height=(\d+)</title>", dom.stdout)
    if found is None:
        raise RuntimeError(f"chromium did not measure {page}: {dom.stderr[-2000:]}")
    height = int(found[1])
    screenshot_sized(page, png, browser, width, height)
    return height


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tests.check_run_picture",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the PNG (and HTML)")
    args = parser.parse_args(argv)
    browser = chromium()
    if browser is None:
        print("chromium is not installed: apt-get install -y chromium", file=sys.stderr)
        return 3
    hub = Hub(ApiDescription.load()).start()
    hub.add_token(GITHUB_TOKEN)
    try:
        with tempfile.TemporaryDirectory(prefix="claim-gate-picture-") as work:
            check = make_check_run(hub, Path(work))
    finally:
        hub.stop()
    if hub.violations:
        print("\n".join(map(str, hub.violations)), file=sys.stderr)
        return 4
    args.out.mkdir(parents=True, exist_ok=True)
    page = args.out / "check-run.html"
    page.write_text(render_page(check), "utf-8")
    png = args.out / "check-run.png"
    height = screenshot(page, png, browser)
    page.unlink()
    print(f"{png} ({WIDTH}x{height}): {check.conclusion}, {check.title}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
