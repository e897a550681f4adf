"""What `claim-gate scan` prints: the verdict and the check runs it would have posted.

Pure: the recorded requests in, text out. `json` is exactly the request bodies the Action
sends (`create`, then `updates` for annotations past the first 50) plus the completed claim
records, so a script can diff a scan against what a real run posted.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gate.faces.action.posting import CheckRunRequests, Published

# What a claim could use to rewrite a terminal: C0 controls but new line and tab (ESC, CR,
# backspace), DEL, C1 controls (a lone CSI) and the bidirectional overrides.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """The claim's words, never its terminal commands: a scan is read in a terminal, and
    an agent's claim must not overwrite the verdict line above it. JSON stays valid (the
    characters are only in strings, where \\uXXXX means the same character)."""
    return _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True)
class ScanResult:
    pull: str  # OWNER/REPO#N
    head_sha: str
    verdict: str
    exit_code: int
    check_runs: tuple[CheckRunRequests, ...]
    published: Published | None


def _annotations(requests: CheckRunRequests) -> list[dict[str, Any]]:
    outputs = [requests.create["output"], *(u["output"] for u in requests.updates)]
    return [a for output in outputs for a in output.get("annotations", [])]


def render_json(result: ScanResult) -> str:
    records = [json.loads(r) for r in (result.published.records if result.published else ())]
    document = {
        "pull_request": result.pull,
        "head_sha": result.head_sha,
        "verdict": result.verdict,
        "exit_code": result.exit_code,
        "posted": False,
        "check_runs": [{"create": c.create, "updates": list(c.updates)}
                       for c in result.check_runs],
        "completed_claims": records,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render_error(error: Exception, exit_code: int) -> str:
    """What went wrong, for a pipeline reading stdout (`--format json`): never empty."""
    kind = "invalid_input" if exit_code == 3 else "could_not_decide"
    document = {"error": {"kind": kind, "message": str(error), "exit_code": exit_code},
                "posted": False}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _check_line(requests: CheckRunRequests) -> str:
    create = requests.create
    return f"{create['name']}: {create['conclusion']} ({create['output']['title']})"


def render_text(result: ScanResult) -> str:
    lines = [f"{result.pull} at {result.head_sha[:12]}: {result.verdict}"
             f" (exit {result.exit_code})",
             "posted nothing; what the Action would post:"]
    for requests in result.check_runs:
        lines.append(f"  {_check_line(requests)}")
        for note in _annotations(requests):
            lines.append(f"    {note['path']}:{note['start_line']} {note['annotation_level']}"
                         f" {note['title']}: {note['message']}")
    for requests in result.check_runs:
        lines += ["", str(requests.create["output"]["summary"]).rstrip()]
    return "\n".join(lines) + "\n"


def render_markdown(result: ScanResult) -> str:
    parts = [f"# claim-gate scan of {result.pull}\n",
             f"Head `{result.head_sha}`: **{result.verdict}** (exit {result.exit_code})."
             " Nothing was posted; the Action would post:\n"]
    parts += [f"- check run `{r.create['name']}`: **{r.create['conclusion']}**:"
              f" {r.create['output']['title']}" for r in result.check_runs]
    parts.append("")
    if result.published is not None:
        parts += list(result.published.summaries)
    return "\n".join(parts).rstrip("\n") + "\n"


def render(name: str, result: ScanResult) -> str:
    """The chosen format, with the claim's control characters made visible."""
    return visible({"text": render_text, "json": render_json,
                    "markdown": render_markdown}[name](result))
