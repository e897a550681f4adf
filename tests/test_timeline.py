"""The time line (issue 15 item 4): the marks are the engine's, the rows are capped, the axis
stays readable across decades, and no text of the agent's becomes markup in the SVG, the
Mermaid chart or the Markdown around it. Rendering in a browser: test_timeline_render.py."""

from __future__ import annotations

import io
import itertools
import json
import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from gate.faces.cli import main
from gate.report.check_run import MAX_OUTPUT_CHARS
from gate.report.timeline import MAX_EVIDENCE, MAX_MUTATIONS, Kind, Lane, Mark, Timeline
from gate.report.timeline_axis import build_axis, ticks
from gate.report.timeline_mermaid import event_label, render_mermaid
from gate.report.timeline_svg import PLOT_X0, PLOT_X1, render_svg
from tests.action_support import T0, act, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.timeline_picture import HOSTILE, hostile, many_and_far, stale_and_early

SVG = "{http://www.w3.org/2000/svg}"
#: Everything the SVG renderer draws with; anything else would have come from the agent.
SVG_TAGS = {"svg", "title", "rect", "text", "line", "path", "circle"}
SEED = Path(__file__).parent / "data" / "claims" / "seed-example.json"


def parse_svg(text: str) -> ET.Element:
    """The gate's own SVG output, parsed strictly (it raises unless well-formed XML)."""
    return ET.fromstring(text)  # noqa: S314 - the gate's own output, no DTD in it


def marks(timeline: Timeline) -> dict[str, Mark | None]:
    return {e.name.split(":", 1)[0]: e.mark for e in timeline.events if e.kind is Kind.EVIDENCE}


def test_each_item_is_marked_as_the_engine_judged_it() -> None:
    example = stale_and_early()
    assert marks(example.timeline()) == {
        "#0 test_run": Mark.SELF_ATTESTED,  # the agent's own "tests pass"
        "#1 test_run": Mark.BEFORE_PUSH,  # the CI run started before the head arrived
        "#2 test_run": Mark.BEFORE_MUTATION,  # before m1 and m2
        "#3 test_run": Mark.COUNTS,  # after m1 (before m2: said in its detail)
        "#4 test_run": Mark.STALE,  # yesterday's run, over the day the policy allows
    }
    # The same words as the verdict's: each mark matches the engine's code for that item.
    problems = {f"#{i}": a.problem.code for i, a in enumerate(example.verdict.assessments)
                if a.problem}
    assert problems == {"#0": "untrusted_verifier", "#1": "before_arrival", "#4": "stale"}
    events = {e.name.split(":", 1)[0]: e for e in example.timeline().events}
    assert events["#3 test_run"].detail == "for m1; before_mutation for m2, test_run"
    assert events["#2 test_run"].detail == "for m1, m2, test_run"
    m2 = next(e for e in example.timeline().events if e.name.startswith("m2 "))
    assert m2.detail == "unmet: before_mutation"


def test_the_push_is_githubs_arrival_and_the_stale_limit_is_drawn() -> None:
    timeline = stale_and_early().timeline()
    [push] = [e for e in timeline.events if e.lane is Lane.PUSH]
    assert push.at == stale_and_early().arrival.at
    [limit] = [e for e in timeline.events if e.kind is Kind.CUTOFF]
    assert (timeline.decided_at - limit.at).total_seconds() == 86400
    assert limit.detail == "max age 1 d"


def test_contradicting_and_not_counted_items_are_marked() -> None:
    timeline = hostile().timeline()
    assert Mark.CONTRADICTS in marks(timeline).values()
    assert timeline.state == "refuted"


def test_rows_are_capped_and_the_picture_says_how_many_it_left_out() -> None:
    example = many_and_far()
    timeline = example.timeline()
    kinds = [e.kind for e in timeline.events]
    assert kinds.count(Kind.MUTATION) == MAX_MUTATIONS
    assert kinds.count(Kind.EVIDENCE) == MAX_EVIDENCE
    assert timeline.left_out_mutations == 500 - MAX_MUTATIONS
    assert timeline.left_out_evidence == 430 - MAX_EVIDENCE
    # 400 items of the claim's own cannot push the 30 observed runs out of the picture.
    assert {e.lane for e in timeline.events if e.kind is Kind.EVIDENCE} == {Lane.CI}
    note = "480 mutations and 400 evidence items not drawn"
    assert note in render_svg(timeline)
    assert note in render_mermaid(timeline)
    assert len(render_svg(timeline)) < 60_000
    assert len(render_mermaid(timeline)) < 12_000


