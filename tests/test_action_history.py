"""The claim's history across pushes (issue 15 item 3), through the GitHub stand-in.

Three pushes to one PR, the gate posting as its own App each time: refuted, then unverified,
then verified; the third check run's posted summary tells that story. Only the gate's own
checks count: one with the same name from another app (any workflow's GITHUB_TOKEN) is not
history, a failed or malformed answer is "could not be read", and no history changes a verdict.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.claim.github_facts import ActivityEntry, CheckRunInfo, PullRequestRef
from gate.claim.history_facts import FirstVerified, HeadVerdict, HistoryStatus, PriorHistory
from gate.claim.timefmt import format_rfc3339, parse_rfc3339
from gate.engine.bases import external_id
from gate.evidence.github.history import (
    MalformedHistoryError,
    _earlier_heads,
    from_check,
    own_check,
)
from gate.pipeline import VerifyOptions, VerifyResult, run_verify
from gate.report.check_run import Mode, build_check_run, conclusion_for
from gate.report.history import HEADING, history_json, history_lines
from gate.report.record import completed_record
from tests.action_support import (
    T0,
    Scenario,
    act,
    claim_json,
    edit,
    gate_app,
    junit_xml,
    scenario,
)
from tests.github_standin.hub import Hub
from tests.github_standin.model import CheckRun
from tests.github_standin.server import Fault

NAME = "completion-claim"
CHECK_RUNS = "GET /repos/{owner}/{repo}/commits/{ref}/check-runs"


_app = gate_app


def _push(s: Scenario, minutes: int, content: str) -> None:
    """A new head on the PR's branch `minutes` after T0, its claim's edit a minute before."""
    claim = claim_json([edit(at=T0 + timedelta(minutes=minutes - 1))])
    commit = s.hub.add_commit(s.repo, {"app/parser.py": content, ".claim.json": claim},
                              branch="copilot/fix-parser",
                              pushed_at=T0 + timedelta(minutes=minutes))
    s.hub.update_pull_head(s.pull)
    s.head = commit


def _act(s: Scenario, tmp_path: Path, step: str, app: dict[str, str]) -> CheckRun:
    (tmp_path / step).mkdir()
    act(s, tmp_path / step, **app)
    return s.check()


def _three_pushes(hub: Hub, tmp_path: Path) -> tuple[Scenario, list[CheckRun], Path]:
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    _, app = _app(hub, s)
    s.add_run(junit_xml(passed=4, failed=1), conclusion="failure")
    checks = [_act(s, tmp_path, "1", app)]
    _push(s, 20, "x = 3\n")  # no test run on this head
    checks.append(_act(s, tmp_path, "2", app))
    _push(s, 30, "x = 4\n")
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=35))
    checks.append(_act(s, tmp_path, "3", app))
    return s, checks, tmp_path / "3"


def _section(check: CheckRun) -> str:
    """The posted summary's history section, as a person reads it (prose() puts a zero-width
    space after a colon so no time reads as a link)."""
    summary = (check.summary or "").replace("\u200b", "")
    return summary[summary.index("### History on this PR"):]


def _record(folder: Path) -> dict[str, Any]:
    outputs = (folder / "output.txt").read_text("utf-8")
    assert "claim-json" in outputs
    data: dict[str, Any] = json.loads(
        (folder / "workspace" / ".claim-gate" / "completed-claim.json").read_text("utf-8"))
    return data


def test_three_pushes_refuted_unverified_verified_show_in_the_posted_summary(
    github_hub: Hub, tmp_path: Path
) -> None:
    _, checks, last = _three_pushes(github_hub, tmp_path)
    assert [c.conclusion for c in checks] == ["failure", "action_required", "success"]
    first, second, third = (c.head_sha[:12] for c in checks)
    section = _section(checks[2])
    assert f"{first}: refuted (decided " in section
    assert f"{second}: unverified (decided " in section
    assert f"{third}: verified (this decision)" in section
    assert "verdicts in order: refuted → unverified → verified" in section
    assert f"first verified on {third} at 2026-03-02T10:00:00Z: it took 3 pushes" in section
    assert "of those known" not in section
    history = _record(last)["x-verification"]["history"]
    assert [h["result"] for h in history["heads"]] == ["refuted", "unverified", "verified"]
    assert [h["head_sha"] for h in history["heads"]] == [c.head_sha for c in checks]
    assert history["decided_heads"] == 3
    assert history["complete"] is True
    assert history["first_verified"]["push"] == 3
    assert "GitHub App" in history["source"]
    job_summary = (last / "summary.md").read_text("utf-8")
    assert f"{third}: verified (this decision)" in job_summary
    # The record in the check run's text is the one the next push reads.
    assert json.loads(checks[2].text or "")["x-verification"]["history"] == history


def _history_calls(hub: Hub) -> int:
    """Calls beyond the run's own: the head's check-run list (ignored speakers) and the
    arrival's activity page are made with or without history."""
    return hub.calls[CHECK_RUNS] - 1 + hub.calls["GET /repos/{owner}/{repo}/activity"] - 1


