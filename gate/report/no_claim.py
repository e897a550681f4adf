"""The output when a claim is required and there is none (`verify --require-claim`): one
unmet item, `no_claim`, in every format, so CI scripts need no special case for it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping

from gate import GATE_ID
from gate.report.github_commands import command
from gate.report.junit_xml import xml_safe

NO_CLAIM = "no_claim"


def _text(message: str) -> str:
    return f"unverified: [{NO_CLAIM}] {message}\n"


def _json(message: str) -> str:
    record = {"result": "unverified", "decided_by": GATE_ID,
              "unmet": [{"code": NO_CLAIM, "message": message}],
              "reason": f"unverified: {message}"}
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def _markdown(message: str) -> str:
    return f"## claim-gate: unverified\n\n- `{NO_CLAIM}`: {message}\n"


def _junit(message: str) -> str:
    suite = ET.Element("testsuite", name="claim-gate", tests="1", failures="1", errors="0")
    case = ET.SubElement(suite, "testcase", classname="claim-gate.claim", name="claim")
    failure = ET.SubElement(case, "failure", type=NO_CLAIM, message=xml_safe(message))
    failure.text = xml_safe(message)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"


def _github(message: str) -> str:
    return command("error", f"unverified: {message}") + "\n"


_RENDERERS: Mapping[str, Callable[[str], str]] = {
    "text": _text, "json": _json, "markdown": _markdown, "junit": _junit, "github": _github,
}


def render_no_claim(format_name: str, message: str) -> str:
    return _RENDERERS[format_name](message)
