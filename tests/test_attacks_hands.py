"""Issue 10, classes 4 and 6: deployments, probes and agents from the wrong hands.

Each row builds an attack in the GitHub stand-in and, beside it, the honest version of the
same scenario; the action runs from a real example event payload. The attack must not get
`success` and the reviewer must see why; the control must get `success`. The README's
"What claim-gate defends against" table has one row per attack here (a test keeps them in
step, as in tests/test_attacks.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import (
    BASELINE_WORKFLOWS,
    REPO,
    ROOT,
    T0,
    Scenario,
    act,
    add_baseline,
    claim_json,
    edit,
    junit_xml,
    scenario,
)
from tests.github_standin import DeploymentStatusSpec
from tests.github_standin.hub import Hub
from tests.github_standin.model import User
from tests.probe_support import Reply, Seen, Server, serve

DEPLOY = {"id": "d1", "kind": "deploy", "target": "production", "at": "2026-03-02T08:58:00Z"}
CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3)), DEPLOY])
CODE_CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3))])
DEPLOY_BOT = "deploy-bot[bot]"
SECRET = "s3cret-token-value"


@dataclass(frozen=True)
class Outcome:
    conclusion: str | None
    words: str
    contacted: tuple[str, ...] = ()  # what the probed servers saw (paths, or header values)
    raw: str = ""  # the check run's summary as posted (Markdown)


def _words(s: Scenario) -> Outcome:
    check = s.check()
    return Outcome(check.conclusion, " ".join(f"{check.title} {check.summary}".split())
                   .replace("\\", "").replace("\u200b", "").replace("\u200d", ""),
                   raw=check.summary or "")


@contextmanager
def _app(sha: str) -> Iterator[Server]:
    """A deployed app whose /version answers `sha`."""
    def handler(seen: Seen, body: bytes) -> Reply:
        return Reply.json(200, {"sha": sha}) if seen.path == "/version" else Reply(404)
    with serve(handler) as server:
        yield server


def _live(*ports: int, creators: str = DEPLOY_BOT, headers: str = "", extra: str = "") -> str:
    hosts = ", ".join(f"'127.0.0.1:{port}'" for port in ports)
    return (
        "id: live\nrequires: [test_run, endpoint_health]\n"
        f"deployment_creators: ['{creators}']\n{extra}probes:\n"
        f"  allowed_hosts: [{hosts}]\n  allow_http: true\n"
        "  endpoint_health:\n    - environment: production\n      path: /version\n"
        f"{headers}      assert:\n        - json_pointer: /sha\n          equals: '{{sha}}'\n"
    )


def _deploy(s: Scenario, creator: User, url: str, *more: DeploymentStatusSpec,
            state: str = "success") -> None:
    s.hub.add_deployment(s.repo, sha=s.head.sha, environment="production", created_at=T0,
                         creator=creator, statuses=[DeploymentStatusSpec(
                             state, creator=creator, created_at=T0 + timedelta(minutes=1),
                             environment_url=url), *more])


# -- class 4: deployments and probes -----------------------------------------------------------


def agents_own_deployment_points_the_probe_at_its_host(
    hub: Hub, tmp_path: Path, honest: bool
) -> Outcome:
    """The agent creates a deployment with its token whose status says production lives on
    a host it runs (listed in allowed_hosts, say for staging): there the head SHA answers."""
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml())
    with _app(s.head.sha) as agents, _app(s.head.sha) as real:
        if honest:
            _deploy(s, hub.add_user(DEPLOY_BOT, type="Bot"), real.url)
        else:
            _deploy(s, hub.add_user("copilot-swe-agent[bot]", type="Bot"), agents.url)
        act(s, tmp_path, policy=_live(agents.port, real.port))
        seen = tuple(x.path for x in agents.seen + real.seen)
    return replace(_words(s), contacted=seen)


def later_status_from_someone_else_hides_a_failure(
    hub: Hub, tmp_path: Path, honest: bool
) -> Outcome:
    """The trusted pipeline reports failure; the agent posts a later success on the same
    deployment. With deployment_success_counts the latest status used to decide."""
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml())
    bot = hub.add_user(DEPLOY_BOT, type="Bot")
    later = hub.add_user(DEPLOY_BOT if honest else "copilot-swe-agent[bot]", type="Bot")
    _deploy(s, bot, "", DeploymentStatusSpec("success", creator=later,
                                             created_at=T0 + timedelta(minutes=4)),
            state="failure")
    act(s, tmp_path, policy="id: owners\nrequires: [test_run, endpoint_health]\n"
        "max_age_s: {endpoint_health: 86400}\n"  # the statuses are an hour old at decision
        f"deployment_creators: ['{DEPLOY_BOT}']\ndeployment_success_counts: true\n")
    return _words(s)


def secret_header_sent_to_a_host_outside_its_list(
    hub: Hub, tmp_path: Path, honest: bool, monkeypatch: pytest.MonkeyPatch
) -> Outcome:
    """Two hosts are allowed (the app and a records service); the token is bound to the
    records service only. The environment URL names the app: the token must not go there."""
    monkeypatch.setenv("CLAIM_GATE_TEST_TOKEN", SECRET)
    s = scenario(hub, CLAIM)
    s.add_run(junit_xml())
    with _app(s.head.sha) as app, _app(s.head.sha) as records:
        _deploy(s, hub.add_user(DEPLOY_BOT, type="Bot"), app.url)
        bound = app.port if honest else records.port
        headers = ("      headers:\n        Authorization: {env: CLAIM_GATE_TEST_TOKEN,"
                   f" prefix: 'Bearer ', hosts: ['127.0.0.1:{bound}']}}\n")
        act(s, tmp_path, policy=_live(app.port, records.port, headers=headers))
        sent = tuple(x.headers.get("Authorization", x.headers.get("authorization", ""))
                     for x in app.seen + records.seen)
    return replace(_words(s), contacted=sent)


# -- class 6: who is an agent -------------------------------------------------------------------


def _agent_pr(hub: Hub, claim: str | None, *, login: str, kind: str = "Bot",
              branch: str = "copilot/fix-parser", app: str | None = None) -> Scenario:
    """The scenario of tests/action_support.py, with the PR's author, branch and app chosen."""
    repo = hub.add_repo(REPO, files={"app/parser.py": "x = 1\n"}, pushed_at=T0 - timedelta(days=1))
    changed: dict[str, str | None] = {"app/parser.py": "x = 2\n"}
    if claim is not None:
        changed[".claim.json"] = claim
    for path in BASELINE_WORKFLOWS:  # the base branch's tests, as in scenario()
        add_baseline(hub, repo, path, at=T0 - timedelta(hours=3))
    head = hub.add_commit(repo, changed, branch=branch, pushed_at=T0 - timedelta(minutes=1))
    pull = hub.add_pull(repo, head=branch, user=hub.add_user(login, type=kind),
                        app=hub.add_app(app) if app else None)
    return Scenario(hub, repo, head, pull, [])


