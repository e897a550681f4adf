"""Properties of the CI reporters over arbitrary text: nothing escapes its command or its XML."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from junitparser import JUnitXml

from gate.claim.codec import parse_claim
from gate.claim.facts import Facts
from gate.claim.policy import default_policy
from gate.engine.decide import decide
from gate.report.github_commands import command, escape_data, escape_property
from gate.report.junit_xml import render_junit, xml_safe
from gate.report.untrusted import visible

NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)


def _unescape_property(text: str) -> str:
    """What the runner does (actions/runner `ActionCommand.UnescapeProperty`)."""
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","),
                           ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


def _unescape_data(text: str) -> str:
    for escaped, plain in (("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        text = text.replace(escaped, plain)
    return text


@given(st.text())
def test_escaped_data_round_trips_and_stays_on_one_line(text: str) -> None:
    escaped = escape_data(text)
    assert "\n" not in escaped
    assert "\r" not in escaped
    # What the runner unescapes is the text as shown: invisible format characters (bidi,
    # zero-width) written out as \uXXXX, so they cannot reorder the gate's own words.
    assert _unescape_data(escaped) == visible(text)


@given(st.text())
def test_escaped_properties_round_trip_and_cannot_split(text: str) -> None:
    escaped = escape_property(text)
    assert not re.search("[\r\n:,]", escaped)
    assert _unescape_property(escaped) == visible(text)


@given(st.text(), st.text(), st.text())
def test_a_command_is_one_line_with_its_own_name(title: str, file: str, message: str) -> None:
    line = command("error", message, {"title": title, "file": file})
    assert "\n" not in line
    assert "\r" not in line
    head, _, body = line[2:].partition("::")
    assert head.startswith("error title=")
    assert _unescape_data(body) == visible(message)


@given(st.text(min_size=1, max_size=200), st.text(min_size=1, max_size=50))
def test_any_claim_text_makes_a_readable_junit_report(target: str, task_id: str) -> None:
    claim = parse_claim({
        "spec_version": "0.1",
        "task": {"id": task_id, "description": "d"},
        "claimed_outcome": "done",
        "mutations": [{"id": "m1", "kind": "file_edit", "target": target,
                       "at": "2026-08-27T18:00:00Z"}],
    })
    verdict = decide(claim, Facts.of([]), default_policy(), NOW)
    xml = JUnitXml.fromstring(render_junit(claim, verdict, "c.json").encode("utf-8"))
    assert (xml.tests, xml.failures) == (1, 1)
    case = next(iter(next(iter(xml))))
    # Attributes keep every character XML can carry, CR and LF included.
    assert case.name == xml_safe(f"m1 (file_edit {target})")
    assert case.result[0].type == "no_evidence"
