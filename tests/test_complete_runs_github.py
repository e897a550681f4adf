"""Issue 21 item 5 on GitHub: the Action reads only the JUnit artifact, so the plugin's word
that its run did not finish (`claim-gate.unfinished`, `claim-gate.interrupted` among the
report's properties, as the plugin writes them) keeps the check from `success`; the same
report of a run that finished gets `success`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from gate.evidence.pytest_record import Tally, completion_properties
from tests.action_support import T0, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.test_attacks import _run

CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3))])


def _report(ended_by: str | None) -> str:
    """Five passing cases and the plugin's completion properties for a session that ran them
    all and a sixth test that `ended_by` interrupted after its setup (None: it finished)."""
    tally = Tally()
    tally.collected([f"tests/test_app.py::test_case_{i}" for i in range(6)])
    for i in range(5 if ended_by else 6):
        for when in ("setup", "call", "teardown"):
            tally.add(f"tests/test_app.py::test_case_{i}", when, "passed")
    if ended_by:
        tally.add("tests/test_app.py::test_case_5", "setup", "passed")
    properties = "".join(f'<property name="{name}" value="{value}"/>'
                         for name, value in completion_properties(tally.totals(), ended_by))
    xml = junit_xml(passed=5 if ended_by else 6)
    return xml.replace('failures="0">', f'failures="0"><properties>{properties}</properties>')


def test_control_a_report_of_a_run_that_finished_succeeds(github_hub: Hub,
                                                          tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM)
    s.add_run(_report(None))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "success", seen.words


@pytest.mark.parametrize("ended_by", ["pytest.exit: done (returncode=0)",
                                      "KeyboardInterrupt", "Interrupted: done"])
def test_a_report_of_a_run_ended_early_is_not_a_pass(ended_by: str, github_hub: Hub,
                                                     tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM)
    s.add_run(_report(ended_by))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "action_required", seen.words
    assert "incomplete_run" in seen.words
    assert ended_by in seen.words
    assert seen.record is not None
    [evidence] = seen.record["evidence"]
    assert evidence["x-claim-gate"]["problem"]["code"] == "incomplete_run"
    assert evidence["observed_value"]["unfinished"] == 1
