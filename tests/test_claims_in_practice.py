"""Issue 12 through the GitHub stand-in: the claim belongs to this PR, matches its diff, and
a maintainer can overrule it (items 1, 2 and 4)."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.action_support import (
    REPO,
    T0,
    ActionResult,
    RunnerFiles,
    Scenario,
    act,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin import ChangedFile, Symlink
from tests.github_standin.events import pull_request_review_event
from tests.github_standin.hub import Hub
from tests.github_standin.model import Review, User


def shown(summary: str | None) -> str:
    """The summary as a reader sees it: the gate escapes Markdown in quoted text
    (issue 10 class 8), so the escapes are taken out before comparing words."""
    return re.sub(r"\\(.)", r"\1", summary or "")

EARLIER = T0 - timedelta(minutes=3)


def verified_scenario(hub: Hub, mutations: list[dict[str, object]] | None = None,
                      **kwargs: object) -> Scenario:
    s = scenario(hub, claim_json(mutations or [edit(at=EARLIER)]), **kwargs)  # type: ignore[arg-type]
    s.add_run(junit_xml())
    return s


def record_of(s: Scenario) -> dict[str, Any]:
    record: dict[str, Any] = json.loads(s.check().text or "{}")
    return record


# -- item 1: the claim belongs to this PR ---------------------------------------------------


def test_an_inherited_claim_is_no_claim_for_this_pr(github_hub: Hub, tmp_path: Path) -> None:
    """A claim merged with an earlier PR stays on main; a later PR that does not touch it is
    judged as having no claim, never by the old one."""
    old = claim_json([edit(at=EARLIER)])
    repo = github_hub.add_repo(REPO, files={"app/parser.py": "x = 1\n", ".claim.json": old},
                               pushed_at=T0 - timedelta(days=1))
    head = github_hub.add_commit(repo, {"app/parser.py": "x = 3\n"}, branch="human/change",
                                 pushed_at=T0 - timedelta(minutes=1))
    pull = github_hub.add_pull(repo, head="human/change",
                               user=github_hub.add_user("copilot-swe-agent[bot]", type="Bot"))
    s = Scenario(github_hub, repo, head, pull, [])
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    check = s.check()
    assert (result.code, check.conclusion) == (1, "action_required")
    assert "no completion claim for this PR" in (check.title or "")
    assert "inherited from the base branch" in shown(check.summary)


def test_a_claim_this_pr_modifies_counts_and_is_recorded(github_hub: Hub, tmp_path: Path) -> None:
    s = verified_scenario(github_hub)
    result, _ = act(s, tmp_path)
    assert (result.code, s.check().conclusion) == (0, "success")
    assert record_of(s)["x-claim-gate-claims"] == [
        f".claim.json@{s.head.sha[:12]}: counted: this PR adds or modifies it"]


def test_a_claim_path_that_is_a_directory_is_unverified(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, None, files={".claim.json/inner.json": claim_json([edit()])})
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    assert result.code == 1
    assert "is a directory in this PR" in shown(s.check().summary)


def test_a_claim_path_that_is_a_symlink_is_unverified(github_hub: Hub, tmp_path: Path) -> None:
    """GitHub answers a symlink to a file with the target's content: an agent could point
    its 'new' claim at an old one."""
    s = scenario(github_hub, None, files={"old/claim.json": claim_json([edit(at=EARLIER)])})
    github_hub.add_commit(s.repo, {".claim.json": Symlink("old/claim.json")},
                          branch="copilot/fix-parser")
    s.pull.head_sha = s.repo.branches["copilot/fix-parser"]
    s.pull.files.append(ChangedFile(".claim.json", "added"))
    s.head = s.repo.commits[s.pull.head_sha]
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required")
    assert "is a symlink (to old/claim.json)" in shown(s.check().summary)


def test_a_body_with_several_claim_blocks_is_unverified(github_hub: Hub, tmp_path: Path) -> None:
    block = "```completion-claim\n" + claim_json([edit(at=EARLIER)]) + "\n```\n"
    s = scenario(github_hub, None, body=block + "\n" + block)
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    assert (result.code, s.check().conclusion) == (1, "action_required")
    assert "holds 2 ```completion-claim blocks" in shown(s.check().summary)


def test_a_single_body_block_counts(github_hub: Hub, tmp_path: Path) -> None:
    block = "```completion-claim\n" + claim_json([edit(at=EARLIER)]) + "\n```\n"
    s = scenario(github_hub, None, body="Fixes the parser.\n\n" + block)
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path)
    assert (result.code, s.check().conclusion) == (0, "success")


# -- item 2: the claim matches the diff -------------------------------------------------------


def test_an_unclaimed_changed_file_is_named_and_annotated(github_hub: Hub, tmp_path: Path) -> None:
    s = verified_scenario(github_hub, files={"app/secret.py": "TOKEN = 1\n"})
    result, _ = act(s, tmp_path)
    check = s.check()
    assert (result.code, check.conclusion) == (1, "action_required")
    [note] = [a for a in check.annotations if a.path == "app/secret.py"]
    assert note.title == "unclaimed_change: app/secret.py"
    unmet = record_of(s)["verdict"]["unmet"]
    assert [u["code"] for u in unmet] == ["unclaimed_change"]
    assert unmet[0]["x-path"] == "app/secret.py"


def test_the_policy_may_exempt_paths(github_hub: Hub, tmp_path: Path) -> None:
    s = verified_scenario(github_hub, files={"docs/notes.md": "hi\n"})
    result, _ = act(s, tmp_path, policy="id: p\nrequires: [test_run]\nunclaimed_ok: ['docs/*']\n")
    assert (result.code, s.check().conclusion) == (0, "success")


def test_a_claimed_file_the_pr_does_not_change_is_named(github_hub: Hub, tmp_path: Path) -> None:
    s = verified_scenario(github_hub, [edit(at=EARLIER), edit("m2", EARLIER, "app/ghost.py")])
    result, _ = act(s, tmp_path)
    assert result.code == 1
    [unmet] = record_of(s)["verdict"]["unmet"]
    assert (unmet["code"], unmet["mutation"]) == ("not_in_diff", "m2")
    assert "'app/ghost.py'" in unmet["message"]


#: A rename as GitHub's comparison of the two trees shows it: app/old.py's bytes at app/new.py.
RENAME = {"base_files": {"app/old.py": "x = 3\n"}, "files": {"app/old.py": None,
                                                              "app/new.py": "x = 3\n"}}


def test_a_rename_counts_for_both_paths(github_hub: Hub, tmp_path: Path) -> None:
    only_new = verified_scenario(github_hub, [edit(at=EARLIER), edit("m2", EARLIER, "app/new.py")],
                                 **RENAME)
    act(only_new, tmp_path)
    unmet = record_of(only_new)["verdict"]["unmet"]
    assert [(u["code"], u.get("x-path")) for u in unmet] == [("unclaimed_change", "app/old.py")]


def test_a_rename_claimed_by_a_glob_is_covered(github_hub: Hub, tmp_path: Path) -> None:
    s = verified_scenario(github_hub, [edit(at=EARLIER, path="app/*")], **RENAME)
    result, _ = act(s, tmp_path)
    assert (result.code, s.check().conclusion) == (0, "success")


@pytest.mark.parametrize(("extra", "complete"), [(297, True), (298, False)])
def test_githubs_comparison_cap_fails_closed_only_when_the_list_is_cut_short(
    github_hub: Hub, tmp_path: Path, extra: int, complete: bool
) -> None:
    """The change is read by SHA (compare), whose one page lists at most 300 files: 299
    (app/parser.py, the claim and 297 more) is the whole change, 300 may not be."""
    # Data files: the reading of the change reads code only, so the cap alone is at issue.
    s = verified_scenario(github_hub, [edit(at=EARLIER, path="*")],
                          files={f"gen/f{i}.txt": "x\n" for i in range(extra)})
    result, _ = act(s, tmp_path)
    record = record_of(s)
    codes = [u["code"] for u in record["verdict"]["unmet"]]
    if complete:
        assert (result.code, s.check().conclusion, codes) == (0, "success", [])
    else:
        # CI evidence does not count either: the unlisted files may edit its workflow
        assert result.code == 1
        assert "incomplete_diff" in codes
        assert "lists 300 files, fewer than the change has (at least 301)" in shown(
            s.check().summary)


# -- item 4: maintainers can overrule ---------------------------------------------------------


def unverified(hub: Hub) -> Scenario:
    """An agent's PR whose claim is unverified: no CI run wrote any test evidence."""
    return scenario(hub, claim_json([edit(at=EARLIER)]))


