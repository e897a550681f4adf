"""Issue 10, class 4, in the probe room: each secret bound to its hosts, one overall deadline.

A secret header goes only to the hosts the operator bound it to (`hosts`, else the probe's own
fixed URL); a secret for an environment URL, which a deployment status supplies, must name its
hosts or the policy is refused at load. All of a run's probes share `probes.deadline_s`: the
ones not made in time are absent with that reason, and the clock is the injected one.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.model import CheckType
from gate.claim.probe_policy import parse_probes
from gate.claim.probe_settings import DEFAULT_DEADLINE_S, HostRule
from gate.evidence.probe.http import HttpRequest, HttpResponse, TransportError
from gate.evidence.probe.observe import ProbeContext, ProbeIO, ProbeRunner
from tests.builders import claim, mutation
from tests.probe_support import FakeClock

SOURCE = "policy.yml"


def _endpoint(headers: dict[str, Any], **where: str) -> dict[str, Any]:
    return {"environment": "production", **(where or {"path": "/version"}),
            "headers": headers, "assert": [{"json_pointer": "/sha", "equals": "{sha}"}]}


def _section(*endpoints: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"allowed_hosts": ["app.example", "records.example", "*.probe.example"],
            "endpoint_health": list(endpoints), **more}


SECRET = {"env": "TOKEN", "prefix": "Bearer "}


def test_a_secret_for_the_deployment_url_without_hosts_is_refused_at_load() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_probes(_section(_endpoint({"Authorization": SECRET})), SOURCE)
    assert "/probes/endpoint_health/0/headers/Authorization" in str(caught.value)
    assert "needs `hosts`" in str(caught.value)


@pytest.mark.parametrize(("where", "hosts", "bound"), [
    ({"url": "https://app.example/version"}, None, [HostRule("app.example", 443, False)]),
    ({"url": "http://app.example:8080/v"}, None, [HostRule("app.example", 8080, False)]),
    ({"path": "/version"}, ["records.example", "*.probe.example:8443"],
     [HostRule("records.example", None, False), HostRule("probe.example", 8443, True)]),
])
def test_where_a_secret_may_go(
    where: dict[str, str], hosts: list[str] | None, bound: list[HostRule]
) -> None:
    header = {**SECRET, **({"hosts": hosts} if hosts else {})}
    settings = parse_probes(_section(_endpoint({"Authorization": header}, **where),
                                     allow_http=True), SOURCE)
    [value] = settings.endpoint_health[0].headers
    assert list(value.hosts) == bound


def test_a_literal_header_needs_no_hosts_and_a_bad_host_entry_is_named() -> None:
    settings = parse_probes(_section(_endpoint({"X-Probe": "claim-gate"})), SOURCE)
    assert settings.endpoint_health[0].headers[0].hosts == ()
    with pytest.raises(InvalidInput) as caught:
        parse_probes(_section(_endpoint({"Authorization": {**SECRET, "hosts": ["not a host"]}})),
                     SOURCE)
    assert "/probes/endpoint_health/0/headers/Authorization/hosts/0" in str(caught.value)


def test_readback_secrets_default_to_the_readback_urls_host() -> None:
    settings = parse_probes({
        "allowed_hosts": ["records.example"],
        "state_readback": [{"target": "accounts/{id}", "url": "https://records.example/a/{id}",
                            "headers": {"Authorization": SECRET}}],
    }, SOURCE)
    assert settings.state_readback[0].headers[0].hosts == (
        HostRule("records.example", 443, False),)


class Silent:
    """A transport that never answers: each request takes its whole timeout on the injected
    clock ("not yet", so it is retried)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.requests: list[tuple[datetime, HttpRequest]] = []

    def fetch(self, request: HttpRequest) -> HttpResponse:
        self.requests.append((self.clock.now, request))
        self.clock.sleep(request.timeout_s)
        raise TransportError(f"no answer within the {request.timeout_s:g}s timeout", not_yet=True)


def _deploys(count: int) -> Any:
    return claim([mutation(f"d{i}", kind="deploy", target=f"env{i}") for i in range(count)])


@pytest.mark.parametrize(("deadline", "made"), [(30.0, 1), (None, 5)])
def test_probes_share_one_overall_deadline(deadline: float | None, made: int) -> None:
    """Five environments that never answer, each retried for its 60 s window: five minutes
    and more without a shared deadline; with one, no request outlasts it, and the probes
    whose turn comes after it are not made and say so."""
    section = {
        "allowed_hosts": ["app.example"], "timeout_s": 10,
        "retry": {"window_s": 60, "backoff_s": 1},
        "endpoint_health": [_endpoint({}, url=f"https://app.example/{i}") | {
            "environment": f"env{i}"} for i in range(5)],
        **({"deadline_s": deadline} if deadline is not None else {}),
    }
    settings = parse_probes(section, SOURCE)
    assert settings.deadline_s == (deadline or DEFAULT_DEADLINE_S)
    clock = FakeClock(datetime(2026, 11, 30, 10, tzinfo=UTC))
    transport = Silent(clock)
    start = clock.now
    items = ProbeRunner(settings, ProbeIO(clock, clock.sleep, {}, transport),
                        ProbeContext(head_sha="a" * 40)).collect(_deploys(5))
    assert len(items) == 5
    assert all(item.disqualified is not None for item in items)
    late = [i for i in items if i.disqualified and i.disqualified.message.endswith(
        "not probed: the probes' overall deadline (30s, policy probes.deadline_s) passed before"
        " this probe's turn")]
    assert len(late) == 5 - made
    probed = {request.url.rsplit("/", 1)[-1] for _, request in transport.requests}
    assert probed == {str(i) for i in range(made)}
    spent = (clock.now - start).total_seconds()
    assert spent <= settings.deadline_s + 0.1, spent
    if deadline is None:
        assert spent > 250, "the five windows really are long: the deadline is what bounds them"


def test_a_secret_is_not_sent_to_a_host_outside_its_list() -> None:
    settings = parse_probes(_section(_endpoint(
        {"Authorization": {**SECRET, "hosts": ["records.example"]}})), SOURCE)
    clock = FakeClock(datetime(2026, 11, 30, 10, tzinfo=UTC))
    transport = Silent(clock)
    runner = ProbeRunner(settings, ProbeIO(clock, clock.sleep, {"TOKEN": "t0ken"}, transport),
                         ProbeContext(head_sha="a" * 40,
                                      environment_urls={"production": "https://app.example"}))
    [item] = runner.collect(claim([mutation("d1", kind="deploy", target="production")]),
                            (CheckType.ENDPOINT_HEALTH,))
    assert transport.requests == []
    assert item.disqualified is not None
    assert item.disqualified.code == "probe_refused"
    assert "bound to other hosts than app.example:443" in item.disqualified.message
    assert "t0ken" not in repr(item)