def test_history_costs_at_most_three_calls(github_hub: Hub, tmp_path: Path) -> None:
    """Worst case, no check of ours anywhere and several earlier heads: `before`, the branch's
    activity, one more head: 3 calls. A later push finds `before`'s check at once: 1 call."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    _, app = _app(github_hub, s)
    for minutes in (5, 10, 15):
        _push(s, minutes, f"x = {minutes}\n")
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=25))
    github_hub.calls.clear()
    first = _act(s, tmp_path, "1", app)
    assert _history_calls(github_hub) == 3
    assert "(only the 2 newest earlier heads are asked about)" in _section(first)
    assert "of those known" in _section(first)
    _push(s, 30, "x = 30\n")
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=35))
    github_hub.calls.clear()
    second = _act(s, tmp_path, "2", app)
    assert _history_calls(github_hub) == 1
    assert f"{first.head_sha[:12]}: verified (decided" in _section(second)


def test_the_history_is_read_only_after_the_claim_is_decided(
    github_hub: Hub, tmp_path: Path
) -> None:
    """Its calls (and any wait on them) come after every read of evidence, so they cannot age
    the evidence or spend the rate limit the decision needs."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    _, app = _app(github_hub, s)
    before = s.head.sha
    _push(s, 5, "x = 5\n")
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=10))
    github_hub.requests.clear()
    _act(s, tmp_path, "1", app)
    paths = [r.path for r in github_hub.requests]
    history = min(i for i, path in enumerate(paths) if f"/commits/{before}/check-runs" in path)
    evidence = max(i for i, path in enumerate(paths) if "/actions/" in path)
    assert evidence < history