def _gated(s: Scenario, tmp_path: Path, **inputs: str) -> Outcome:
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path, require_claim="agents", **inputs)
    seen = _words(s)
    assert result.code == (0 if seen.conclusion in ("success", "neutral") else 1), result.stdout
    return seen


def copilot_pr_named_copilot_in_the_rest_api(hub: Hub, tmp_path: Path, honest: bool) -> Outcome:
    """The README's old example matched `copilot-swe-agent*`; the REST API names Copilot's
    PRs' author `Copilot` (a Bot): the PR fell outside the gate and got a neutral check."""
    s = _agent_pr(hub, CODE_CLAIM if honest else None, login="Copilot")
    return _gated(s, tmp_path, agent_presets="copilot")


def agent_app_opens_the_pr_as_a_person(hub: Hub, tmp_path: Path, honest: bool) -> Outcome:
    """Codex opens the PR under the requesting person's account, on a branch the agent named
    outside every agent glob; only the issue's performed_via_github_app says it is Codex."""
    s = _agent_pr(hub, CODE_CLAIM if honest else None, login="octo-dev", kind="User",
                  branch="fix/parser", app="chatgpt-codex-connector")
    return _gated(s, tmp_path, agent_presets="codex", agent_branches="codex/*")


# -- classes 7 and 8: the agent's clock and the agent's words -----------------------------------


