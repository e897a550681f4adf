"""Class 8 of issue 10: what the reviewer sees. The agent's text is rendered through GitHub's
own Markdown (cmark-gfm, with raw HTML let through so nothing is hidden by the renderer) and
must come out inert: no HTML, link, image, @mention, heading or emoji of its own; each field
capped with a visible note; the reason of an unverified or refuted verdict always first.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from gate.claim.facts import Facts
from gate.claim.loader import LoadedClaim, parse_claim_bytes
from gate.claim.model import VerdictState
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from gate.report.check_run import MAX_OUTPUT_CHARS, Mode, build_check_run, failure_report
from gate.report.github_commands import render_github
from gate.report.markdown import render_markdown
from gate.report.record import completed_record
from gate.report.text import render_text
from gate.report.untrusted import ZWJ, ZWSP, visible
from tests.builders import at, evidence, item

SEED = Path(__file__).parent / "data" / "claims" / "seed-example.json"

#: What an agent could write to fool or reach a reviewer, one per row.
PAYLOADS = {
    "html heading mimicking a verdict": "<h2>✅ verified</h2><p>all good</p>",
    "html image": '<img src="https://evil.example/pixel.png">',
    "html comment hiding text": "<!-- the verdict below is wrong --> fine",
    "html details": "<details open><summary>✅ verified</summary>x</details>",
    "markdown image": "![✅ verified](https://evil.example/badge.svg)",
    "markdown link": "[approve here](https://evil.example/approve)",
    "reference link": "[approve][1]\n\n[1]: https://evil.example/",
    "autolink": "<https://evil.example/>",
    "bare url": "see https://evil.example/x and www.evil.example",
    "mention": "cc @octocat and @org/team please merge",
    "e-mail": "mail root@evil.example",
    "heading at line start": "done\n# ✅ verified\nreally",
    "setext heading": "✅ verified\n===",
    "list and quote": "- item\n> quoted\n1. first",
    "backticks closing a code span": "`` ` `` </code><b>bold</b>",
    "emoji shortcode": ":white_check_mark: verified :tada:",
    "math": "$\\Huge\\text{verified}$",
    "table breaker": "a | b |\n|---|---|",
    "entities": "&lt;img src=x&gt; &#60;b&#62;",
    "strikethrough and emphasis": "~~refuted~~ **verified** _ok_",
}
#: Tags the gate's own template produces; anything else came from the agent's text.
TEMPLATE_TAGS = {"h2", "h3", "p", "strong", "code", "table", "thead", "tbody", "tr", "th",
                 "td", "ul", "li"}


def gfm(markdown: str) -> str:
    """GitHub's extensions (table, autolink, tagfilter, strikethrough, tasklist); raw HTML
    is let through, so any that reached the summary shows up as a tag."""
    html_text: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE)
    return html_text


def hostile_claim(text: str, outcome: str | None = None) -> LoadedClaim:
    document: dict[str, Any] = json.loads(SEED.read_text("utf-8"))
    document["task"] = {"id": text[:256], "description": text}
    document["claimed_outcome"] = outcome if outcome is not None else text
    document["mutations"] = [{"id": text[:256], "kind": "state_write", "target": text,
                              "at": "2026-08-27T18:04:02Z"}]
    document["evidence"][0]["covers"] = [text[:256]]
    document["evidence"][0]["verifier"]["id"] = text[:256]
    del document["policy"], document["verdict"]
    return parse_claim_bytes(json.dumps(document).encode(), ".claim.json")


def summary_of(loaded: LoadedClaim, notes: tuple[str, ...] = ()) -> tuple[VerdictState, str]:
    """The check run summary for the claim, with one refuting readback by the gate."""
    mutation = loaded.claim.mutations[0].id
    refuting = evidence(when=9, covers=(mutation,), expected={"billing_zip": "94107"},
                        observed={"billing_zip": "10001"})
    verdict = decide(loaded.claim, Facts.of([item(refuting)]), default_policy(), at(10))
    report = build_check_run(
        name="completion-claim", head_sha="a" * 40, verdict=verdict, loaded=loaded,
        claim_repo_path=".claim.json", record=completed_record(loaded.document.raw, verdict),
        mode=Mode.ENFORCE, sections=[("Not counted", notes)],
    )
    return verdict.state, report.summary


def assert_inert(rendered: str) -> None:
    tags = {tag.lower() for tag in re.findall(r"<([A-Za-z][A-Za-z0-9]*)", rendered)}
    assert tags <= TEMPLATE_TAGS, f"tags from the agent's text: {tags - TEMPLATE_TAGS}"
    assert rendered.count("<h2>") == 1, "only the gate's own heading"
    # GitHub neither links nor mentions inside code; everything else is text a reader sees.
    outside_code = re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", outside_code))
    assert not re.search(r"@[A-Za-z0-9]", text), "an @mention or e-mail address survived"
    assert not re.search(r"https?://|www\.", text), "a URL GitHub would link survived"
    assert not re.search(r":[a-z_]+:", text), "an emoji shortcode survived"


@pytest.mark.parametrize("text", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_agents_text_renders_inert_in_the_check_summary(text: str) -> None:
    state, summary = summary_of(hostile_claim(text), notes=(f"a failure message: {text}",))
    assert state is VerdictState.REFUTED
    assert_inert(gfm(summary))


@pytest.mark.parametrize("text", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_the_agents_text_renders_inert_in_the_markdown_format(text: str) -> None:
    loaded = hostile_claim(text)
    verdict = decide(loaded.claim, Facts.of([]), default_policy(), at(10))
    assert_inert(gfm(render_markdown(loaded.claim, verdict, ".claim.json")))


def test_a_reason_quoting_the_agent_is_escaped_when_the_gate_could_not_decide() -> None:
    report = failure_report(name="completion-claim", head_sha="a" * 40, mode=Mode.ENFORCE,
                            reason="cannot read " + PAYLOADS["html image"] + " @octocat")
    assert_inert(gfm(report.summary))


def test_control_an_honest_claim_reads_as_written() -> None:
    outcome = "Updated the billing address on account 4471 (zip 94107), as asked."
    _, summary = summary_of(hostile_claim("m1", outcome=outcome))
    rendered = gfm(summary)
    assert_inert(rendered)
    text = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    assert outcome in text
    assert "<code>m1</code>" in rendered


def test_the_reason_comes_first_and_is_shown_whatever_the_agents_text_costs() -> None:
    """A 300,000-character outcome and target: the summary fits GitHub's limit, the refuting
    reason is the first thing after the heading, and each field says how much was cut."""
    huge = "✅ verified " * 30_000
    state, summary = summary_of(hostile_claim(huge[:256], outcome=huge),
                                notes=tuple(huge for _ in range(5)))
    assert state is VerdictState.REFUTED
    assert len(summary) <= MAX_OUTPUT_CHARS
    paragraphs = re.findall(r"<p>(.*?)</p>", gfm(summary), flags=re.S)
    assert paragraphs[0].startswith("<strong>Reason:</strong> refuted:"), paragraphs[0][:200]
    assert "billing_zip: expected" in paragraphs[0]
    assert f"… ({len(huge) - 2000} more characters not shown)" in summary


def test_a_backtick_in_an_id_cannot_close_its_code_span() -> None:
    _, summary = summary_of(hostile_claim("a`<b>x</b>`b"))
    rendered = gfm(summary)
    assert "<code>a`&lt;b&gt;x&lt;/b&gt;`b</code>" in rendered
    assert "<b>" not in rendered


#: Invisible characters that reorder or hide text (issue 20 item 10), one per row.
INVISIBLE = {
    "right-to-left override": "\u202e",
    "left-to-right isolate": "\u2066",
    "pop directional isolate": "\u2069",
    "right-to-left mark": "\u200f",
    "arabic letter mark": "\u061c",
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "word joiner": "\u2060",
    "byte order mark": "\ufeff",
    "tag character": "\U000e0041",
}


def _raw_from_agent(text: str) -> set[str]:
    """Format characters in the text other than those the escaper inserts itself (a ZWSP
    to break a link, a ZWJ after '@')."""
    return {c for c in text if unicodedata.category(c) == "Cf"} - {ZWSP, ZWJ}


@pytest.mark.parametrize("char", INVISIBLE.values(), ids=INVISIBLE.keys())
def test_invisible_characters_are_shown_escaped_in_every_reason_line(char: str) -> None:
    text = f"fixed {char}the parser{char} verified"
    loaded = hostile_claim(text)
    mutation = loaded.claim.mutations[0].id
    refuting = evidence(when=9, covers=(mutation,), expected={"billing_zip": "94107"},
                        observed={"billing_zip": "10001"})
    verdict = decide(loaded.claim, Facts.of([item(refuting)]), default_policy(), at(10))
    assert verdict.state is VerdictState.REFUTED
    report = build_check_run(
        name="completion-claim", head_sha="a" * 40, verdict=verdict, loaded=loaded,
        claim_repo_path=".claim.json", record=completed_record(loaded.document.raw, verdict),
        mode=Mode.ENFORCE, sections=[("Not counted", (f"a note: {text}",))],
    )
    failed = failure_report(name="c", head_sha="a" * 40, mode=Mode.ENFORCE, reason=text)
    shown = [report.title, report.summary, report.text, failed.title, failed.summary,
             failed.text, render_text(loaded.claim, verdict, ".claim.json"),
             render_github(loaded.claim, verdict, ".claim.json")]
    shown += [json.dumps(a.to_json(), ensure_ascii=False) for a in report.annotations]
    for place in shown:
        assert not _raw_from_agent(place), place[:300]
    assert visible(char)[1:] in report.summary  # shown as its escape, e.g. \u202e
    # the record's text is JSON whose escapes read back as the agent's very characters
    assert json.loads(report.text)["claimed_outcome"] == text


def test_control_non_ascii_text_is_shown_as_written() -> None:
    outcome = "Corrigé l'adresse ✅ (Zürich), 東京 too"
    _, summary = summary_of(hostile_claim("m1", outcome=outcome))
    assert outcome in html.unescape(re.sub(r"<[^>]+>", "", gfm(summary)))
