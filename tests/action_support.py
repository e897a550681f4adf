"""Running the action as the runner does: inputs from action.yml, files, the event payload."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gate.evidence.github.api import RetryPolicy
from gate.evidence.github.reads import READ_WORKERS
from gate.faces.action.main import main
from tests.github_standin import ArtifactSpec, zip_bytes
from tests.github_standin.events import pull_request_event, workflow_run_event
from tests.github_standin.hub import Hub
from tests.github_standin.model import App, CheckRun, Commit, Pull, Repo, Symlink, WorkflowRun
from tests.github_standin.plugin import GITHUB_TOKEN

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
FAST_RETRY = RetryPolicy(total=2, backoff_factor=0.01, timeout_s=5, max_rate_limit_wait_s=5)


def action_inputs(**overrides: str) -> dict[str, str]:
    """INPUT_<NAME> for every input of action.yml, defaults applied, hyphens kept."""
    spec = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))
    values = {}
    for name, meta in spec["inputs"].items():
        default = str(meta.get("default", ""))
        if default == "${{ github.token }}":
            default = GITHUB_TOKEN
        values[name] = overrides.get(name.replace("-", "_"), overrides.get(name, default))
    return {f"INPUT_{name.upper()}": value for name, value in values.items()}


def read_outputs(path: Path) -> dict[str, str]:
    """Parse GITHUB_OUTPUT's `name<<DELIMITER` blocks as the runner does."""
    found: dict[str, str] = {}
    lines = path.read_text("utf-8").splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        name, delimiter = lines[index].split("<<", 1)
        end = lines.index(delimiter, index + 1)
        found[name] = "\n".join(lines[index + 1:end])
        index = end + 1
    return found


@dataclass
class RunnerFiles:
    workspace: Path
    event: Path
    output: Path
    summary: Path

    def outputs(self) -> dict[str, str]:
        return read_outputs(self.output)

    def claim_json(self) -> Path:
        """The `claim-json` output, which is relative to the workspace (as later steps see
        it); an empty output is no file."""
        relative = self.outputs()["claim-json"]
        assert relative, "the action wrote no completed claim"
        assert not Path(relative).is_absolute(), relative
        return self.workspace / relative


def runner_files(tmp_path: Path, payload: Any) -> RunnerFiles:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    return RunnerFiles(workspace, event, tmp_path / "output.txt", tmp_path / "summary.md")


def runner_env(hub: Hub, files: RunnerFiles, event_name: str, repository: str,
               workflow_ref: str | None = None, **inputs: str) -> dict[str, str]:
    """The runner's variables; a gate holding the App key runs (as the docs say) from a
    workflow file on the default branch unless `workflow_ref` names another."""
    if workflow_ref is None and inputs.get("app_id"):
        workflow_ref = f"{repository}/.github/workflows/claim.yml@refs/heads/main"
    return {
        **({"GITHUB_WORKFLOW_REF": workflow_ref} if workflow_ref else {}),
        **action_inputs(**inputs),
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(files.event),
        "GITHUB_WORKSPACE": str(files.workspace),
        "GITHUB_OUTPUT": str(files.output),
        "GITHUB_STEP_SUMMARY": str(files.summary),
        "GITHUB_API_URL": hub.api_url,
        "GITHUB_SERVER_URL": hub.web_url,
        "GITHUB_REPOSITORY": repository,
        "GITHUB_RUN_ID": "4242",
    }


@dataclass
class ActionResult:
    code: int
    stdout: str


def run_action(env: Mapping[str, str], now: datetime = T0 + timedelta(hours=1),
               workers: int = READ_WORKERS) -> ActionResult:
    """`workers`: GitHub reads in flight at once, the Action's default unless a test asks."""
    out = io.StringIO()
    code = main(dict(env), clock=lambda: now, out=out, retry=FAST_RETRY, workers=workers)
    return ActionResult(code, out.getvalue())


def junit_xml(passed: int = 3, failed: int = 0, name_prefix: str = "test_case",
              commit: str | None = None) -> str:
    cases = [f'<testcase classname="tests.test_app" name="{name_prefix}_{i}" time="0.01"/>'
             for i in range(passed)]
    # pytest writes the def's line 0-based: the failing tests' defs are at lines 10, 11, ...
    cases += [
        f'<testcase classname="tests.test_app" name="{name_prefix}_failing_{i}" time="0.01"'
        f' file="tests/test_app.py" line="{9 + i}">'
        f'<failure message="assert 1 == 2">tests/test_app.py:{10 + i}: AssertionError</failure>'
        "</testcase>"
        for i in range(failed)
    ]
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<testsuites><testsuite name="pytest"'
        f' tests="{passed + failed}" failures="{failed}">'
        + (f'<properties><property name="claim-gate.commit" value="{commit}"/></properties>'
           if commit else "")
        + "".join(cases)
        + "</testsuite></testsuites>\n"
    )


