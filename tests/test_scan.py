"""`claim-gate scan` against the GitHub stand-in: the Action's verdict and check, posting nothing.

The same scenario is scanned and then run through the Action's entry point; what scan
prints must be exactly the check-run request the Action sent, and the stand-in's request
log must show that scan only read.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.claim.errors import CouldNotDecide, InvalidInput, UsageError
from gate.evidence.github.api import RetryPolicy
from gate.faces.action.input_table import ACTION_INPUTS, SCAN_INPUTS, dest
from gate.faces.action.inputs import read_inputs
from gate.faces.cli import build_parser, main
from gate.faces.scan import run_scan, scan_inputs
from tests.action_support import (
    FAST_RETRY,
    REPO,
    ROOT,
    T0,
    Scenario,
    claim_json,
    edit,
    junit_xml,
    run_action,
    runner_env,
    runner_files,
    scenario,
)
from tests.github_standin import DeploymentStatusSpec
from tests.github_standin.events import pull_request_event
from tests.github_standin.hub import Hub
from tests.github_standin.plugin import GITHUB_TOKEN, HubFactory

NOW = T0 + timedelta(hours=1)
WRITES = {"POST", "PATCH", "PUT", "DELETE"}


@dataclass
class Scanned:
    code: int
    out: str
    err: str
    requests: list[Any]  # what the stand-in received during the scan

    def json(self) -> Any:
        return json.loads(self.out)


def scan(hub: Hub, *argv: str, env: Mapping[str, str] | None = None,
         retry: RetryPolicy = FAST_RETRY) -> Scanned:
    """`claim-gate scan ...` as the CLI runs it, with the environment and retries given."""
    env = {"GH_TOKEN": GITHUB_TOKEN, "GITHUB_API_URL": hub.api_url} if env is None else env
    out, err = io.StringIO(), io.StringIO()
    before = len(hub.requests)
    code = main_with(argv, out, err, env, retry)
    return Scanned(code, out.getvalue(), err.getvalue(), hub.requests[before:])


def main_with(argv: tuple[str, ...], out: io.StringIO, err: io.StringIO,
              env: Mapping[str, str], retry: RetryPolicy) -> int:
    """cli.main's error handling around run_scan with an injected env and retry policy."""
    try:
        args = build_parser().parse_args(["scan", *argv])
        return run_scan(args, clock=lambda: NOW, out=out, err=err, probe_io=None, env=env,
                        retry=retry)
    except (InvalidInput, UsageError) as exc:
        err.write(f"claim-gate: invalid input: {exc}\n")
        return 3
    except CouldNotDecide as exc:
        err.write(f"claim-gate: could not decide: {exc}\n")
        return 4


def assert_read_only(scanned: Scanned) -> None:
    assert scanned.requests, "the scan read nothing"
    writes = [f"{r.method} {r.path}" for r in scanned.requests if r.method in WRITES]
    assert not writes, f"scan wrote to GitHub: {writes}"


def _extraction_times_blanked(value: Any) -> Any:
    """A JUnit file without a suite timestamp is dated by its mtime once extracted on this
    machine (the record says so: `time_source: mtime`); two runs extract at two instants.
    Everything else must be byte for byte what the Action sent."""
    if isinstance(value, dict):
        blank = value.get("time_source") == "mtime"
        return {k: "<extracted>" if blank and k == "at" else _extraction_times_blanked(v)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_extraction_times_blanked(v) for v in value]
    return value


def comparable(payload: dict[str, Any]) -> dict[str, Any]:
    """A check-run request with the record in `output.text` parsed, extraction times blank."""
    output = dict(payload["output"])
    if output.get("text", "").startswith("{"):
        output["text"] = json.loads(output["text"])
    return _extraction_times_blanked({**payload, "output": output})  # type: ignore[no-any-return]


def verified(hub: Hub) -> Scenario:
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=5))
    return s


def refuted(hub: Hub) -> Scenario:
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=4, failed=2), conclusion="failure")
    return s