def test_a_check_of_the_same_name_from_another_app_is_not_history(
    github_hub: Hub, tmp_path: Path
) -> None:
    """A workflow's GITHUB_TOKEN (GitHub Actions) posts a green check under the gate's name,
    with a forged record and the gate's external_id, on the previous head: not history."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    _, app = _app(github_hub, s)
    s.add_run(junit_xml(passed=4, failed=1), conclusion="failure")
    refuted = _act(s, tmp_path, "1", app)
    forged = {"x-verification": {
        "resource": {"head_sha": refuted.head_sha, "pull_request": s.pull.number},
        "result": "verified", "decided_at": "2026-03-02T09:30:00Z",
        "history": {"heads": [{"head_sha": refuted.head_sha, "result": "verified",
                               "decided_at": "2026-03-02T09:30:00Z"}],
                    "decided_heads": 1, "complete": True,
                    "first_verified": {"head_sha": refuted.head_sha,
                                       "decided_at": "2026-03-02T09:30:00Z", "push": 1}}}}
    github_hub.add_check_run(s.repo, head_sha=refuted.head_sha, name=NAME,
                             completed_at=T0 + timedelta(hours=2), text=json.dumps(forged),
                             external_id=external_id(s.pull.number, "main"))
    _push(s, 20, "x = 3\n")
    second = _act(s, tmp_path, "2", app)
    section = _section(second)
    assert f"{refuted.head_sha[:12]}: refuted" in section
    assert "verified on" not in section
    assert "not verified yet on any of 2 heads decided" in section


def test_with_github_token_the_history_is_not_read_and_says_why(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=5))
    github_hub.calls.clear()
    act(s, tmp_path)
    summary = s.check().summary or ""
    assert "history not read: the gate posts with GITHUB_TOKEN as GitHub Actions" in summary
    assert github_hub.calls["GET /repos/{owner}/{repo}/activity"] == 1  # the arrival's only


def test_a_failing_history_answer_is_said_and_does_not_block_the_verdict(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    _, app = _app(github_hub, s)
    s.add_run(junit_xml(passed=4, failed=1), conclusion="failure")
    _act(s, tmp_path, "1", app)
    _push(s, 20, "x = 3\n")
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=25))
    github_hub.faults.append(Fault(CHECK_RUNS, times=50, status=502))
    check = _act(s, tmp_path, "2", app)
    assert check.conclusion == "success"
    summary = _section(check)
    assert "history could not be read: GitHub could not be reached for GET" in summary
    assert "502" in summary
    assert "not verified yet" not in summary
    assert "first verified" not in summary
    assert _record(tmp_path / "2")["x-verification"]["history"]["status"] == "could not be read"


@pytest.mark.parametrize("text", [
    json.dumps({"x-verification": {"resource": {}, "result": "verified"}}),
    "{\"x-verification\": {\"history\": 7}}",
])
def test_a_malformed_record_of_ours_is_could_not_be_read(
    github_hub: Hub, tmp_path: Path, text: str
) -> None:
    """A check of the gate's own App whose record is not shaped as the gate writes it: the
    history could not be read (said), never "no history"; the verdict stands."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    the_app, app = _app(github_hub, s)
    previous = s.head.sha
    github_hub.add_check_run(s.repo, head_sha=previous, name=NAME, app=the_app, text=text,
                             external_id=external_id(s.pull.number, "main"))
    _push(s, 20, "x = 3\n")
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=25))
    check = _act(s, tmp_path, "1", app)
    assert check.conclusion == "success"
    assert "history could not be read: check run" in (check.summary or "")


# --- history is information, never evidence ------------------------------------------------

_SHAS = st.text("0123456789abcdef", min_size=40, max_size=40)
_TIMES = st.one_of(st.none(), st.datetimes(min_value=datetime(2026, 1, 1),
                                            max_value=datetime(2027, 1, 1),
                                            timezones=st.just(UTC)))
_HEADS = st.builds(HeadVerdict, _SHAS,
                   st.sampled_from(["verified", "unverified", "refuted", "not decided"]), _TIMES)
_PRIORS = st.builds(
    PriorHistory, st.sampled_from(list(HistoryStatus)),
    st.lists(_HEADS, max_size=25).map(tuple), st.integers(0, 200),
    st.one_of(st.none(), st.builds(FirstVerified, _SHAS, _TIMES, st.integers(1, 200))),
    st.one_of(st.none(), st.text(max_size=80)), st.one_of(st.none(), st.text(max_size=40)),
    st.booleans(),
)
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "claim.json"


@pytest.fixture(scope="module")
def decided() -> list[VerifyResult]:
    now = datetime(2026, 8, 27, 18, 4, 10, tzinfo=UTC)
    return [run_verify(VerifyOptions(claim=EXAMPLE, now=now, trusted_verifiers=trusted), now)
            for trusted in ((), ("gitreal-gate/*",))]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prior=_PRIORS, which=st.integers(0, 1))
