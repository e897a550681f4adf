"""Issue 20 (round 3), classes 1-6: every fact is bound to the one PR head decided.

Each row is an attack through the GitHub stand-in beside its honest control (the same
scenario without the attack), which must get `success`; the attack must not, and what a
reviewer sees must name it. The availability rows (the gate's own earlier run, an outsider's
fork PR with the same head) must get `success` both ways. docs/trust-model.md lists the
same classes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.action_support import (
    REPO,
    ROOT,
    T0,
    Scenario,
    add_baseline,
    claim_json,
    edit,
    junit_xml,
    scenario,
)
from tests.github_standin import ArtifactSpec, zip_bytes
from tests.github_standin.hub import Hub
from tests.test_attacks_complete_picture import Seen, _act

CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3))])
LINT = ".github/workflows/lint.yml"
GATE = ".github/workflows/claim.yml"
#: The base's suite: three passing tests and one that fails on the base (the tempting one).
FIVE = junit_xml(passed=4)  # test_case_0..3: the head keeps every test and passes
WITHOUT_THE_LAST = junit_xml(passed=3)  # test_case_3 deleted


def _base_with(s: Scenario, xml: str) -> None:
    """Replace the base commit's baseline JUnit (the scenario's push run on main)."""
    for run in [r for r in s.hub.runs.values() if r.event == "push"]:
        for artifact in run.artifacts:
            artifact.data = zip_bytes({"reports/junit.xml": xml})


def _scenario(hub: Hub, base_xml: str = FIVE, **kwargs: object) -> Scenario:
    s = scenario(hub, CLAIM, **kwargs)  # type: ignore[arg-type]
    _base_with(s, base_xml)
    return s


# -- class 2: the baseline is the base commit's own push run ---------------------------------


def a_tag_named_like_the_base_lends_its_run(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """The agent pushes a tag `main` on a commit without the test; its run lists under
    head_branch main, newer than the real baseline."""
    s = _scenario(hub)
    if attack:
        tagged = hub.add_commit(s.repo, {"tests/test_app.py": "# gone\n"},
                                parents=[s.repo.branches["main"]], push=False)
        hub.add_workflow_run(
            s.repo, head_sha=tagged.sha, event="push", head_branch="main",
            run_started_at=T0 - timedelta(minutes=30), created_at=T0 - timedelta(minutes=30),
            updated_at=T0 - timedelta(minutes=28), name="CI on tag main",
            artifacts=[ArtifactSpec("junit-results",
                                    zip_bytes({"reports/junit.xml": WITHOUT_THE_LAST}))])
    s.add_run(WITHOUT_THE_LAST if attack else FIVE)
    return _act(s, tmp_path)


def the_newest_baseline_run_is_deleted(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """Deleting the base commit's run must not promote an older one that predates the test."""
    s = _scenario(hub)
    older = hub.add_workflow_run(
        s.repo, head_sha=s.repo.branches["main"], event="push", head_branch="main",
        run_started_at=T0 - timedelta(days=3), created_at=T0 - timedelta(days=3),
        updated_at=T0 - timedelta(days=3), name="CI on main, long ago",
        artifacts=[ArtifactSpec("junit-results",
                                zip_bytes({"reports/junit.xml": WITHOUT_THE_LAST}))])
    parent = hub.add_commit(s.repo, {"old.txt": "1\n"}, parents=[s.repo.branches["main"]],
                            push=False)
    older.head_sha = parent.sha  # it ran on an earlier commit of main
    if attack:
        for run in [r for r in hub.runs.values() if r.event == "push" and r is not older]:
            del hub.runs[run.id]
    s.add_run(WITHOUT_THE_LAST if attack else FIVE)
    return _act(s, tmp_path)


# -- class 3: the owner's producers must all report ------------------------------------------


def _two_producers(hub: Hub) -> Scenario:
    return scenario(hub, CLAIM, baseline=(".github/workflows/ci.yml", LINT))