def action_requests(hub: Hub, s: Scenario, tmp_path: Any) -> tuple[int, dict[str, str], list[Any]]:
    """Run the Action on the scenario (no run id, so no details_url: a scan has no run) and
    return its exit code, outputs and the check-run requests it sent."""
    files = runner_files(tmp_path, pull_request_event(hub, s.pull, action="synchronize"))
    env = runner_env(hub, files, "pull_request", REPO, artifact_name="junit-*")
    del env["GITHUB_RUN_ID"]
    before = len(hub.requests)
    result = run_action(env, now=NOW)
    sent = [r for r in hub.requests[before:] if r.method in WRITES]
    outputs = files.outputs()
    if outputs.get("claim-json"):  # relative to the workspace, as later steps see it
        outputs["claim-json"] = str(files.workspace / outputs["claim-json"])
    return result.code, outputs, sent


@pytest.mark.parametrize(("build", "verdict", "code"),
                         [(verified, "verified", 0), (refuted, "refuted", 2)])
def test_scan_prints_the_check_run_the_action_posts(
    github_hub: Hub, tmp_path: Any, build: Any, verdict: str, code: int
) -> None:
    s = build(github_hub)
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*",
                   "--format", "json")
    assert_read_only(scanned)
    assert scanned.code == code, scanned.err
    pull_reads = [r for r in scanned.requests
                  if r.endpoint == "GET /repos/{owner}/{repo}/pulls/{pull_number}"]
    # Read as the PR is now (the Action's re-read of an event's PR is moot), and once more
    # after observing: a head that moved during the scan supersedes what it would print.
    assert len(pull_reads) == 2
    printed = scanned.json()
    assert printed["verdict"] == verdict
    assert printed["posted"] is False
    assert not github_hub.check_runs(name="completion-claim"), "scan created a check run"

    action_code, outputs, sent = action_requests(github_hub, s, tmp_path)
    assert action_code == code
    assert outputs["verdict"] == verdict
    [create, *updates] = sent
    assert (create.method, create.endpoint) == ("POST", "POST /repos/{owner}/{repo}/check-runs")
    [check] = printed["check_runs"]
    assert comparable(check["create"]) == comparable(json.loads(create.body))
    assert [comparable(u) for u in check["updates"]] == [
        comparable(json.loads(u.body)) for u in updates]
    action_record = json.loads(Path(outputs["claim-json"]).read_text("utf-8"))
    assert _extraction_times_blanked(printed["completed_claims"]) == [
        _extraction_times_blanked(action_record)]


def test_many_annotations_are_the_same_create_and_updates(
    github_hub: Hub, tmp_path: Any
) -> None:
    """Past 50 annotations the Action PATCHes the rest; scan prints those bodies too."""
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=1, failed=60), conclusion="failure")
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*",
                   "--format", "json")
    assert_read_only(scanned)
    _, _, sent = action_requests(github_hub, s, tmp_path)
    [check] = scanned.json()["check_runs"]
    assert len(sent) == 2
    assert [comparable(c) for c in [check["create"], *check["updates"]]] == [
        comparable(json.loads(r.body)) for r in sent]


def test_text_and_markdown_name_the_verdict_and_the_check(github_hub: Hub) -> None:
    s = refuted(github_hub)
    text = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*")
    assert text.code == 2
    first, second = text.out.splitlines()[:2]
    assert first == f"{REPO}#{s.pull.number} at {s.head.sha[:12]}: refuted (exit 2)"
    assert "posted nothing" in second
    assert "completion-claim: failure" in text.out
    assert "tests/test_app.py:10 failure" in text.out
    markdown = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*",
                    "--format", "markdown")
    assert markdown.out.startswith(f"# claim-gate scan of {REPO}#{s.pull.number}\n")
    assert "check run `completion-claim`: **failure**" in markdown.out
    assert "## Completion claim:" in markdown.out
    assert "Nothing was posted" in markdown.out