def test_no_history_changes_a_verdict(
    decided: list[VerifyResult], prior: PriorHistory, which: int
) -> None:
    """Whatever the earlier checks say (all verified, all refuted, unreadable, forged counts),
    the check run's conclusion and title, the record's verdict and the newest head's result
    are this decision's."""
    result = decided[which]
    verdict, loaded = result.verdict, result.loaded
    state = str(verdict.state)
    kept = history_json(prior, "a" * 40, state, verdict.decided_at)
    assert kept["heads"][-1] == {"head_sha": "a" * 40, "result": state,
                                 "decided_at": format_rfc3339(verdict.decided_at)}
    plain = completed_record(loaded.document.raw, verdict)
    with_history = {**plain, "x-verification": {"history": kept}}
    reports = [build_check_run(name=NAME, head_sha="a" * 40, verdict=verdict, loaded=loaded,
                               claim_repo_path=".claim.json", record=record, mode=Mode.ENFORCE,
                               sections=sections)
               for record, sections in ((plain, []),
                                        (with_history, [(HEADING, history_lines(kept))]))]
    assert reports[1].conclusion == reports[0].conclusion == conclusion_for(verdict.state,
                                                                             Mode.ENFORCE)
    assert reports[1].title == reports[0].title
    assert with_history["verdict"] == plain["verdict"]


def test_only_the_report_and_the_action_see_the_history() -> None:
    """The engine, `pipeline.py` and every collector but the history's own never import it,
    so nothing read from earlier checks can reach `decide`; the per-PR pipeline reads it only
    after every claim of the PR is decided, for the report."""
    gate = Path(__file__).resolve().parent.parent / "gate"
    users = sorted(str(p.relative_to(gate)) for p in gate.rglob("*.py")
                   if "history_facts" in p.read_text("utf-8") or
                   "evidence.github.history" in p.read_text("utf-8"))
    assert users == ["evidence/github/history.py", "pipeline_pull.py", "pipeline_pull_report.py",
                     "report/history.py"]


# --- reading one check of ours -------------------------------------------------------------

_SHA = "b" * 40
_DECIDED = "2026-03-02T09:30:00Z"


def _ours(text: str | None) -> CheckRunInfo:
    return CheckRunInfo(id=9, name=NAME, head_sha=_SHA, status="completed",
                        conclusion="success", app_id=7, app_slug="claim-gate-app",
                        completed_at=T0, html_url=None, external_id="x", text=text)


def _verification(**history: Any) -> str:
    return json.dumps({"x-verification": {
        "resource": {"head_sha": _SHA, "pull_request": 1}, "result": "verified",
        "decided_at": _DECIDED, **({"history": history} if history else {})}})


_SELF = {"head_sha": _SHA, "result": "verified", "decided_at": _DECIDED}


@pytest.mark.parametrize("text", [
    json.dumps({"x-verification": {"resource": {"head_sha": "c" * 40, "pull_request": 1},
                                   "result": "verified"}}),  # another head's record
    json.dumps({"x-verification": {"resource": {"head_sha": _SHA, "pull_request": 2},
                                   "result": "verified"}}),  # another PR's
    json.dumps({"x-verification": {"resource": {"head_sha": _SHA, "pull_request": 1},
                                   "result": "great"}}),
    _verification(heads=[_SELF], decided_heads=0),  # fewer heads counted than listed
    _verification(heads=[{**_SELF, "result": "refuted"}], decided_heads=1),  # not itself last
    _verification(heads=[{**_SELF, "head_sha": "XYZ"}, _SELF], decided_heads=2),
    _verification(heads=[_SELF], decided_heads=True),
    _verification(heads=[_SELF], decided_heads=1, first_verified={"head_sha": _SHA}),
    _verification(heads=[{**_SELF, "decided_at": "yesterday"}], decided_heads=1),
])
def test_a_malformed_record_raises(text: str) -> None:
    with pytest.raises(MalformedHistoryError):
        from_check(_ours(text), 1)