def a_producer_stays_silent(kind: str) -> Callable[[Hub, Path, bool], Seen]:
    def row(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
        s = _two_producers(hub)
        s.add_run(junit_xml(passed=5))
        if not attack:
            s.add_run(junit_xml(passed=3), path=LINT, name="Lint")
        elif kind == "skipped":
            s.add_run(None, path=LINT, name="Lint", conclusion="skipped")
        elif kind == "no artifact":
            s.add_run(None, path=LINT, name="Lint")
        return _act(s, tmp_path)
    return row


# removed_tests: warn, as e2e has no baseline on the base commit to compare with.
REQUIRE_E2E = ("id: owners\nrequires: [test_run]\nremoved_tests: warn\n"
               "required_workflows: [.github/workflows/e2e.yml]\n")


def a_required_workflow_does_not_report(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    if not attack:
        s.add_run(junit_xml(passed=2, name_prefix="e2e"), path=".github/workflows/e2e.yml",
                  name="E2E")
    return _act(s, tmp_path, policy=REQUIRE_E2E)


# -- class 4: reads pinned to the head -------------------------------------------------------


def the_live_file_list_hides_a_ci_edit(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """The head's own diff edits ci.yml; the PR's live listing (as a push between two reads
    would show it) does not. The comparison by SHA is what counts."""
    s = scenario(hub, CLAIM, files={".github/workflows/ci.yml": "# mine\n"} if attack else None)
    s.pull.files = [f for f in s.pull.files if f.filename != ".github/workflows/ci.yml"]
    s.add_run(junit_xml(passed=5))
    return _act(s, tmp_path)


def the_head_moves_while_the_gate_reads(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """A push lands after the gate read the PR: nothing may say success for the old head."""
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    if attack:
        def push() -> None:
            hub.add_commit(s.repo, {".github/workflows/ci.yml": "# mine\n"},
                           branch="copilot/fix-parser", pushed_at=T0)
            hub.update_pull_head(s.pull)
        hub.when_called("GET /repos/{owner}/{repo}/compare/{basehead}", push)
    return _act(s, tmp_path)


# -- class 5: which PR a run belongs to ------------------------------------------------------


@contextmanager
def _clock_at(hub: Hub, moment: datetime) -> Iterator[None]:
    """The server's time stands at `moment` for what happens inside (timeline events)."""
    saved = hub.clock
    hub.clock = lambda: moment
    try:
        yield
    finally:
        hub.clock = saved


def a_closed_pr_with_the_same_head_lends_its_run(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """A second PR with this head into the agent's branch, closed before the gate looks: its
    run lists no PR (closed PRs are not listed), so it looks like ours."""
    s = scenario(hub, CLAIM)
    if attack:
        hub.add_commit(s.repo, {"x": "1\n"}, branch="copilot/base",
                       parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=1))
        other = hub.add_pull(s.repo, head="copilot/fix-parser", base="copilot/base")
        s.add_run(junit_xml(passed=5), pull_requests=[])
        hub.set_pull_state(other, "closed")
    else:
        s.add_run(junit_xml(passed=5), pull_requests=[])
    return _act(s, tmp_path)


def an_outsiders_fork_pr_holds_the_same_head(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """Anyone can open a fork PR with the honest head commit (and let its own run fail): it
    must not make the honest PR's run ambiguous, nor count as its CI (the availability case)."""
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    if attack:
        fork = hub.add_repo("outsider/app", fork_of=s.repo)
        theirs = hub.add_pull(s.repo, head="copilot/fix-parser", head_repo=fork,
                              user=hub.add_user("outsider"))
        hub.add_workflow_run(s.repo, head_sha=s.head.sha, head_repo=fork, pull_requests=[],
                             conclusion="failure", run_started_at=T0 + timedelta(minutes=7),
                             created_at=T0 + timedelta(minutes=7), name="CI (fork)")
        assert theirs.number != s.pull.number
    return _act(s, tmp_path)


def a_run_from_before_the_last_retarget(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """The run was made while the PR targeted the agent's branch and names no PR; the PR was
    retargeted to main afterwards. The control's retarget came before its run."""
    s = scenario(hub, CLAIM)
    hub.add_commit(s.repo, {"x": "1\n"}, branch="copilot/base",
                   parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=1))
    with _clock_at(hub, T0 + (timedelta(minutes=10) if attack else timedelta(minutes=1))):
        hub.retarget_pull(s.pull, "copilot/base")
        hub.retarget_pull(s.pull, "main")
    s.add_run(junit_xml(passed=5), pull_requests=[])  # started at T0 + 5 minutes
    return _act(s, tmp_path, action="edited")


def a_run_from_before_a_reopen(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    s = scenario(hub, CLAIM)
    with _clock_at(hub, T0 + (timedelta(minutes=10) if attack else timedelta(minutes=1))):
        hub.set_pull_state(s.pull, "closed")
        hub.set_pull_state(s.pull, "open")
    s.add_run(junit_xml(passed=5), pull_requests=[])  # started at T0 + 5 minutes
    return _act(s, tmp_path)


# -- class 6: the gate's own workflow is never CI (availability) -----------------------------


def an_earlier_gate_run_ended_unverified(hub: Hub, tmp_path: Path, attack: bool) -> Seen:
    """A gate run started by another event ended failure on this head: the honest PR must
    still get success (the availability case)."""
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    if attack:
        hub.add_workflow_run(s.repo, head_sha=s.head.sha, path=GATE, name="claim-gate",
                             event="pull_request_review", conclusion="failure",
                             pull_requests=[s.pull], run_started_at=T0 + timedelta(minutes=6),
                             created_at=T0 + timedelta(minutes=6))
    return _act(s, tmp_path, env={"GITHUB_WORKFLOW_REF": f"{REPO}/{GATE}@refs/heads/main"})


@dataclass(frozen=True)
class Row:
    name: str  # as in the table of docs/trust-model.md
    attack: Callable[[Hub, Path, bool], Seen]
    code: str  # the reason code a reviewer reads ("-": none, the availability rows)
    words: tuple[str, ...] = ()  # what else a reviewer must read of the attack
    attack_passes: bool = False  # availability rows: the "attack" must get success too


ROWS = (
    Row("a tag named like the base branch, on a commit without the failing test",
        a_tag_named_like_the_base_lends_its_run, "removed_tests", ("missing or skipped",)),
    Row("the base commit's run deleted, so an older run would be the newest",
        the_newest_baseline_run_is_deleted, "no_baseline", ("no finished push run",)),
    Row("the test workflow that fails on the base is skipped on the head",
        a_producer_stays_silent("skipped"), "producer_missing", (LINT,)),
    Row("the test workflow that fails on the base does not run on the head ([skip ci], deleted)",
        a_producer_stays_silent("absent"), "producer_missing", (LINT,)),
    Row("the test workflow that fails on the base runs on the head without its artifact",
        a_producer_stays_silent("no artifact"), "producer_missing", (LINT,)),
    Row("a workflow the policy's required_workflows names does not report",
        a_required_workflow_does_not_report, "producer_missing", ("required_workflows",)),
    Row("the PR's live file list (a push between two reads) hides the head's CI edit",
        the_live_file_list_hides_a_ci_edit, "producer_modified", ("ci.yml",)),
    Row("the head moves while the gate is reading the PR",
        the_head_moves_while_the_gate_reads, "superseded"),
    Row("a closed PR with the same head, into the agent's branch, lends its run",
        a_closed_pr_with_the_same_head_lends_its_run, "missing_check_type",
        ("also hold this head commit",)),
    Row("a run that names no PR, made before the PR was retargeted to main",
        a_run_from_before_the_last_retarget, "not_bound", ("base last changed",)),
    Row("a run that names no PR, made before the PR was reopened",
        a_run_from_before_a_reopen, "not_bound", ("or it was reopened",)),
    Row("an earlier run of the gate's own workflow on the head ended unverified",
        an_earlier_gate_run_ended_unverified, "-", attack_passes=True),
    Row("an outsider's fork PR with the same head commit, and a failing run of its own",
        an_outsiders_fork_pr_holds_the_same_head, "-", attack_passes=True),
)


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_the_honest_control_gets_success(github_hub: Hub, tmp_path: Path, row: Row) -> None:
    seen = row.attack(github_hub, tmp_path, False)
    assert (seen.conclusion, seen.code) == ("success", 0), seen.words


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_the_attack_does_not_get_success(github_hub: Hub, tmp_path: Path, row: Row) -> None:
    seen = row.attack(github_hub, tmp_path, True)
    assert not github_hub.violations, github_hub.violations
    if row.attack_passes:
        assert (seen.conclusion, seen.code) == ("success", 0), seen.words
        return
    assert seen.conclusion != "success", seen.words
    assert seen.code == 1
    flat = " ".join(seen.words.split()).replace("\\", "")
    for words in row.words + ((f"`{row.code}`",) if row.code != "-" else ()):
        assert words in flat, f"{words!r} not in what the reviewer sees:\n{seen.words}"


def test_the_trust_model_lists_every_row() -> None:
    section = (ROOT / "docs" / "trust-model.md").read_text("utf-8").split(
        "## What claim-gate defends against", 1)[1].split("\n## ", 1)[0]
    for row in ROWS:
        code = f"`{row.code}`" if row.code != "-" else "-"
        found = re.search(rf"^\| {re.escape(row.name)} \| [^|]+ \| (.+) \|$", section, re.M)
        assert found is not None, row.name
        assert found[1] == code, row.name


def test_the_base_commit_run_is_found_after_main_moved_on(
    github_hub: Hub, tmp_path: Path
) -> None:
    """Honest: main has a newer push (a newer run) than the PR's base commit; the baseline is
    still the run ON the base commit, so the PR passes."""
    s = _scenario(github_hub)
    github_hub.add_commit(s.repo, {"later.txt": "1\n"}, pushed_at=T0 - timedelta(minutes=30))
    add_baseline(github_hub, s.repo, xml=WITHOUT_THE_LAST, at=T0 - timedelta(minutes=29))
    s.add_run(FIVE)
    seen = _act(s, tmp_path)
    assert (seen.conclusion, seen.code) == ("success", 0), seen.words