@pytest.mark.parametrize("output", ["text", "markdown", "json"])
def test_a_claim_cannot_rewrite_the_terminal(github_hub: Hub, output: str) -> None:
    """An agent's claim that moves the cursor up and prints "verified" over the verdict."""
    forged = "\x1b[1A\x1b[2K\rverified (exit 0)\x9b2K\u202e"
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))],
                                        claimed_outcome=forged))
    s.add_run(junit_xml(passed=4, failed=1), conclusion="failure")
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*",
                   "--format", output)
    assert scanned.code == 2
    # The summary's text is the agent's: its control characters are dropped or shown escaped
    # (issue 10 class 8), so the forged words stay inside the line they came in on.
    assert "[1A" in scanned.out
    assert not [line for line in scanned.out.splitlines() if line.startswith("verified")]
    for raw in ("\x1b", "\r", "\x9b", "\u202e"):
        assert raw not in scanned.out
    if output == "json":
        record = scanned.json()["completed_claims"][0]
        assert record["claimed_outcome"] == forged, "JSON keeps the claim's exact text"


def test_the_command_line_entry_point_runs_scan(
    github_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = verified(github_hub)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GH_TOKEN", GITHUB_TOKEN)
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", f"{REPO}#{s.pull.number}", "--api-url", github_hub.api_url,
                 "--artifact-name", "junit-*"], clock=lambda: NOW, out=out, err=err)
    assert code == 0, err.getvalue()
    assert ": verified (exit 0)" in out.getvalue()
    assert "live probes are off (--probe" in err.getvalue()
    assert GITHUB_TOKEN not in out.getvalue() + err.getvalue()


def test_observe_mode_shows_a_neutral_check_but_exits_with_the_verdict(github_hub: Hub) -> None:
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--mode", "observe",
                   "--format", "json")
    assert scanned.code == 1
    assert scanned.json()["check_runs"][0]["create"]["conclusion"] == "neutral"


def test_a_pr_outside_the_agent_globs_is_not_required(github_hub: Hub) -> None:
    s = verified(github_hub)
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--require-claim", "agents",
                   "--agent-authors", "devin-ai-integration[bot]", "--format", "json")
    assert scanned.code == 0
    assert scanned.json()["verdict"] == "not-required"


def test_github_enterprise_server_from_the_pr_url(make_github_hub: HubFactory) -> None:
    hub = make_github_hub(base_path="/api/v3")
    s = verified(hub)
    url = f"{hub.web_url}/{REPO}/pull/{s.pull.number}/files"
    scanned = scan(hub, url, "--artifact-name", "junit-*", env={"GITHUB_TOKEN": GITHUB_TOKEN})
    assert scanned.code == 0, scanned.err
    assert all(r.path.startswith("/api/v3/") for r in scanned.requests)
    assert_read_only(scanned)


@pytest.mark.parametrize("probe", [False, True])
def test_probes_reach_the_deployed_service_only_with_probe(github_hub: Hub, probe: bool) -> None:
    from tests.probe_support import Reply, Seen, serve

    deploy = {"id": "d1", "kind": "deploy", "target": "production", "at": "2026-03-02T08:58:00Z"}
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3)), deploy]))
    s.add_run(junit_xml())

    def app(seen: Seen, body: bytes) -> Reply:
        return Reply.json(200, {"sha": s.head.sha}) if seen.path == "/version" else Reply(404)

    with serve(app) as server:
        github_hub.add_deployment(
            s.repo, sha=s.head.sha, environment="production", created_at=T0,
            statuses=[DeploymentStatusSpec("success", created_at=T0 + timedelta(minutes=1),
                                           environment_url=server.url)])
        policy = (
            # the deployment status counts only from a named creator (issue 10 class 4)
            f"id: live\nrequires: [test_run, endpoint_health]\n"
            f"deployment_creators: [{s.repo.owner.login}]\nprobes:\n"
            f"  allowed_hosts: ['127.0.0.1:{server.port}']\n  allow_http: true\n"
            "  endpoint_health:\n    - environment: production\n      path: /version\n"
            "      status: 200\n      assert:\n        - json_pointer: /sha\n"
            "          equals: '{sha}'\n"
        )
        scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*",
                       "--policy", policy, *(["--probe"] if probe else []))
        assert [seen.path for seen in server.seen] == (["/version"] if probe else [])
    assert scanned.code == (0 if probe else 1), scanned.out
    assert ("live probes are off" in scanned.err) is not probe
    assert_read_only(scanned)


