"""The verdict as GitHub workflow commands (`::error ...::message`) for a workflow step.

Every message may hold the agent's text, and the runner reads any output line that starts
with `::` as a command, so nothing is printed outside a command and every value is escaped
the way the runner unescapes it (actions/toolkit `command.ts`): in the message `%`, CR and
LF; in a property value also `:` and `,`. Without that, a mutation id holding a newline
could print a command of its own.
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.claim.model import Claim, VerdictState
from gate.engine.results import Verdict
from gate.report.untrusted import visible


def escape_data(text: str) -> str:
    """As the runner unescapes it; invisible format characters shown escaped (bidi)."""
    return visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, properties: Mapping[str, str | int] | None = None) -> str:
    """One workflow command line: `::name key=value,...::message`."""
    props = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in (properties or {}).items()
    )
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def render_github(
    claim: Claim,
    verdict: Verdict,
    source: str,
    mutation_lines: Mapping[str, int] | None = None,
) -> str:
    """An `::error` per unmet item (at the mutation's line of the claim file when known),
    then the verdict: `::notice` when verified, `::error` otherwise."""
    lines = mutation_lines or {}
    out = []
    for entry in verdict.unmet:
        props: dict[str, str | int] = {"title": f"claim-gate: {entry.code}", "file": source}
        if entry.mutation is not None and entry.mutation in lines:
            props["line"] = lines[entry.mutation]
        out.append(command("error", entry.message, props))
    headline = {"title": f"claim-gate: {verdict.state} (task {claim.task.id})"}
    kind = "notice" if verdict.state is VerdictState.VERIFIED else "error"
    out.append(command(kind, verdict.reason, {**headline, "file": source}))
    return "\n".join(out) + "\n"
