"""One check under the configured name for a PR with several claim files.

Branch protection requires one check name; with a claim-path glob each claim file gets its
own `name (file)` check, and this one carries the worst of them, listing each file, so the
required check always appears and is never better than its worst file.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.claim.model import VerdictState
from gate.engine.results import worst
from gate.report.check_run import CheckRunReport, Mode, claims_section, conclusion_for
from gate.report.markdown import cell

MAX_REASON_CHARS = 500


def combined_report(
    *, name: str, head_sha: str, mode: Mode, files: Sequence[tuple[str, VerdictState, str]],
    details_url: str | None = None, claims: Sequence[str] = (),
) -> CheckRunReport:
    """`files`: (label, state, reason) of each claim file, each also posted on its own;
    `claims`: what was found and whether it counted (gate/report/check_run.py)."""
    state = worst(s for _, s, _ in files)
    counts = {s: sum(1 for _, f, _ in files if f is s) for s in VerdictState}
    tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    rows = [
        f"| `{cell(label)}` | {s} | {cell(_cut(reason))} |" for label, s, reason in files
    ]
    summary = (
        f"## Completion claims: {state} (the worst of {len(files)} claim files)\n\n"
        f"Each claim file has its own check, `{cell(name)} (file)`; this one is the worst of"
        " them.\n\n| claim file | verdict | reason |\n| --- | --- | --- |\n"
        + "\n".join(rows) + "\n" + claims_section(claims)
    )
    title = f"{state}: {len(files)} claim files ({tally})"
    if mode is Mode.OBSERVE:
        title = f"{state} (observe mode: not blocking): {len(files)} claim files ({tally})"
    return CheckRunReport(
        name=name, head_sha=head_sha, conclusion=conclusion_for(state, mode), title=title,
        summary=summary[:60000], text=summary[:60000], annotations=(), details_url=details_url,
    )


def _cut(reason: str) -> str:
    if len(reason) <= MAX_REASON_CHARS:
        return reason
    return reason[:MAX_REASON_CHARS] + f" … ({len(reason) - MAX_REASON_CHARS} more characters)"
