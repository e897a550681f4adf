"""Every output format in one table: format name -> renderer.

`verify --format`, the check run's summary and the Action's job summary pick their renderer
here, so a new format is one entry. Renderers are pure: a decided claim in, text out. Each
renderer's module is imported when its format is asked for: `verify` prints one format, and
importing all six (the time line's SVG, JUnit XML...) cost every run (issue 23).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gate.claim.github_facts import Arrival
    from gate.claim.junit_facts import JUnitRun
    from gate.claim.loader import LoadedClaim
    from gate.engine.results import Verdict
    from gate.report.timeline import Timeline


@dataclass(frozen=True)
class RenderInput:
    """A decided claim and what a reader needs beside the verdict."""

    loaded: LoadedClaim
    verdict: Verdict
    label: str | None = None  # how the claim is named (default: its file)
    junit: tuple[JUnitRun, ...] = ()  # JUnit runs read from the operator's files
    links: tuple[str, ...] = ()  # Markdown links to the runs the evidence came from
    arrival: Arrival | None = None  # when GitHub saw the head (the time line's push)

    @property
    def source(self) -> str:
        return self.label or self.loaded.source

    @cached_property
    def timeline(self) -> Timeline:
        """Built once for every format that draws it (the Action writes the chart and the SVG)."""
        from gate.report.timeline import build_timeline

        return build_timeline(self.loaded.claim, self.verdict, self.arrival)


def _json(given: RenderInput) -> str:
    from gate.report.record_text import record_text

    return record_text(given.loaded.document.raw, given.verdict, end="\n")


def _text(given: RenderInput) -> str:
    from gate.report.text import render_text

    text = render_text(given.loaded.claim, given.verdict, given.source)
    if not given.junit:  # the JUnit summary (and its fact types) only for JUnit read
        return text
    from gate.report.junit_summary import render_junit_appendix

    return text + "".join(render_junit_appendix(run) for run in given.junit)


def _markdown(given: RenderInput) -> str:
    """The verdict, then the time line as a Mermaid chart (GitHub draws it)."""
    from gate.report.markdown import render_markdown
    from gate.report.timeline_mermaid import render_mermaid

    return (render_markdown(given.loaded.claim, given.verdict, given.source, given.links)
            + "\n### Time line\n\n" + render_mermaid(given.timeline))


def _svg(given: RenderInput) -> str:
    from gate.report.timeline_svg import render_svg

    return render_svg(given.timeline)


def _junit(given: RenderInput) -> str:
    from gate.report.junit_xml import render_junit

    return render_junit(given.loaded.claim, given.verdict, given.source)


def _github(given: RenderInput) -> str:
    from gate.report.github_commands import render_github

    document = given.loaded.document
    lines = {
        mutation.id: found.line
        for index, mutation in enumerate(given.loaded.claim.mutations)
        if (found := document.locate(f"/mutations/{index}")) is not None
    }
    return render_github(given.loaded.claim, given.verdict, given.source, lines)


RENDERERS: Mapping[str, Callable[[RenderInput], str]] = {
    "text": _text,
    "json": _json,
    "markdown": _markdown,
    "junit": _junit,
    "github": _github,
    "svg": _svg,
}
#: The formats `verify --format` offers, default first.
FORMATS = tuple(RENDERERS)


def render(name: str, given: RenderInput) -> str:
    return RENDERERS[name](given)