def test_unmet_mutations_are_drawn_before_covered_ones() -> None:
    example = stale_and_early()
    claim = example.claim
    many = type(claim)(claim.spec_version, claim.task, claim.claimed_outcome,
                       claim.mutations * 30, claim.evidence)
    from gate.report.timeline import build_timeline

    # m2 is unmet; 30 copies of it and of m1: every drawn mutation is an unmet one.
    drawn = [e for e in build_timeline(many, example.verdict, example.arrival).events
             if e.kind is Kind.MUTATION]
    assert len(drawn) == MAX_MUTATIONS
    assert all(e.name.startswith("m2 ") for e in drawn)


def test_far_apart_times_get_a_cut_out_axis_with_readable_ticks() -> None:
    timeline = many_and_far().timeline()
    axis = build_axis([e.at for e in timeline.events], PLOT_X0, PLOT_X1)
    gaps = [label for _, label in axis.breaks()]
    assert gaps, "1970 .. 2003 .. 2026 on one linear axis"
    assert gaps[0].endswith("years later"), gaps
    for event in timeline.events:
        assert PLOT_X0 <= axis.x(event.at) <= PLOT_X1
    for segment in axis.segments:
        xs = [x for x, _ in ticks(segment).marks]
        assert len(xs) <= 12
        assert all(b - a >= 40 for a, b in itertools.pairwise(xs)), xs
    assert "axisFormat %Y-%m-%d" in render_mermaid(timeline)


def test_near_times_share_one_segment() -> None:
    timeline = stale_and_early().timeline()
    today = [e.at for e in timeline.events if e.at.day == 27]
    assert len(build_axis(today, PLOT_X0, PLOT_X1).segments) == 1


def test_the_svg_is_well_formed_and_holds_no_markup_of_the_agents() -> None:
    text = render_svg(hostile().timeline())
    root = parse_svg(text)
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert tags <= SVG_TAGS, tags - SVG_TAGS
    for element in root.iter():
        assert not any(name.startswith("on") or "href" in name for name in element.attrib)
    shown = " ".join(element.text or "" for element in root.iter())
    assert "<script>alert(1)</script>" in shown  # the agent's text, as text
    assert "<script" not in text
    assert "]]>" not in text
    assert "\u202e" not in shown
    assert "\n" not in shown


def mermaid_block(markdown: str) -> str:
    """The code of the one ```mermaid block, as GitHub's Markdown renderer reads it."""
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    blocks = re.findall(r'<pre lang="mermaid"><code>(.*?)</code></pre>', html, re.S)
    assert len(blocks) == 1, html
    import html as html_module

    return html_module.unescape(blocks[0])


_TASK = re.compile(r"    (mutation|push|evidence|limit|decision) [\w .,/()+=\-'!?*]+ :"
                   r"((active|crit|done), )?milestone, r\d+, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d, 0s")


def test_the_mermaid_chart_holds_the_agents_text_as_plain_words() -> None:
    timeline = hostile().timeline()
    markdown = render_mermaid(timeline)
    code = mermaid_block(markdown)
    assert markdown.startswith("```mermaid\n")
    assert markdown.count("```") == 2
    lines = code.rstrip("\n").split("\n")
    assert lines[:6] == ["gantt", "    title Completion claim time line, refuted (times in UTC)",
                         "    dateFormat YYYY-MM-DD HH:mm:ss", "    axisFormat %H:%M",
                         "    todayMarker off", "    section Mutations (times the agent claims)"]
    tasks = [line for line in lines[5:] if not line.startswith("    section ")]
    assert len(tasks) == len(timeline.events)
    for line in tasks:
        assert _TASK.fullmatch(line), line
    for event in timeline.events:
        assert event_label(event) in code
    assert "script alert(1) /script" in code  # the words survive, the markup does not


