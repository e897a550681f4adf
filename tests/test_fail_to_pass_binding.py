"""Which base a run over the base's code may be bound to (issue 25): the subject's base commit,
or the merge base the gate's own comparison of it with the head named (what `claim-gate
base-code` restores when the base branch moved on since the change branched off); any other
base does not count. The real engine decides."""

from __future__ import annotations

import pytest

from gate.claim.fail_to_pass import FailToPass
from gate.claim.model import VerdictState
from gate.engine import fail_to_pass
from tests.test_timeline_fail_to_pass import BASE, base_code_rows, decided
from tests.timeline_picture import HEAD

MERGE_BASE = "d" * 40
OTHER = "e" * 40


@pytest.mark.parametrize(("bound_base", "state"), [
    (BASE, VerdictState.VERIFIED),  # the PR's base commit
    (MERGE_BASE, VerdictState.VERIFIED),  # the merge base the comparison named
    (OTHER, VerdictState.UNVERIFIED),  # any other commit
])
def test_a_base_code_run_is_bound_to_the_base_or_the_merge_base(
        bound_base: str, state: VerdictState) -> None:
    found, timeline = decided((bound_base, HEAD), merge_base=MERGE_BASE)
    assert found is state
    if state is VerdictState.UNVERIFIED:
        [row] = base_code_rows(timeline)
        assert f"ran over the code of {OTHER[:12]}, not the base {BASE[:12]}" in row.detail


def test_without_a_comparison_only_the_base_commit_counts() -> None:
    assert decided((MERGE_BASE, HEAD))[0] is VerdictState.UNVERIFIED
    assert decided((BASE, HEAD))[0] is VerdictState.VERIFIED


@pytest.mark.parametrize("mode", [FailToPass.REPORT, FailToPass.REQUIRE])
def test_the_binding_is_judged_once_per_decision(
        mode: FailToPass, monkeypatch: pytest.MonkeyPatch) -> None:
    # The rule, the counted tests and the report read one judgement (they judged it 3 times).
    calls: list[object] = []
    judge = fail_to_pass._bound_problem

    def counted(found: object, facts: object) -> str | None:
        calls.append(found)
        return judge(found, facts)  # type: ignore[arg-type]

    monkeypatch.setattr(fail_to_pass, "_bound_problem", counted)
    expected = VerdictState.UNVERIFIED if mode is FailToPass.REQUIRE else VerdictState.VERIFIED
    assert decided((OTHER, HEAD), mode=mode)[0] is expected
    assert len(calls) == 1