def review_event(s: Scenario, tmp_path: Path, review: Review, **inputs: str
                 ) -> tuple[ActionResult, RunnerFiles]:
    files = runner_files(tmp_path, pull_request_review_event(s.hub, s.pull, review))
    inputs.setdefault("artifact_name", "junit-*")
    return run_action(runner_env(s.hub, files, "pull_request_review", REPO, **inputs)), files


def digest(s: Scenario, path: str = ".claim.json") -> str:
    """The sha256 of the claim the gate decides (the file at the head)."""
    return hashlib.sha256(s.head.files[path]).hexdigest()


def accept(s: Scenario, reason: str) -> str:
    """The line the check shows a maintainer: bound to the claim decided."""
    return f"/claim-gate accept sha256:{digest(s)[:16]} {reason}"


def maintainer(s: Scenario, level: str = "maintain") -> User:
    who = s.hub.add_user("mona")
    s.hub.set_permission(s.repo, who, level)
    return who


def test_a_maintainers_acceptance_passes_the_check_and_keeps_the_verdict(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = unverified(github_hub)
    review = github_hub.add_review(
        s.pull, maintainer(s), "Checked by hand.\n" + accept(s, "hotfix verified in staging"))
    result, files = review_event(s, tmp_path, review)
    check = s.check()
    assert (result.code, check.conclusion) == (0, "success")
    assert (check.title or "").startswith("accepted by @mona (unverified): hotfix verified")
    record = record_of(s)
    assert record["verdict"]["state"] == "unverified"
    assert record["x-override"] == {
        "accepted_by": "mona", "reason": "hotfix verified in staging",
        "at": review.submitted_at.isoformat().replace("+00:00", "Z"), "review_id": review.id,
        "commit_id": s.head.sha, "permission": "maintain", "accepted_state": "unverified",
        "claim_sha256": digest(s)}
    summary = shown(check.summary)
    assert "Accepted by @mona" in summary
    assert "Completion claim: ⚠️ unverified" in summary
    assert files.outputs()["verdict"] == "unverified"


@pytest.mark.parametrize("who", ["author", "agent", "read-only", "older-sha", "no-reason",
                                 "commented", "refuted-not-allowed"])
def test_acceptances_that_do_not_count(github_hub: Hub, tmp_path: Path, who: str) -> None:
    s = unverified(github_hub)
    reviewer = maintainer(s, "read" if who == "read-only" else "admin")
    state, body, commit = "APPROVED", accept(s, "reason given"), s.head.sha
    inputs = {}
    if who == "author":
        reviewer = s.pull.user
        github_hub.set_permission(s.repo, reviewer, "admin")
    elif who == "agent":
        reviewer = github_hub.add_user("devin-ai-integration[bot]", type="Bot")
        github_hub.set_permission(s.repo, reviewer, "write")
        inputs["agent_authors"] = "copilot-swe-agent[bot],devin-ai-integration[bot]"
    elif who == "older-sha":
        commit = s.head.parents[0]
    elif who == "no-reason":
        body = accept(s, "")
    elif who == "commented":
        state = "COMMENTED"
    review = github_hub.add_review(s.pull, reviewer, body, state=state, commit_id=commit)
    if who == "refuted-not-allowed":
        s.add_run(junit_xml(failed=1))  # a failing required test refutes the claim
    result, _ = review_event(s, tmp_path, review, **inputs)
    check = s.check()
    assert check.conclusion != "success"
    assert result.code != 0
    assert "x-override" not in record_of(s)
    assert f"review {review.id} by @{reviewer.login}" in shown(check.summary)


def test_a_refuted_claim_may_be_accepted_when_the_base_policy_says_so(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = unverified(github_hub)
    s.add_run(junit_xml(failed=1))
    review = github_hub.add_review(s.pull, maintainer(s, "write"), accept(s, "known flake"))
    result, _ = review_event(s, tmp_path, review,
                             policy="id: p\nrequires: [test_run]\noverride: {refuted: true}\n")
    assert (result.code, s.check().conclusion) == (0, "success")
    assert record_of(s)["verdict"]["state"] == "refuted"


def test_a_new_push_voids_an_acceptance(github_hub: Hub, tmp_path: Path) -> None:
    s = unverified(github_hub)
    github_hub.add_review(s.pull, maintainer(s), accept(s, "fine"))
    newer = github_hub.add_commit(s.repo, {"app/parser.py": "x = 4\n"},
                                  branch="copilot/fix-parser")
    s.pull.head_sha, s.head = newer.sha, newer
    result, _ = act(s, tmp_path)
    assert result.code == 1
    assert s.check().conclusion == "action_required"