# -- bad input -------------------------------------------------------------------------------

def test_a_pr_that_does_not_exist_is_invalid_input_naming_it(github_hub: Hub) -> None:
    verified(github_hub)
    scanned = scan(github_hub, f"{REPO}#99")
    assert scanned.code == 3
    assert f"{REPO}#99: no such pull request (GitHub answered 404)" in scanned.err
    assert scanned.out == ""


@pytest.mark.parametrize("reference", [
    "octo/app", "octo/app#", "octo/app#0", "octo/app#twelve", "octo#12", "octo/ap p#1", "",
    "https://github.com/octo/app/issues/12", "ftp://github.com/octo/app/pull/12",
    "https://user@github.com/octo/app/pull/12", "octo/app/pull/12", "octo/app#1 #2",
])
def test_a_malformed_reference_is_invalid_input_before_any_request(
    github_hub: Hub, reference: str
) -> None:
    scanned = scan(github_hub, reference)
    assert scanned.code == 3
    assert "claim-gate: invalid input:" in scanned.err
    assert "OWNER/REPO#N" in scanned.err
    assert scanned.requests == []


def test_an_api_url_for_another_server_than_the_pr_url_is_refused(github_hub: Hub) -> None:
    scanned = scan(github_hub, "https://github.com/octo/app/pull/1", "--api-url",
                   github_hub.api_url)
    assert scanned.code == 3
    assert "is not the API of the server" in scanned.err
    assert scanned.requests == []


def test_a_refused_token_is_invalid_input_and_never_printed(github_hub: Hub) -> None:
    s = verified(github_hub)
    secret = "ghp_not_a_token_github_knows_0123456789"
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}",
                   env={"GH_TOKEN": secret, "GITHUB_API_URL": github_hub.api_url})
    assert scanned.code == 3
    assert "GitHub refused the token (401" in scanned.err
    assert "set GH_TOKEN to a valid token" in scanned.err
    assert secret not in scanned.out + scanned.err


def test_a_token_without_actions_read_could_not_decide_naming_the_permission(
    github_hub: Hub,
) -> None:
    s = verified(github_hub)
    github_hub.add_token("ghs_no_actions", permissions={
        "contents": "read", "metadata": "read", "pull_requests": "read", "checks": "read",
        "statuses": "read", "deployments": "read", "actions": "none"})
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*",
                   "--format", "json",
                   env={"GH_TOKEN": "ghs_no_actions", "GITHUB_API_URL": github_hub.api_url})
    assert scanned.code == 4, scanned.err
    printed = scanned.json()
    assert printed["verdict"] == "could-not-decide"
    create = printed["check_runs"][0]["create"]
    assert create["conclusion"] == "failure"
    # the reason is shown as text (its backticks escaped: issue 10 class 8), naming the permission
    assert "the token needs \\`actions: read\\` on octo/app" in create["output"]["summary"]
    assert_read_only(scanned)


def test_without_a_token_scan_reads_anonymously_and_says_so(github_hub: Hub) -> None:
    """The stand-in, like a GHES or a private repository, answers 401 to no token."""
    s = verified(github_hub)
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}",
                   env={"GITHUB_API_URL": github_hub.api_url})
    assert "no GH_TOKEN or GITHUB_TOKEN: reading anonymously" in scanned.err
    assert "60 requests an hour" in scanned.err
    assert scanned.requests
    assert all("authorization" not in {k.lower() for k in r.headers}
               for r in scanned.requests)
    assert scanned.code == 3
    assert "GitHub refused no GH_TOKEN or GITHUB_TOKEN (401" in scanned.err