def future_dated_mutation_softens_a_refutation(
    hub: Hub, tmp_path: Path, honest: bool
) -> Outcome:
    """CI ran after the change and a test failed: refuted. Dated a day ahead, the mutation
    made every run "before the change", and the refutation became unverified."""
    when = T0 - timedelta(minutes=3) if honest else T0 + timedelta(days=1)
    s = scenario(hub, claim_json([edit(at=when)]))
    s.add_run(junit_xml(passed=5) if honest else junit_xml(passed=3, failed=1),
              conclusion="success" if honest else "failure")
    act(s, tmp_path)
    return _words(s)


HOSTILE_OUTCOME = ("<h2>✅ verified</h2> ![ok](https://evil.example/badge.svg)"
                   " [approve](https://evil.example/) cc @octocat\n# ✅ verified")


def claimed_outcome_draws_a_verdict_for_the_reviewer(
    hub: Hub, tmp_path: Path, honest: bool
) -> Outcome:
    """The failing PR's claimed outcome is Markdown/HTML drawing a green verdict, a badge
    from another host, a link and a mention."""
    outcome = "Fixed the parser." if honest else HOSTILE_OUTCOME
    s = scenario(hub, claim_json([edit(at=T0 - timedelta(minutes=3))]).replace(
        "Fixed the parser; all tests pass.", outcome.replace("\n", "\\n")))
    s.add_run(junit_xml(passed=5) if honest else junit_xml(passed=3, failed=1),
              conclusion="success" if honest else "failure")
    act(s, tmp_path)
    return _words(s)


def _inert(outcome: Outcome, honest: bool) -> None:
    if honest:
        assert "Fixed the parser." in outcome.raw
        return
    reason = outcome.raw.index("**Reason:**")
    assert reason < outcome.raw.index("**Task**"), "the reason comes first"
    for raw in ("<h2>", "![ok]", "[approve]", "@octocat", "https://evil", "\n# "):
        assert raw not in outcome.raw, raw
    assert "&lt;h2&gt;" in outcome.raw


@dataclass(frozen=True)
class Row:
    name: str  # as in the README table
    build: Callable[..., Outcome]
    conclusion: str
    code: str
    words: tuple[str, ...]
    check: Callable[[Outcome, bool], None] = lambda outcome, honest: None


def _never_contacted_the_agents_host(outcome: Outcome, honest: bool) -> None:
    assert outcome.contacted == (("/version",) if honest else ()), outcome.contacted


def _secret_only_where_bound(outcome: Outcome, honest: bool) -> None:
    assert outcome.contacted == ((f"Bearer {SECRET}",) if honest else ()), outcome.contacted
    assert SECRET not in outcome.words