def test_the_markdown_format_ends_with_the_time_line(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(["verify", str(SEED), "--now", "2026-08-27T18:04:10Z", "--format", "markdown"],
                out=out, err=io.StringIO())
    assert code == 1
    text = out.getvalue()
    assert text.index("### Evidence") < text.index("### Time line") < text.index("```mermaid")
    assert "mutation m1 (state_write accounts/4471) - unmet untrusted_verifier" in (
        mermaid_block(text))


def test_verify_format_svg(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(SEED), "--now", "2026-08-27T18:04:10Z", "--format", "svg"],
                out=out, err=err)
    assert code == 1, err.getvalue()
    root = parse_svg(out.getvalue())
    texts = [element.text for element in root.iter(f"{SVG}text")]
    assert "m1 (state_write accounts/4471)" in texts
    assert "self-attested (untrusted_verifier)" in texts


def test_a_missing_required_claim_is_an_svg_too(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(["verify", str(tmp_path / "absent.json"), "--require-claim", "--format", "svg"],
                out=out, err=io.StringIO())
    assert code == 1
    root = parse_svg(out.getvalue())
    assert "no_claim" in " ".join(element.text or "" for element in root.iter())


@pytest.mark.parametrize("name", ["example", "hostile", "many"])
def test_the_svg_names_its_size(name: str) -> None:
    example = {"example": stale_and_early, "hostile": hostile, "many": many_and_far}[name]()
    root = parse_svg(render_svg(example.timeline()))
    width, height = int(root.attrib["width"]), int(root.attrib["height"])
    assert root.attrib["viewBox"] == f"0 0 {width} {height}"
    assert 300 < height < 2000


def test_hostile_text_is_used_everywhere_in_the_hostile_example() -> None:
    """The control: the hostile example really puts the payload in every name."""
    timeline = hostile().timeline()
    assert json.dumps(HOSTILE)[1:20] in json.dumps([e.name + e.detail for e in timeline.events])
    assert sum(HOSTILE[:20] in e.name for e in timeline.events) >= 4


def test_the_action_writes_the_svg_and_charts_the_push_in_the_job_summary(
    github_hub: Hub, tmp_path: Path
) -> None:
    """A CI run that started before the head arrived: the job summary's chart and the
    `timeline-svg` file show GitHub's arrival and the run marked too early; the check run's
    summary is the verdict alone (under GitHub's 65535 characters)."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=-30))
    result, files = act(s, tmp_path)
    assert result.code == 1
    outputs = files.outputs()
    assert outputs["timeline-svg"] == ".claim-gate/timeline.svg"
    root = parse_svg((files.workspace / outputs["timeline-svg"]).read_text("utf-8"))
    texts = [element.text or "" for element in root.iter(f"{SVG}text")]
    assert f"head {s.head.sha[:12]} arrived" in texts
    assert "too early: before the push arrived" in texts
    assert "m1 (file_edit app/parser.py)" in texts
    code = mermaid_block(files.summary.read_text("utf-8").split("### Time line", 1)[1])
    assert f"push head {s.head.sha[:12]} arrived - from" in code
    assert "- too early before the push arrived :crit, milestone" in code
    check = s.check()
    assert "mermaid" not in (check.summary or "")
    assert len(check.summary or "") <= MAX_OUTPUT_CHARS


def _seed_with(tmp_path: Path, at: str) -> Path:
    claim = json.loads(SEED.read_text("utf-8"))
    claim["mutations"][0]["at"] = at
    path = tmp_path / "claim.json"
    path.write_text(json.dumps(claim), "utf-8")
    return path


@pytest.mark.parametrize("at", ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"])
@pytest.mark.parametrize("form", ["svg", "markdown"])
def test_a_mutation_at_the_calendars_end_is_drawn_not_a_crash(
    tmp_path: Path, at: str, form: str
) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(_seed_with(tmp_path, at)), "--now", "2026-08-27T18:04:10Z",
                 "--format", form], out=out, err=err)
    assert code == 1, err.getvalue()
    assert "m1 (state_write accounts/4471)" in out.getvalue()


def test_the_mermaid_chart_gives_times_in_utc(tmp_path: Path) -> None:
    out = io.StringIO()
    main(["verify", str(_seed_with(tmp_path, "2026-08-27T20:04:02+02:00")), "--now",
          "2026-08-27T18:04:10Z", "--format", "markdown"], out=out, err=io.StringIO())
    chart = mermaid_block(out.getvalue())
    assert "2026-08-27 18:04:02" in chart
    assert "20:04:02" not in chart