def claim_json(mutations: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({
        "spec_version": "0.1",
        "task": {"id": "issue-12", "description": "Fix the parser"},
        "claimed_outcome": "Fixed the parser; all tests pass.",
        "mutations": mutations,
        **extra,
    }, indent=2)


def edit(mid: str = "m1", at: datetime = T0, path: str = "app/parser.py") -> dict[str, Any]:
    return {"id": mid, "kind": "file_edit", "target": path,
            "at": at.isoformat().replace("+00:00", "Z")}


REPO = "octo/app"


@dataclass
class Scenario:
    hub: Hub
    repo: Repo
    head: Commit
    pull: Pull
    runs: list[WorkflowRun]
    t0: datetime = T0

    def add_run(self, xml: str | None, *, started: timedelta = timedelta(minutes=5),
                head_sha: str | None = None, conclusion: str | None = "success",
                artifact: str = "junit-results", **kwargs: Any) -> WorkflowRun:
        artifacts = [ArtifactSpec(artifact, zip_bytes({"reports/junit.xml": xml}))] if xml else []
        run = self.hub.add_workflow_run(
            self.repo, head_sha=head_sha or self.head.sha,
            pull_requests=kwargs.pop("pull_requests", [self.pull]),
            run_started_at=self.t0 + started, created_at=self.t0 + started,
            updated_at=self.t0 + started + timedelta(minutes=2), conclusion=conclusion,
            artifacts=artifacts, **kwargs,
        )
        self.runs.append(run)
        return run

    def check(self, name: str = "completion-claim") -> CheckRun:
        [check] = self.hub.check_runs(head_sha=self.head.sha, name=name)
        return check


BASELINE_WORKFLOWS = (".github/workflows/ci.yml",)


def add_baseline(hub: Hub, repo: Repo, path: str = ".github/workflows/ci.yml", *,
                 xml: str | None = None, at: datetime = T0 - timedelta(hours=3),
                 conclusion: str = "success", branch: str = "main") -> WorkflowRun:
    """A push run of `path` on the base branch with its JUnit: what the head's test set is
    compared with (an honest repository runs its tests on pushes to the base too)."""
    return hub.add_workflow_run(
        repo, head_sha=repo.branches[branch], event="push", head_branch=branch, path=path,
        conclusion=conclusion, run_started_at=at, created_at=at,
        updated_at=at + timedelta(minutes=3), name=f"CI on {branch}",
        artifacts=[ArtifactSpec("junit-results", zip_bytes(
            {"reports/junit.xml": xml or junit_xml(passed=3)}))],
    )


def scenario(hub: Hub, claim: str | None, *, body: str | None = None,
             files: Mapping[str, str | Symlink | None] | None = None, t0: datetime = T0,
             baseline: tuple[str, ...] = BASELINE_WORKFLOWS,
             base_files: dict[str, str] | None = None) -> Scenario:
    """A repository (app/parser.py and `base_files`) whose PR (by an agent) edits
    app/parser.py and adds the claim, pushed a minute before `t0`; the workflows in
    `baseline` ran on the base branch before."""
    repo = hub.add_repo(REPO, files={"app/parser.py": "x = 1\n", **(base_files or {})},
                        pushed_at=t0 - timedelta(days=1))
    for path in baseline:
        add_baseline(hub, repo, path, at=t0 - timedelta(hours=3))
    changed: dict[str, str | Symlink | None] = {"app/parser.py": "x = 2\n", **(files or {})}
    if claim is not None:
        changed[".claim.json"] = claim
    head = hub.add_commit(repo, changed, branch="copilot/fix-parser",
                          pushed_at=t0 - timedelta(minutes=1))
    agent = hub.add_user("copilot-swe-agent[bot]", type="Bot")
    pull = hub.add_pull(repo, head="copilot/fix-parser", body=body, user=agent)
    return Scenario(hub, repo, head, pull, [], t0)


def act(s: Scenario, tmp_path: Path, *, event: str = "pull_request",
        **inputs: str) -> tuple[ActionResult, RunnerFiles]:
    if event == "workflow_run":
        payload = workflow_run_event(s.hub, s.runs[-1])
    else:
        payload = pull_request_event(s.hub, s.pull, action="synchronize")
    files = runner_files(tmp_path, payload)
    inputs.setdefault("artifact_name", "junit-*")
    result = run_action(runner_env(s.hub, files, event, REPO, **inputs))
    return result, files


def gate_app(hub: Hub, s: Scenario) -> tuple[App, dict[str, str]]:
    """The recommended set-up's own GitHub App, installed on the scenario's repository, and
    the action inputs that sign in as it (no workflow token)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    app = hub.add_app("claim-gate-app", public_key_pem=public)
    hub.add_installation(app, s.repo.owner)
    return app, {"app_id": str(app.id), "app_private_key": private, "github_token": ""}
