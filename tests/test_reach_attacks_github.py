"""Issue 21 item 1 on GitHub: the JUnit artifact comes from a job that ran the PR's code, so the
gate reads the PR's own files at the head SHA (the contents API of the stand-in) and a change
that reaches into its test run makes that run `producer_modified`, named on the check.
Each attack beside its honest control; the control gets `success`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.github_standin.model import Symlink
from tests.test_attacks import _run

CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3))])
CLAIM_WITH_TEST = claim_json([edit(at=T0 - timedelta(minutes=3)),
                              edit("m2", T0 - timedelta(minutes=3), "tests/test_more.py")])

ATTACKS: dict[str, tuple[dict[str, str | Symlink | None], str, str]] = {
    # name: (the PR's files besides the claim, the claim, what the check must name)
    "an exit handler in the code under test": (
        {"app/parser.py": "import atexit\nx = 2\natexit.register(print)\n"}, CLAIM,
        "app/parser.py:1 atexit (process-exit)"),
    "the runner's report class rebound through an alias": (
        {"app/parser.py": "x = 2\nfrom _pytest import runner as r\nr.TestReport = object\n"},
        CLAIM, "app/parser.py:2 _pytest (test-machinery)"),
    "sys.modules written by a computed name": (
        {"app/parser.py": "import sys\nx = 2\nsys.modules[name] = object()\n"}, CLAIM,
        "app/parser.py:3 sys.modules["),
    "a new test module that implements a pytest hook": (
        {"tests/test_more.py": "def pytest_runtest_logreport(report):\n    pass\n"},
        CLAIM_WITH_TEST, "tests/test_more.py:1 the pytest hook pytest_runtest_logreport()"),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_pr_that_reaches_into_its_run(name: str, github_hub: Hub, tmp_path: Path) -> None:
    files, claim, named = ATTACKS[name]
    s = scenario(github_hub, claim, files=files)
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "action_required"
    assert "producer_modified" in seen.words
    assert named in seen.words
    assert seen.record is not None
    [evidence] = seen.record["evidence"]
    assert evidence["verifier"]["kind"] == "self_attested"
    assert evidence["x-claim-gate"]["problem"]["code"] == "producer_modified"
    assert evidence["x-change-reach"]["findings"]


def test_control_an_honest_pr_is_read_and_verifies(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM_WITH_TEST, files={
        "tests/test_more.py": "import pytest\n\ndef test_more(monkeypatch):\n"
                              "    monkeypatch.setattr('builtins.input', lambda _: 'y')\n"})
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "success", seen.words
    assert seen.record is not None
    [evidence] = seen.record["evidence"]
    assert evidence["x-change-reach"]["files_read"] == 2
    assert evidence["x-change-reach"]["findings"] == []
    assert "2 files read, 0 places reaching into the test run" in seen.words


def test_an_allowed_place_verifies_and_is_shown(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]),
                 files={"app/parser.py": "import atexit\nx = 2\natexit.register(print)\n"})
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path, policy="id: owners\nevidence_chain:\n  allow_reach:\n"
                "    - {path: app/parser.py, rule: process-exit}\n")
    assert seen.conclusion == "success", seen.words
    assert "allowed by the owner's evidence_chain.allow_reach: app/parser.py:1 atexit" \
        in seen.words


def test_a_symlinked_source_file_is_an_incomplete_reading(github_hub: Hub,
                                                         tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3)),
                                         edit("m2", T0 - timedelta(minutes=3), "app/link.py")]),
                 files={"app/link.py": Symlink("../../outside/hook.py")})
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "action_required"
    assert "change_unread" in seen.words
    assert "app/link.py" in seen.words