@pytest.mark.parametrize("endpoint", ["*", "GET /repos/{owner}/{repo}/actions/runs"])
def test_github_failing_is_could_not_decide_never_success(github_hub: Hub, endpoint: str) -> None:
    s = verified(github_hub)
    github_hub.fail(endpoint, times=50, status=502)
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}", "--artifact-name", "junit-*")
    assert scanned.code == 4, scanned.out + scanned.err
    assert "502" in scanned.out + scanned.err
    assert ": verified" not in scanned.out


def test_a_rate_limit_that_outlasts_the_retries_is_could_not_decide(github_hub: Hub) -> None:
    s = verified(github_hub)
    github_hub.rate_limit("GET /repos/{owner}/{repo}/pulls/{pull_number}", times=50,
                          primary=True, retry_after=0)
    scanned = scan(github_hub, f"{REPO}#{s.pull.number}",
                   retry=RetryPolicy(total=1, backoff_factor=0.01, timeout_s=5,
                                     max_rate_limit_wait_s=0.01))
    assert scanned.code == 4, scanned.err
    assert "could not decide" in scanned.err
    # Either GitHub's last answer or the retries' account of it ("too many 403 responses").
    assert "403" in scanned.err
    assert scanned.out == ""


def test_a_bad_flag_value_is_invalid_input_naming_the_flag(github_hub: Hub) -> None:
    scanned = scan(github_hub, f"{REPO}#1", "--require-claim", "agents")
    assert scanned.code == 3
    assert "--require-claim" in scanned.err
    assert scanned.requests == []


# -- the flags are the Action's inputs ------------------------------------------------------

def test_every_action_input_is_described_once_with_action_ymls_default() -> None:
    spec = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["inputs"]
    table = {i.name: i for i in ACTION_INPUTS}
    assert list(table) == list(spec), "the input table and action.yml list different inputs"
    for name, meta in spec.items():
        assert table[name].default == str(meta.get("default", "")), name


def scan_help() -> str:
    out = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stdout(out):
        main(["scan", "--help"])
    return out.getvalue()


def test_every_read_only_input_is_a_flag_with_the_same_default() -> None:
    args = build_parser().parse_args(["scan", "octo/app#1"])
    help_text = scan_help()
    for spec in ACTION_INPUTS:
        flag = f"--{spec.name}"
        if spec.not_for_scan:
            assert f"{flag} " not in help_text, f"{flag}: {spec.not_for_scan}"
            continue
        value = getattr(args, dest(spec))
        assert ("\n".join(value) if spec.several else value) == spec.default, flag
        assert flag in help_text
    assert {i.name for i in SCAN_INPUTS} >= {
        "artifact-name", "claim-path", "policy", "trusted-verifiers", "check-name",
        "require-claim", "agent-authors", "api-url", "mode", "agent-branches"}


def test_the_flags_defaults_read_as_the_actions_defaults() -> None:
    """No flags given and no inputs given mean the same ActionInputs."""
    args = build_parser().parse_args(["scan", "octo/app#1"])
    from_flags = scan_inputs(args, "t", "https://api.github.com")
    spec = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["inputs"]
    env = {f"INPUT_{n.upper()}": str(m.get("default", "")) for n, m in spec.items()}
    env["INPUT_GITHUB-TOKEN"] = "t"
    from_action = read_inputs(env)
    assert from_flags == from_action


def test_repeated_and_comma_separated_flags_are_one_list() -> None:
    args = build_parser().parse_args([
        "scan", "octo/app#1", "--artifact-name", "junit-*,coverage", "--artifact-name", "e2e",
        "--trusted-verifier", "ci/*", "--trusted-verifiers", "lab/*"])
    inputs = scan_inputs(args, "t", "https://api.github.com")
    assert inputs.artifact_names == ("junit-*", "coverage", "e2e")
    assert inputs.trusted_verifiers == ("ci/*", "lab/*")


def test_docs_show_the_real_help(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    doc = (ROOT / "docs" / "scan.md").read_text("utf-8")
    assert scan_help() in doc, "docs/scan.md's help block is not `claim-gate scan --help`"

