"""`verify --junit HEAD --base-junit BASE`: one comparison, the head's report read once."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from gate.claim.errors import InvalidInput
from gate.claim.loader import load_claim
from gate.claim.policy import default_policy
from gate.evidence import junit
from gate.evidence.junit import JUnitFiles

SEED = Path(__file__).parent / "data" / "claims" / "seed-example.json"


def _report(path: Path, *names: str) -> Path:
    cases = "".join(f'<testcase classname="c" name="{name}"/>' for name in names)
    path.write_text(f'<testsuite name="s">{cases}</testsuite>', encoding="utf-8")
    return path


def test_the_heads_report_is_read_once_and_compared(tmp_path: Path, mocker: MockerFixture) -> None:
    head = _report(tmp_path / "head.xml", "kept")
    base = _report(tmp_path / "base.xml", "kept", "deleted")
    reads = mocker.spy(junit, "read_junit_file")
    collected = JUnitFiles((str(head),), None, base=(str(base),)).collect(
        load_claim(SEED), default_policy())
    assert [call.args[0] for call in reads.call_args_list] == [head, base]
    (comparison,) = collected.test_sets
    assert [removed.identity for removed in comparison.removed] == ["c::deleted"]
    assert collected.junit[0].totals.tests == 1
    digests = [what for what, _ in collected.inputs]
    assert any(str(base) in what for what in digests)


def test_a_base_report_with_no_junit_says_which_option(tmp_path: Path) -> None:
    head = _report(tmp_path / "head.xml", "kept")
    other = tmp_path / "coverage.xml"
    other.write_text("<coverage/>", encoding="utf-8")
    with pytest.raises(InvalidInput, match="point --base-junit at the JUnit XML files"):
        JUnitFiles((str(head),), None, base=(str(other),)).collect(
            load_claim(SEED), default_policy())
