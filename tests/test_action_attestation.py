"""The Action's `attestation` output through the GitHub stand-in: a statement for the PR head."""

from __future__ import annotations

import hashlib
import io
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from gate.faces.cli import main
from tests.action_support import T0, RunnerFiles, act, claim_json, edit, junit_xml, scenario
from tests.attestation_support import validate_in_toto
from tests.github_standin.hub import Hub


def _statement(workspace: Path, output: str) -> dict[str, Any]:
    assert output == ".claim-gate/attestation.json"
    return json.loads((workspace / output).read_text("utf-8"))  # type: ignore[no-any-return]


def _deploy_gate(path: Path, commit: str) -> tuple[int, str]:
    err = io.StringIO()
    code = main(["attestation", "verify", str(path), "--commit", commit, "--allow-unsigned",
                 "--max-age", "7200"], clock=lambda: T0 + timedelta(hours=1, minutes=5),
                out=io.StringIO(), err=err)
    return code, err.getvalue()


def _assert_a_refused_statement(files: RunnerFiles, head_sha: str) -> None:
    """The run's statement is valid, FAILED, and a deploy gate refuses it."""
    statement = _statement(files.workspace, files.outputs()["attestation"])
    validate_in_toto(statement)
    assert statement["predicate"]["verificationResult"] == "FAILED"
    code, err = _deploy_gate(files.workspace / ".claim-gate" / "attestation.json", head_sha)
    assert code == 1
    assert "not verified" in err


def test_a_verified_pr_writes_a_passed_statement_for_its_head(
    github_hub: Hub, tmp_path: Path
) -> None:
    claim = claim_json([edit(at=T0 - timedelta(minutes=3))])
    s = scenario(github_hub, claim)
    s.add_run(junit_xml(passed=5))
    result, files = act(s, tmp_path)
    assert result.code == 0
    statement = _statement(files.workspace, files.outputs()["attestation"])
    validate_in_toto(statement)
    record = json.loads((files.workspace / files.outputs()["claim-json"]).read_text("utf-8"))
    commit, claim_file = statement["subject"]
    assert commit["digest"] == {"gitCommit": s.head.sha}
    assert claim_file["digest"] == {"sha256": hashlib.sha256(claim.encode()).hexdigest()}
    predicate = statement["predicate"]
    assert predicate["verificationResult"] == "PASSED"
    assert predicate["resourceUri"].endswith(f"/octo/app@{s.head.sha}")
    verification = record["x-verification"]
    assert predicate["timeVerified"] == verification["decided_at"]
    assert predicate["policy"]["digest"]["sha256"] == verification["policy"]["sha256"]
    junit_inputs = [i for i in verification["inputs"] if not i["name"].startswith("claim ")]
    assert junit_inputs
    assert predicate["inputAttestations"] == [
        {"uri": i["name"], "digest": {"sha256": i["sha256"]}} for i in junit_inputs]
    assert predicate["x-claim-gate-completed-claims"][0]["completed"] == record
    path = files.workspace / files.outputs()["attestation"]
    assert _deploy_gate(path, s.head.sha)[0] == 0
    code, err = _deploy_gate(path, s.repo.commits[s.head.parents[0]].sha)
    assert code == 1
    assert "wrong commit" in err


def test_a_refuted_pr_writes_a_failed_statement(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=4, failed=2), conclusion="failure")
    result, files = act(s, tmp_path)
    assert result.code == 2
    _assert_a_refused_statement(files, s.head.sha)


def test_no_claim_no_statement(github_hub: Hub, tmp_path: Path) -> None:
    s = scenario(github_hub, None)
    s.add_run(junit_xml())
    result, files = act(s, tmp_path)
    assert result.code == 1
    assert files.outputs()["attestation"] == ""
    assert not (files.workspace / ".claim-gate" / "attestation.json").exists()


def test_an_unreadable_claim_beside_a_verified_one_fails_the_statement(
    github_hub: Hub, tmp_path: Path
) -> None:
    good = claim_json([edit(at=T0 - timedelta(minutes=3))])
    s = scenario(github_hub, None, files={"claims/a.json": good, "claims/b.json": "{nope"})
    s.add_run(junit_xml(passed=5))
    _, files = act(s, tmp_path, claim_path="claims/*.json")
    statement = _statement(files.workspace, files.outputs()["attestation"])
    validate_in_toto(statement)
    assert len(statement["subject"]) == 3
    assert statement["predicate"]["verificationResult"] == "FAILED"
    states = [c["state"] for c in statement["predicate"]["x-claim-gate-completed-claims"]]
    assert sorted(states) == ["unreadable", "verified"]


def test_a_pr_of_the_same_head_left_undecided_fails_the_statement(
    github_hub: Hub, tmp_path: Path
) -> None:
    """One run names two PRs of one head: the one into main verifies, the one into a branch
    the agent pushed is not decided. The step says unverified, so the statement is FAILED
    (an observe-mode step exits 0, and a signing step after it would sign a PASSED file)."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    github_hub.add_commit(s.repo, {"x": "1\n"}, branch="elsewhere",
                          parents=[s.repo.branches["main"]], pushed_at=T0 - timedelta(hours=1))
    other = github_hub.add_pull(s.repo, head="copilot/fix-parser", base="elsewhere")
    s.add_run(junit_xml(passed=5), pull_requests=[s.pull, other])
    _, files = act(s, tmp_path, event="workflow_run", mode="observe")
    assert files.outputs()["verdict"] == "unverified"
    _assert_a_refused_statement(files, s.head.sha)