ROWS = [
    Row("a deployment status from the agent points the probe at a host it controls",
        agents_own_deployment_points_the_probe_at_its_host, "action_required", "probe_failed",
        ("no environment URL for 'production'", "deployment_creators"),
        _never_contacted_the_agents_host),
    Row("a later deployment status from someone else hides the pipeline's failure",
        later_status_from_someone_else_hides_a_failure, "failure", "contradicted",
        ("deployment_state: expected 'success', observed 'failure'", "untrusted_creator")),
    Row("a probe's secret header would go to a host outside its list",
        secret_header_sent_to_a_host_outside_its_list, "action_required", "probe_refused",
        ("the secret header Authorization (from CLAIM_GATE_TEST_TOKEN) is bound to other hosts",
         "nothing was sent"),
        _secret_only_where_bound),
    Row("a mutation dated in the future to soften a refutation",
        future_dated_mutation_softens_a_refutation, "failure", "contradicted",
        ("is dated 2026-03-03T09:00:00Z, after the decision time", "a contradiction still"
         " refutes it")),
    Row("the claimed outcome draws a verified heading, a badge, a link and a mention",
        claimed_outcome_draws_a_verdict_for_the_reviewer, "failure", "-",
        ("&lt;h2&gt;✅ verified&lt;/h2&gt;",), _inert),
    Row("an agent's PR whose REST author (`Copilot`) no login glob names",
        copilot_pr_named_copilot_in_the_rest_api, "action_required", "-",
        ("no completion claim",)),
    Row("an agent's app opens the PR under a person's account, on a branch outside the globs",
        agent_app_opens_the_pr_as_a_person, "action_required", "-",
        ("no completion claim",)),
]


def _build(row: Row, hub: Hub, path: Path, honest: bool,
           monkeypatch: pytest.MonkeyPatch) -> Outcome:
    if "monkeypatch" in row.build.__code__.co_varnames:
        return row.build(hub, path, honest, monkeypatch)
    return row.build(hub, path, honest)


@pytest.mark.parametrize("honest", [False, True], ids=["attack", "control"])
@pytest.mark.parametrize("row", ROWS, ids=[r.build.__name__ for r in ROWS])
def test_the_attack_fails_and_the_honest_control_passes(
    github_hub: Hub, tmp_path: Path, row: Row, honest: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _build(row, github_hub, tmp_path, honest, monkeypatch)
    row.check(seen, honest)
    if honest:
        assert seen.conclusion == "success", seen.words
        return
    assert seen.conclusion == row.conclusion, seen.words
    for words in (*row.words, *((f"`{row.code}`",) if row.code != "-" else ())):
        assert words in seen.words, f"{words!r} not in what the reviewer sees:\n{seen.words}"


def test_the_trust_model_lists_every_attack() -> None:
    doc = (ROOT / "docs" / "trust-model.md").read_text("utf-8")
    section = doc.split("## What claim-gate defends against", 1)[1].split("\n## ", 1)[0]
    for row in ROWS:
        found = re.search(rf"^\| {re.escape(row.name)} \| [^|]+ \| (.+) \|$", section, re.M)
        assert found is not None, row.name
        assert found[1] == (f"`{row.code}`" if row.code != "-" else "-"), row.name


def test_branch_globs_alone_are_refused_they_can_only_add_prs(
    github_hub: Hub, tmp_path: Path
) -> None:
    """With only `agent-branches`, an agent would name its branch to fall outside them: the
    inputs are refused (exit 3, no check), so the required check never appears."""
    s = _agent_pr(github_hub, None, login="devin-ai-integration[bot]", branch="hotfix/parser")
    s.add_run(junit_xml())
    result, _ = act(s, tmp_path, require_claim="agents", agent_branches="devin/*")
    assert result.code == 3
    assert "`agent-branches` can only add PRs" in result.stdout
    assert github_hub.check_runs(head_sha=s.head.sha, name="completion-claim") == []


@pytest.mark.parametrize(("login", "branch", "gated"), [
    ("devin-ai-integration[bot]", "hotfix/parser", True),   # the agent: any branch
    ("octo-dev", "devin/parser", True),                       # a glob only adds
    ("octo-dev", "fix/parser", False),                        # a person's own PR
])
def test_presets_and_globs_only_add_prs(
    github_hub: Hub, tmp_path: Path, login: str, branch: str, gated: bool
) -> None:
    s = _agent_pr(github_hub, None, login=login, branch=branch,
                  kind="Bot" if login.endswith("[bot]") else "User")
    seen = _gated(s, tmp_path, agent_presets="devin", agent_branches="devin/*")
    assert seen.conclusion == ("action_required" if gated else "neutral"), seen.words
