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

from tests.action_support import ROOT, T0, Scenario, act, claim_json, edit, junit_xml, scenario
from tests.github_standin import DeploymentStatusSpec
from tests.github_standin.hub import Hub
from tests.github_standin.model import User
from tests.probe_support import Reply, Seen, Server, serve

DEPLOY = {"id": "d1", "kind": "deploy", "target": "production", "at": "2026-03-02T08:58:00Z"}
CLAIM = claim_json([edit(at=T0 - timedelta(minutes=3)), DEPLOY])
DEPLOY_BOT = "deploy-bot[bot]"
SECRET = "s3cret-token-value"


@dataclass(frozen=True)
class Outcome:
    conclusion: str | None
    words: str
    contacted: tuple[str, ...] = ()  # what the probed servers saw (paths, or header values)


def _words(s: Scenario) -> Outcome:
    check = s.check()
    return Outcome(check.conclusion, " ".join(f"{check.title} {check.summary}".split())
                   .replace("\\", "").replace("\u200b", "").replace("\u200d", ""))


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
    for words in (*row.words, f"`{row.code}`"):
        assert words in seen.words, f"{words!r} not in what the reviewer sees:\n{seen.words}"


def test_the_readme_lists_every_attack() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## What claim-gate defends against", 1)[1].split("\n## ", 1)[0]
    for row in ROWS:
        found = re.search(rf"^\| {re.escape(row.name)} \| [^|]+ \| (.+) \|$", section, re.M)
        assert found is not None, row.name
        assert found[1] == f"`{row.code}`", row.name