def test_a_check_without_a_record_ends_the_chain() -> None:
    prior = from_check(_ours("claim-gate could not decide: GitHub answered 502"), 1)
    assert prior.heads == (HeadVerdict(_SHA, "not decided", T0),)
    assert prior.complete is False
    assert "heads before it are not known" in (prior.note or "")


@pytest.mark.parametrize(("title", "result"), [
    ("refuted: 2 claim files (1 refuted, 1 verified)", "refuted"),
    ("verified (observe mode: not blocking): 2 claim files (2 verified)", "verified"),
    ("could not decide", "not decided"),
    (None, "not decided"),
])
def test_a_check_without_a_record_is_read_by_its_title(title: str | None, result: str) -> None:
    """Several claim files' combined check carries a summary, not a record: its verdict is
    the one its title (the gate's own) starts with, and the chain ends there."""
    prior = from_check(replace(_ours("## 2 claim files"), title=title), 1)
    assert [h.result for h in prior.heads] == [result]
    assert prior.complete is False


def test_a_record_from_before_the_history_counts_its_head_only() -> None:
    prior = from_check(_ours(_verification()), 1)
    assert [h.result for h in prior.heads] == ["verified"]
    assert prior.first_verified is not None
    assert prior.complete is False


def test_a_chained_record_is_read_whole() -> None:
    older = {"head_sha": "d" * 40, "result": "refuted", "decided_at": "2026-03-02T09:10:00Z"}
    prior = from_check(_ours(_verification(
        heads=[older, _SELF], decided_heads=5, complete=True,
        first_verified={"head_sha": _SHA, "decided_at": _DECIDED, "push": 5})), 1)
    assert [h.result for h in prior.heads] == ["refuted", "verified"]
    assert prior.decided_heads == 5
    assert prior.first_verified == FirstVerified(_SHA, parse_rfc3339(_DECIDED), 5)
    assert prior.complete is True


def test_only_a_completed_check_of_the_app_for_this_pr_and_head_is_ours() -> None:
    mine = _ours(None)
    others = [replace(mine, app_id=15368), replace(mine, name=NAME + " (x)"),
              replace(mine, external_id="y"), replace(mine, head_sha="c" * 40),
              replace(mine, status="in_progress")]
    assert own_check(others, _SHA, NAME, 7, "x") is None
    newer = replace(mine, id=10, completed_at=T0 + timedelta(minutes=1))
    assert own_check([*others, mine, newer], _SHA, NAME, 7, "x") == newer


def test_an_unfinished_check_of_ours_is_found_when_asked_for() -> None:
    running = replace(_ours(None), status="in_progress", completed_at=None)
    assert own_check([running], _SHA, NAME, 7, "x") is None
    assert own_check([running], _SHA, NAME, 7, "x", finished=False) == running


class _Activity:
    """The activity page of a branch, newest first (a stand-in for the API's one call)."""

    def __init__(self, *pushes: tuple[str, str]) -> None:
        self.entries = [ActivityEntry("push", "refs/heads/b", before, after, T0, "a")
                        for before, after in pushes]

    def activity(self, repository: str, ref: str) -> list[ActivityEntry]:
        return self.entries


def test_pushes_newer_than_the_head_are_not_earlier_heads() -> None:
    """Re-running an old event: its head is not the branch's newest push, and what came after
    it is no part of its history."""
    newer, head, older, oldest = "d" * 40, "c" * 40, "b" * 40, "a" * 40
    pull = PullRequestRef(1, head, "b", "o/r", "main", "o/r", "agent", "")
    api = _Activity((head, newer), (older, head), (oldest, older), ("0" * 40, oldest))
    assert list(_earlier_heads(api, pull, None)) == [older, oldest]  # type: ignore[arg-type]
