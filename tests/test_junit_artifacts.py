"""Issue 10 (classes 2 and 3) through the GitHub stand-in: what the artifact collector
does with JUnit files that take over an identity, hide failures, are not JUnit, or are
malformed. Each attack beside its honest control, which must get `success`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, act, claim_json, edit, junit_xml, scenario
from tests.github_standin import ArtifactSpec, zip_bytes
from tests.github_standin.hub import Hub

PASSING = junit_xml(passed=3)
TAKEN_OVER = junit_xml(passed=2, failed=1).replace(
    "</testsuite>",
    '<testcase classname="tests.test_app" name="test_case_failing_0" time="0.01"/></testsuite>',
).replace('tests="3"', 'tests="4"')
COVERAGE = '<?xml version="1.0" ?>\n<coverage version="7.4" line-rate="1"><packages/></coverage>\n'


def _artifact(hub: Hub, tmp_path: Path, files: dict[str, str]) -> tuple[str, str, int]:
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    run = s.add_run(None)
    hub.add_artifact(run, ArtifactSpec("junit-results", zip_bytes(files)))
    result, out = act(s, tmp_path)
    check = s.check()
    return check.conclusion or "", (check.summary or "") + out.summary.read_text("utf-8"), \
        result.code


def test_control_a_passing_report_succeeds(github_hub: Hub, tmp_path: Path) -> None:
    conclusion, _summary, code = _artifact(github_hub, tmp_path, {"junit.xml": PASSING})
    assert (conclusion, code) == ("success", 0)


def test_an_added_case_reusing_the_failing_identity_does_not_pass(
    github_hub: Hub, tmp_path: Path
) -> None:
    conclusion, summary, code = _artifact(github_hub, tmp_path, {"junit.xml": TAKEN_OVER})
    assert conclusion == "failure"
    assert code == 2
    assert "test_case_failing_0" in summary


def test_a_coverage_report_in_the_artifact_is_skipped_with_a_note(
    github_hub: Hub, tmp_path: Path
) -> None:
    conclusion, summary, code = _artifact(
        github_hub, tmp_path, {"junit.xml": PASSING, "coverage.xml": COVERAGE})
    assert (conclusion, code) == ("success", 0)
    assert "coverage.xml" in summary
    assert "not a JUnit report" in summary


def test_malformed_xml_beside_a_passing_report_makes_the_artifact_unreadable(
    github_hub: Hub, tmp_path: Path
) -> None:
    conclusion, summary, code = _artifact(
        github_hub, tmp_path, {"junit.xml": PASSING, "other.xml": "<testsuite><testcase>"})
    assert conclusion != "success"
    assert code == 1
    assert "unreadable_artifact" in summary


def test_a_suite_saying_more_failed_than_the_file_shows_is_not_verified(
    github_hub: Hub, tmp_path: Path
) -> None:
    hiding = PASSING.replace('failures="0"', 'failures="1"')
    conclusion, summary, code = _artifact(github_hub, tmp_path, {"junit.xml": hiding})
    assert conclusion != "success"
    assert code == 1
    assert "count_mismatch" in summary
    assert "says it had 1 failure or error, but 0 failing tests were counted" in summary


MALFORMED = "<testsuite><testcase>"


@pytest.mark.parametrize(("files", "expected"), [
    # control: the readable report passes and nothing else is there
    ({"junit.xml": PASSING}, ("success", 0)),
    # a failing test in a readable file refutes, whatever sibling could not be read
    ({"junit.xml": junit_xml(passed=2, failed=1), "other.xml": MALFORMED}, ("failure", 2)),
    ({"a/junit.xml": junit_xml(passed=2, failed=1), "b/x.xml": MALFORMED, "c/y.xml": MALFORMED},
     ("failure", 2)),
    # a passing readable file beside an unreadable one is never verified
    ({"junit.xml": PASSING, "other.xml": MALFORMED}, ("action_required", 1)),
    # nothing readable at all: unverified, with the reason
    ({"other.xml": MALFORMED}, ("action_required", 1)),
])
def test_a_refutation_from_a_readable_file_stands_beside_unreadable_ones(
    github_hub: Hub, tmp_path: Path, files: dict[str, str], expected: tuple[str, int]
) -> None:
    conclusion, summary, code = _artifact(github_hub, tmp_path, files)
    assert (conclusion, code) == expected
    if MALFORMED in files.values():
        assert "could not be read" in summary
