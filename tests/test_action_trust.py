"""The trust machinery of the action beyond the attack table: the App token, the policy
sections, the arrival's fallback, the record's verification summary, refuted/warn modes."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gate.claim.errors import InvalidInput
from gate.claim.policy_parse import parse_policy_text
from gate.claim.schema import validator
from gate.claim.trust_policy import DEFAULT_CHAIN, RemovedTests, parse_trust_policy
from tests.action_support import (
    REPO,
    T0,
    Scenario,
    act,
    add_baseline,
    junit_xml,
    run_action,
    runner_env,
    scenario,
)
from tests.action_support import runner_files as make_runner_files
from tests.github_standin.events import merge_group_event, pull_request_event
from tests.github_standin.hub import Hub
from tests.test_attacks import CLAIM, _base_run, _head_without


def _key_pair() -> tuple[str, bytes]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, public


def test_the_gate_posts_as_its_own_app(github_hub: Hub, tmp_path: Path) -> None:
    private, public = _key_pair()
    app = github_hub.add_app("claim-gate-app", public_key_pem=public)
    s = scenario(github_hub, CLAIM)
    github_hub.add_installation(app, s.repo.owner)
    s.add_run(junit_xml(passed=5))
    result, _ = act(s, tmp_path, app_id=str(app.id), app_private_key=private,
                    github_token="")
    [check] = github_hub.check_runs(head_sha=s.head.sha, name="completion-claim")
    assert check.app.slug == "claim-gate-app"
    assert check.conclusion == "success"
    assert result.code == 0
    assert github_hub.calls["POST /app/installations/{installation_id}/access_tokens"] == 1


def test_a_key_that_is_not_the_apps_posts_nothing(github_hub: Hub, tmp_path: Path) -> None:
    _, public = _key_pair()
    wrong, _ = _key_pair()
    app = github_hub.add_app("claim-gate-app", public_key_pem=public)
    s = scenario(github_hub, CLAIM)
    github_hub.add_installation(app, s.repo.owner)
    result, _ = act(s, tmp_path, app_id=str(app.id), app_private_key=wrong)
    assert github_hub.check_runs(head_sha=s.head.sha) == []
    assert result.code == 4
    assert f"GitHub App {app.id} could not get an installation token" in result.stdout


@pytest.mark.parametrize(("inputs", "words"), [
    ({"app_id": "12"}, "`app-id` and `app-private-key` go together"),
    ({"app_private_key": "-----BEGIN PRIVATE KEY-----"}, "go together"),
    ({"app_id": "twelve", "app_private_key": "-----BEGIN PRIVATE KEY-----"},
     "is not a GitHub App id"),
    ({"app_id": "12", "app_private_key": "not a key"}, "is not a PEM private key"),
    ({"app_id": "12", "app_private_key": "-----BEGIN PRIVATE KEY-----\nabc\n"
      "-----END PRIVATE KEY-----"}, "the key cannot sign a token"),
])
def test_app_inputs_are_checked(
    github_hub: Hub, tmp_path: Path, inputs: dict[str, str], words: str
) -> None:
    s = scenario(github_hub, CLAIM)
    files = make_runner_files(tmp_path, pull_request_event(github_hub, s.pull))
    result = run_action(runner_env(github_hub, files, "pull_request", REPO, **inputs))
    assert result.code == 3
    assert words in result.stdout


def test_without_an_arrival_entry_the_claim_is_unverified_never_the_first_run(
    github_hub: Hub, tmp_path: Path
) -> None:
    """Was: the arrival fell back to the earliest check suite (an "upper bound"). Issue 10
    class 5: that fallback let a force-push back to an old green SHA reuse its old runs, so
    an unknown arrival now keeps the claim unverified, naming it."""
    repo = github_hub.add_repo(REPO, files={"app/parser.py": "x = 1\n"},
                               pushed_at=T0 - timedelta(days=1))
    add_baseline(github_hub, repo)
    head = github_hub.add_commit(repo, {"app/parser.py": "x = 2\n", ".claim.json": CLAIM},
                                 branch="copilot/fix-parser", push=False)
    github_hub.push(repo, "copilot/fix-parser", head.sha, at=T0 - timedelta(minutes=1),
                    activity_type="branch_deletion")  # an entry that is not an arrival
    pull = github_hub.add_pull(repo, head="copilot/fix-parser")
    s = Scenario(github_hub, repo, head, pull, [])
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=5))
    _, files = act(s, tmp_path)
    record = json.loads(files.claim_json().read_text("utf-8"))
    arrival = record["x-verification"]["head_arrival"]
    assert arrival["at"] is None
    assert arrival["upper_bound"] is False
    assert "activity has no push of it" in arrival["source"]
    assert s.check().conclusion == "action_required"
    assert "`arrival_unknown`" in (s.check().summary or "")


def test_the_record_is_a_verification_summary(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM)
    xml = junit_xml(passed=5)
    s.add_run(xml)
    _, files = act(s, tmp_path, policy="id: owners\nrequires: [test_run]\n")
    record = json.loads(files.claim_json().read_text("utf-8"))
    summary = record["x-verification"]
    assert summary["resource"] == {
        "repository": REPO, "pull_request": s.pull.number, "head_sha": s.head.sha,
        "head_ref": "copilot/fix-parser", "head_repository": REPO, "base_ref": "main",
    }
    assert summary["decided_at"] == "2026-03-02T10:00:00Z"
    assert summary["verifier"]["id"].startswith("claim-gate/")
    assert summary["policy"]["id"] == "owners"
    assert summary["policy"]["sha256"] == record["policy"]["x-sha256"]
    digests = {entry["name"]: entry["sha256"] for entry in summary["inputs"]}
    claim_digest = hashlib.sha256(CLAIM.encode("utf-8")).hexdigest()
    assert digests[f"claim .claim.json@{s.head.sha[:12]}"] == claim_digest
    junit_digest = hashlib.sha256(xml.encode("utf-8")).hexdigest()
    assert junit_digest in digests.values()
    artifact = s.runs[0].artifacts[0]
    assert digests[f"artifact junit-results of run {s.runs[0].id} (zip)"] == hashlib.sha256(
        artifact.data).hexdigest()
    assert summary["head_arrival"]["commit_dates_used"] is False


@pytest.mark.parametrize(("mode", "conclusion", "verdict"), [
    ("refuted", "failure", "refuted"),
    ("warn", "success", "verified"),
    ("unverified", "action_required", "unverified"),
])
def test_the_owner_chooses_what_a_removed_test_means(
    github_hub: Hub, tmp_path: Path, mode: str, conclusion: str, verdict: str
) -> None:
    s = scenario(github_hub, CLAIM)
    _base_run(s, junit_xml(passed=3, failed=1))
    s.add_run(_head_without("test_case_failing_0"))
    _, files = act(s, tmp_path, policy=f"id: owners\nrequires: [test_run]\nremoved_tests: {mode}\n")
    check = s.check()
    assert check.conclusion == conclusion
    assert files.outputs()["verdict"] == verdict
    assert "test_case_failing_0 (failed on base, missing on head)" in (check.summary or "")
    [note] = [a for a in check.annotations if a.title == "tests removed or skipped"]
    assert note.annotation_level == ("warning" if mode == "warn" else "failure")


def test_a_trusted_workflows_list_excludes_other_workflows(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM)
    s.add_run(junit_xml(passed=5), path=".github/workflows/agent-tests.yml")
    act(s, tmp_path, policy="id: owners\nrequires: [test_run]\n"
        "trusted_workflows: [.github/workflows/ci.yml]\n")
    check = s.check()
    assert check.conclusion == "action_required"
    assert "untrusted_workflow" in (check.summary or "")
    assert "not among the workflows the policy trusts" in (check.summary or "")


def test_the_owner_may_accept_evidence_from_prs_that_edit_the_chain(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM, files={"pyproject.toml": "[tool.pytest.ini_options]\n"})
    s.add_run(junit_xml(passed=5))
    act(s, tmp_path, policy="id: owners\nrequires: [test_run]\n"
        "evidence_chain: {allow_pr_changes: true}\nunclaimed_ok: [pyproject.toml]\n")
    assert s.check().conclusion == "success"


def test_the_trust_sections_parse_with_defaults() -> None:
    policy = parse_trust_policy({}, "p")
    assert policy.chain == DEFAULT_CHAIN
    assert policy.removed_tests is RemovedTests.UNVERIFIED
    assert policy.trusted_workflows is None
    assert policy.deployment_creators == ()
    custom = parse_trust_policy({
        "evidence_chain": {"paths": ["ci/**"], "allow_pr_changes": True},
        "trusted_workflows": [".github/workflows/ci.yml"],
        "removed_tests": "warn", "deployment_creators": ["deploy-bot[bot]"],
    }, "p")
    assert custom.chain == ("ci/**",)
    assert custom.allow_pr_changes is True
    assert custom.trusted_workflows == (".github/workflows/ci.yml",)
    assert custom.removed_tests is RemovedTests.WARN
    assert custom.deployment_creators == ("deploy-bot[bot]",)


@pytest.mark.parametrize(("text", "words"), [
    ("removed_tests: maybe", "/removed_tests: 'maybe' is not one of unverified, refuted, warn"),
    ("evidence_chain: [x]", "/evidence_chain must be a mapping"),
    ("evidence_chain: {path: [x]}", "unknown key path"),
    ("evidence_chain: {allow_pr_changes: yes please}", "must be true or false"),
    ("trusted_workflows: ci.yml", "/trusted_workflows must be a list"),
    ("deployment_creators: [1]", "/deployment_creators must be a list of non-empty strings"),
])
def test_bad_trust_sections_are_refused_when_the_policy_loads(text: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_policy_text(f"id: p\n{text}\n", "policy.yml")
    assert words in str(caught.value)
    assert "policy.yml" in str(caught.value)


def _fork_scenario(hub: Hub, pushed_minutes: int) -> Scenario:
    upstream = hub.add_repo(REPO, files={"app/parser.py": "x = 1\n"},
                            pushed_at=T0 - timedelta(days=1))
    fork = hub.add_repo("agent/app", fork_of=upstream)
    head = hub.add_commit(fork, {"app/parser.py": "x = 2\n", ".claim.json": CLAIM},
                          branch="fix-parser", pushed_at=T0 + timedelta(minutes=pushed_minutes))
    pull = hub.add_pull(upstream, head="fix-parser", head_repo=fork,
                        user=hub.add_user("agent"))
    add_baseline(hub, upstream)
    return Scenario(hub, upstream, head, pull, [])


@pytest.mark.parametrize(("pushed_minutes", "conclusion"), [(-1, "success"),
                                                            (30, "action_required")])
def test_a_fork_prs_arrival_is_read_from_the_fork(
    github_hub: Hub, tmp_path: Path, pushed_minutes: int, conclusion: str
) -> None:
    s = _fork_scenario(github_hub, pushed_minutes)
    s.add_run(junit_xml(passed=5), started=timedelta(minutes=5), head_repo=s.pull.head_repo)
    _, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == conclusion, check.summary
    record = json.loads(files.claim_json().read_text("utf-8"))
    arrival = record["x-verification"]["head_arrival"]
    assert "in agent/app's activity" in arrival["source"]
    assert arrival["upper_bound"] is False


def test_workspace_junit_from_a_workflow_the_pr_edits_does_not_count(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM, files={".github/workflows/claim.yml": "on: pull_request\n"})
    payload = pull_request_event(github_hub, s.pull, action="synchronize")
    files = make_runner_files(tmp_path, payload)
    (files.workspace / "junit.xml").write_text(junit_xml(passed=5), encoding="utf-8")
    env = runner_env(github_hub, files, "pull_request", REPO, junit="junit.xml")
    env["GITHUB_WORKFLOW_REF"] = f"{REPO}/.github/workflows/claim.yml@refs/pull/1/merge"
    result = run_action(env)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "the PR itself edits .github/workflows/claim.yml" in " ".join(
        (check.summary or "").split())
    assert result.code == 1


def test_workspace_junit_from_an_unchanged_workflow_counts(
    github_hub: Hub, tmp_path: Path
) -> None:
    s = scenario(github_hub, CLAIM)
    payload = pull_request_event(github_hub, s.pull, action="synchronize")
    files = make_runner_files(tmp_path, payload)
    (files.workspace / "junit.xml").write_text(junit_xml(passed=5), encoding="utf-8")
    written = (T0 + timedelta(minutes=10)).timestamp()
    os.utime(files.workspace / "junit.xml", (written, written))  # the file's time is its mtime
    env = runner_env(github_hub, files, "pull_request", REPO, junit="junit.xml")
    env["GITHUB_WORKFLOW_REF"] = f"{REPO}/.github/workflows/claim.yml@refs/pull/1/merge"
    result = run_action(env)
    assert s.check().conclusion == "success", s.check().summary
    record = json.loads(files.claim_json().read_text("utf-8"))
    provenance = record["evidence"][0]["x-provenance"]
    assert provenance["workflow_path"] == ".github/workflows/claim.yml"
    assert result.code == 0
    assert validator("#/$defs/completed").is_valid(record)


def test_unreadable_activity_is_unverified_and_unreadable_statuses_are_noted(
    github_hub: Hub, tmp_path: Path
) -> None:
    """A token without those read permissions. Was: the arrival fell back to its upper
    bound and the claim passed; issue 10 class 5: an arrival that cannot be read keeps the
    claim unverified. The informational listing of other checks is still only noted."""
    s = scenario(github_hub, CLAIM)
    s.add_run(junit_xml(passed=5))
    github_hub.fail("GET /repos/{owner}/{repo}/activity", times=10, status=404)
    github_hub.fail("GET /repos/{owner}/{repo}/commits/{ref}/statuses", times=10, status=404)
    _, files = act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required", check.summary
    record = json.loads(files.claim_json().read_text("utf-8"))
    arrival = record["x-verification"]["head_arrival"]
    assert arrival["at"] is None
    assert "activity could not be read" in arrival["source"]
    assert "could not be listed" in (check.summary or "")
    assert "`arrival_unknown`" in (check.summary or "")


def test_a_renamed_test_shows_as_removed_on_purpose(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, CLAIM)
    _base_run(s, junit_xml(passed=2, name_prefix="test_old"), conclusion="success")
    s.add_run(junit_xml(passed=2, name_prefix="test_new"))
    act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "tests.test_app::test_old_0 (passed on base, missing on head)" in (check.summary or "")


def test_too_many_tests_to_compare_cannot_be_verified(
    github_hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gate.evidence.github.gathering

    monkeypatch.setattr(gate.evidence.github.gathering, "MAX_COMPARED_TESTS", 2)
    s = scenario(github_hub, CLAIM)
    _base_run(s, junit_xml(passed=3), conclusion="success")
    s.add_run(junit_xml(passed=3))
    act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "more than 2 tests in one file" in (check.summary or "")


def test_without_a_base_run_removed_tests_cannot_be_listed_so_it_is_unverified(
    github_hub: Hub, tmp_path: Path
) -> None:
    """Was `success` with a note; issue 10 class 5: no comparable baseline is unverified."""
    s = scenario(github_hub, CLAIM, baseline=())
    s.add_run(junit_xml(passed=3))
    act(s, tmp_path)
    check = s.check()
    assert check.conclusion == "action_required"
    assert "removed tests cannot be listed" in (check.summary or "")
    assert "`no_baseline`" in (check.summary or "")


@pytest.mark.parametrize(("pr_check_by_app", "conclusion"), [(True, "success"),
                                                             (False, "failure")])
def test_the_merge_queue_with_the_gates_own_app(
    github_hub: Hub, tmp_path: Path, pr_check_by_app: bool, conclusion: str
) -> None:
    """Pinned to the App: a PR check posted with any workflow's GITHUB_TOKEN does not pass
    the group, one posted by the App does."""
    private, public = _key_pair()
    app = github_hub.add_app("claim-gate-app", public_key_pem=public)
    s = scenario(github_hub, CLAIM)
    github_hub.add_installation(app, s.repo.owner)
    s.add_run(junit_xml(passed=5))
    (tmp_path / "pr").mkdir()
    with_app = {"app_id": str(app.id), "app_private_key": private}
    act(s, tmp_path / "pr", **(with_app if pr_check_by_app else {}))
    group = github_hub.add_merge_group(s.repo, [s.pull], pushed_at=T0 + timedelta(minutes=50))
    (tmp_path / "group").mkdir()
    files = make_runner_files(tmp_path / "group", merge_group_event(github_hub, group))
    run_action(runner_env(github_hub, files, "merge_group", REPO, **with_app))
    [check] = github_hub.check_runs(head_sha=group.head_sha, name="completion-claim")
    assert check.app.slug == "claim-gate-app"
    assert check.conclusion == conclusion, check.summary
    if not pr_check_by_app:
        assert "has no 'completion-claim' check from claim-gate-app" in (check.summary or "")
        assert "from github-actions is ignored" in (check.summary or "")
