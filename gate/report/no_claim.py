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


def _svg(message: str) -> str:
    """No claim, no time line: a picture that says so (the message is the gate's)."""
    root = ET.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "width": "980",
                              "height": "60", "viewBox": "0 0 980 60", "role": "img",
                              "font-family": "DejaVu Sans, Arial, sans-serif"})
    ET.SubElement(root, "title").text = "unverified: no claim"
    heading = ET.SubElement(root, "text", x="14", y="24", fill="#9a6700")
    heading.set("font-size", "16")
    heading.text = f"unverified [{NO_CLAIM}]"
    line = ET.SubElement(root, "text", x="14", y="46", fill="#1f2328")
    line.set("font-size", "11")
    line.text = xml_safe(message)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


_RENDERERS: Mapping[str, Callable[[str], str]] = {
    "text": _text, "json": _json, "markdown": _markdown, "junit": _junit, "github": _github,
    "svg": _svg,
}


def render_no_claim(format_name: str, message: str) -> str:
    return _RENDERERS[format_name](message)
