"""The verdict as a JUnit report, so every CI that shows JUnit shows the verdict.

One test case per mutation and per required check type (plus one for the claim as a whole
when an unmet item belongs to neither); an unmet one is a `<failure>` whose type is the
unmet code and whose message is the reason. Claim text is the agent's: characters XML 1.0
cannot carry are replaced, so a hostile claim cannot make the report unreadable.

The names below are an output contract (docs/other-ci.md lists them): pipelines read them,
so they are literal strings, never derived from module or function names, and
tests/test_junit_output_contract.py pins each one.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gate.claim.model import Claim, Mutation
from gate.claim.timefmt import format_rfc3339
from gate.engine.results import Unmet, Verdict

#: Everything outside XML 1.0's Char production, lone surrogates included.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

SUITE_NAME = "claim-gate"
#: The suite's properties, in order: what a pipeline reads of the verdict.
VERDICT_PROPERTY = "claim-gate.verdict"
REASON_PROPERTY = "claim-gate.reason"
TASK_PROPERTY = "claim-gate.task"
CLAIM_PROPERTY = "claim-gate.claim"
POLICY_PROPERTY = "claim-gate.policy"
POLICY_SHA256_PROPERTY = "claim-gate.policy_sha256"
DECIDED_BY_PROPERTY = "claim-gate.decided_by"
#: The test cases' classnames: one per mutation, per required check type, and the claim.
MUTATION_CLASS = "claim-gate.mutation"
REQUIREMENT_CLASS = "claim-gate.requirement"
CLAIM_CLASS = "claim-gate.claim"


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _mutation_name(mutation: Mutation) -> str:
    target = f" {mutation.target}" if mutation.target else ""
    return f"{mutation.id} ({mutation.kind}{target})"


def _case(suite: ET.Element, classname: str, name: str, unmet: Unmet | None) -> None:
    case = ET.SubElement(
        suite, "testcase", classname=classname, name=xml_safe(name), time="0"
    )
    if unmet is not None:
        failure = ET.SubElement(
            case, "failure", type=unmet.code, message=xml_safe(unmet.message)
        )
        failure.text = xml_safe(f"[{unmet.code}] {unmet.message}")


def render_junit(claim: Claim, verdict: Verdict, source: str) -> str:
    by_mutation = {u.mutation: u for u in verdict.unmet if u.mutation is not None}
    by_requirement = {u.requirement: u for u in verdict.unmet if u.requirement is not None}
    general = [u for u in verdict.unmet if u.mutation is None and u.requirement is None]

    root = ET.Element("testsuites", name=SUITE_NAME)
    suite = ET.SubElement(
        root, "testsuite", name=xml_safe(f"{SUITE_NAME}: {claim.task.id}"),
        timestamp=format_rfc3339(verdict.decided_at), time="0", errors="0", skipped="0",
    )
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        (VERDICT_PROPERTY, str(verdict.state)),
        (REASON_PROPERTY, verdict.reason),
        (TASK_PROPERTY, claim.task.id),
        (CLAIM_PROPERTY, source),
        (POLICY_PROPERTY, verdict.policy.id),
        (POLICY_SHA256_PROPERTY, verdict.policy.digest),
        (DECIDED_BY_PROPERTY, verdict.decided_by),
    ):
        ET.SubElement(properties, "property", name=name, value=xml_safe(value))
    for mutation in claim.mutations:
        _case(suite, MUTATION_CLASS, _mutation_name(mutation), by_mutation.get(mutation.id))
    for check_type in verdict.policy.requires:
        _case(suite, REQUIREMENT_CLASS, str(check_type), by_requirement.get(check_type))
    for entry in general:
        _case(suite, CLAIM_CLASS, claim.task.id, entry)

    cases = suite.findall("testcase")
    failures = sum(1 for case in cases if case.find("failure") is not None)
    for element in (root, suite):
        element.set("tests", str(len(cases)))
        element.set("failures", str(failures))
    root.set("errors", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
