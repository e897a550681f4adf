"""The time line's example picture (docs/timeline.png), made by the real engine and renderer.

Run from the repository root:  python3 -m tests.timeline_picture [--out docs]

The scenario is the two ways a green test run says nothing about the change: a run made
before the last mutation (or before the head was even pushed), and a run too old to count
(stale). The claim, the observed items and the head's arrival go through `decide`; the
picture is `render_svg` of the verdict, screenshotted in headless Chromium (Debian's
`chromium`). tests/test_timeline_render.py checks the picture and the page.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gate.claim.changed_paths import ChangedPaths
from gate.claim.facts import EvidenceItem, Facts, Origin, Producer
from gate.claim.github_facts import Arrival, ChangedFile, PullChanges, PullObservation
from gate.claim.model import CheckType, Claim, Evidence, Mutation, Task, Verifier, VerifierKind
from gate.claim.policy import Policy
from gate.engine.decide import decide
from gate.engine.results import Verdict
from gate.report.timeline import Timeline, build_timeline
from tests.check_run_picture import chromium, screenshot_sized

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs"
#: The decision time of the example.
NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)
HEAD = "4e1f0c2b9d8a7e6f5a4b3c2d1e0f9a8b7c6d5e4f"
PASSING = {"tests": 48, "failures": 0, "errors": 0}


def minutes(value: float) -> datetime:
    return NOW + timedelta(minutes=value)


def _run(at: datetime, source: str, origin: Origin = Origin.OPERATOR,
         verifier: str = "claim-gate/junit@0.1.0", kind: VerifierKind = VerifierKind.INDEPENDENT,
         producer: Producer | None = None) -> EvidenceItem:
    record = Evidence(check_type=CheckType.TEST_RUN, at=at, verifier=Verifier(verifier, kind),
                      observed_value=dict(PASSING), has_observed_value=True)
    return EvidenceItem(record, origin, source, producer=producer)


@dataclass(frozen=True)
class Example:
    claim: Claim
    verdict: Verdict
    arrival: Arrival

    def timeline(self) -> Timeline:
        return build_timeline(self.claim, self.verdict, self.arrival)


def stale_and_early() -> Example:
    """m1 and m2 edit the parser; the head arrives at 17:58. A CI run started 17:40 (before
    the push), a test record from 17:10 (before m1), one from 17:30 (after m1, before m2),
    yesterday's run (stale), and the agent's own "tests pass" at 18:01."""
    claim = Claim(
        spec_version="0.1", task=Task("fix-parser", "Fix the date parser"),
        claimed_outcome="Fixed the date parser; all tests pass.",
        mutations=(Mutation("m1", "file_edit", minutes(-50), "src/parser.py"),
                   Mutation("m2", "file_edit", minutes(-10), "src/parser.py")),
        evidence=(Evidence(check_type=CheckType.TEST_RUN, at=minutes(-9),
                           verifier=Verifier("agent-shell", VerifierKind.INDEPENDENT),
                           observed_value=dict(PASSING), has_observed_value=True),),
    )
    arrival = Arrival(HEAD, minutes(-12), "GitHub's activity API (push)")
    pull = PullObservation(PullChanges(frozenset({"src/parser.py"}), True), arrival, "main")
    facts = Facts(
        items=(
            _run(minutes(-30), "workflow run 'CI' #812 attempt 1 (.github/workflows/ci.yml)",
                 Origin.GATE, producer=Producer(".github/workflows/ci.yml", "success", "main")),
            _run(minutes(-60), "pytest record .claim-gate/pytest-1.json"),
            _run(minutes(-40), "pytest record .claim-gate/pytest-2.json"),
            _run(minutes(-26 * 60), "JUnit reports/junit.xml (yesterday)"),
        ),
        pull=pull,
        changed=ChangedPaths((ChangedFile("src/parser.py", "modified"),), 1, "GitHub"),
    )
    policy = Policy(id="example", requires=(CheckType.TEST_RUN,), source="example")
    return Example(claim, decide(claim, facts, policy, NOW), arrival)


#: An agent's text aimed at each renderer: XML's CDATA end and markup, Mermaid's grammar (a
#: directive, a comment, a click link, a statement break, a section), a Markdown fence, line
#: breaks and a right-to-left override.
HOSTILE = ('m]]><script>alert(1)</script><a href="https://evil.example">x</a>'
           ' :crit, done; %%{init: {"securityLevel": "loose"}}%% # note'
           '\nclick r0 href "javascript:alert(1)"\n```\n    section evil\u202eexe.txt &amp;')


def hostile() -> Example:
    """Every name the agent chooses is hostile: mutation ids and targets, its evidence's
    verifier, and the source of an operator record."""
    claim = Claim(
        spec_version="0.1", task=Task("t", "x"), claimed_outcome="done",
        mutations=(Mutation(HOSTILE, "file_edit", minutes(-20), HOSTILE),
                   Mutation("m2" + HOSTILE[:40], "state_write", minutes(-15), "db/" + HOSTILE)),
        evidence=(Evidence(check_type=CheckType.TEST_RUN, at=minutes(-5),
                           verifier=Verifier(HOSTILE, VerifierKind.INDEPENDENT),
                           covers=(HOSTILE,), observed_value=dict(PASSING),
                           has_observed_value=True),),
    )
    readback = Evidence(check_type=CheckType.STATE_READBACK, at=minutes(-1),
                        verifier=Verifier("records-reader/1", VerifierKind.INDEPENDENT),
                        covers=("m2" + HOSTILE[:40],), expected={"zip": "94107"},
                        observed_value={"zip": "10001"}, has_observed_value=True)
    facts = Facts(items=(_run(minutes(-3), HOSTILE),
                         EvidenceItem(readback, Origin.OPERATOR, "readback " + HOSTILE)))
    arrival = Arrival(HEAD, minutes(-19), HOSTILE)
    return Example(claim, decide(claim, facts, Policy(id="p"), NOW), arrival)


def many_and_far(mutation_count: int = 500, own: int = 400, observed: int = 30) -> Example:
    """Hundreds of mutations from 1970 on, the claim padded with its own evidence, a few
    dozen observed runs today, one from 2003: far-apart times and far too many rows (the
    observed runs are exactly as many as the picture draws, so all of them are drawn)."""
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    mutations = tuple(Mutation(f"m{n}", "file_edit", epoch + timedelta(days=n), f"src/f{n}.py")
                      for n in range(mutation_count))
    padding = tuple(Evidence(check_type=CheckType.TEST_RUN, at=minutes(-1),
                             verifier=Verifier(f"agent/{n}", VerifierKind.INDEPENDENT),
                             observed_value=dict(PASSING), has_observed_value=True)
                    for n in range(own))
    claim = Claim(spec_version="0.1", task=Task("t", "x"), claimed_outcome="done",
                  mutations=mutations, evidence=padding)
    runs = [_run(minutes(-n / 10), f"record {n}") for n in range(observed - 1)]
    runs.append(_run(datetime(2003, 5, 1, tzinfo=UTC), "record from 2003"))
    arrival = Arrival(HEAD, minutes(-30), "GitHub's activity API (push)")
    return Example(claim, decide(claim, Facts.of(runs), Policy(id="p"), NOW), arrival)


def main(argv: list[str] | None = None) -> int:
    from gate.report.timeline_svg import WIDTH, render_svg

    parser = argparse.ArgumentParser(prog="python3 -m tests.timeline_picture",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the SVG and PNG")
    args = parser.parse_args(argv)
    browser = chromium()
    if browser is None:
        print("chromium is not installed: apt-get install -y chromium", file=sys.stderr)
        return 3
    example = stale_and_early()
    text = render_svg(example.timeline())
    args.out.mkdir(parents=True, exist_ok=True)
    svg = args.out / "timeline.svg"
    svg.write_text(text, "utf-8")
    height = int(text.split('height="', 1)[1].split('"', 1)[0])
    png = args.out / "timeline.png"
    screenshot_sized(svg, png, browser, WIDTH, height)  # chromium draws the SVG itself
    print(f"{svg}, {png} ({WIDTH}x{height}): {example.verdict.state}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
