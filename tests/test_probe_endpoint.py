"""endpoint_health probes against a real HTTPS app on 127.0.0.1 with a test-made certificate."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.facts import Origin
from gate.claim.model import CheckType, VerdictState, VerifierKind
from gate.evidence.probe.http import HttpTransport
from gate.evidence.probe.observe import PROBE_VERIFIER_ID, ProbeContext, ProbeIO
from gate.pipeline import VerifyOptions, VerifyResult, run_verify
from tests.probe_support import Certificate, FakeClock, Reply, Seen, at, make_certificate, serve

HEAD = "3f786850e387550fdab836ed7e6dc881de23001b"
PREVIOUS = "89e6c98d92887913cadf06b2adb97f26cde4849b"
DEPLOYED_AT = "2026-11-30T10:00:00Z"


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    return make_certificate(tmp_path_factory.mktemp("tls"))


def _claim(tmp_path: Path) -> Path:
    path = tmp_path / "claim.json"
    path.write_text(json.dumps({
        "spec_version": "0.1",
        "task": {"id": "deploy-1", "description": "Ship the release"},
        "claimed_outcome": "Deployed the head commit to production.",
        "mutations": [
            {"id": "d1", "kind": "deploy", "target": "production", "at": DEPLOYED_AT},
        ],
    }))
    return path


def _policy(tmp_path: Path, certificate: Certificate, body: str = "", **probes: object) -> Path:
    settings = {
        "allowed_hosts": ["127.0.0.1"],
        "ca_bundle": str(certificate.cert),
        "retry": {"window_s": 30, "backoff_s": 1, "max_backoff_s": 8},
        "endpoint_health": [{
            "environment": "production",
            "path": "/version",
            "assert": [{"json_pointer": "/sha", "equals": "{sha}"}],
        }],
        **probes,
    }
    path = tmp_path / "policy.json"
    path.write_text(body or json.dumps({
        "id": "deploys", "requires": ["endpoint_health"], "probes": settings,
    }))
    return path


def _verify(
    tmp_path: Path, policy: Path, url: str, clock: FakeClock | None = None
) -> tuple[VerifyResult, FakeClock]:
    clock = clock or FakeClock(at("2026-11-30T10:00:05Z"))
    io = ProbeIO(clock, clock.sleep, {}, HttpTransport())
    options = VerifyOptions(
        claim=_claim(tmp_path),
        policy=policy,
        probe=True,
        probe_context=ProbeContext(head_sha=HEAD, environment_urls={"production": url}),
        format="json",
    )
    return run_verify(options, clock.now, io), clock


def _version(sha: str) -> Reply:
    return Reply.json(200, {"sha": sha, "service": "app"})


def test_version_equal_to_head_sha_verifies(tmp_path: Path, certificate: Certificate) -> None:
    with serve(lambda seen, body: _version(HEAD), certificate.server_context()) as app:
        result, clock = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    assert [seen.path for seen in app.seen] == ["/version"]
    item = result.verdict.items[0]
    evidence = item.evidence
    assert item.origin is Origin.GATE
    assert item.disqualified is None
    assert evidence.check_type is CheckType.ENDPOINT_HEALTH
    assert evidence.verifier.id == PROBE_VERIFIER_ID
    assert evidence.verifier.kind is VerifierKind.INDEPENDENT
    assert evidence.covers == ("d1",)
    assert evidence.expected == {"status": 200, "json:/sha": HEAD}
    assert evidence.observed_value == {"status": 200, "json:/sha": HEAD}
    assert at(DEPLOYED_AT) < evidence.at <= clock.now
    assert result.verdict.decided_at >= evidence.at
    record = json.loads(result.output)
    assert record["evidence"][0]["verifier"]["id"] == PROBE_VERIFIER_ID


def test_previous_sha_refutes(tmp_path: Path, certificate: Certificate) -> None:
    with serve(lambda seen, body: _version(PREVIOUS), certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.REFUTED
    assert f"expected '{HEAD}', observed '{PREVIOUS}'" in result.verdict.reason


def test_503_then_200_within_the_window_verifies(tmp_path: Path, certificate: Certificate) -> None:
    answers = iter([Reply(503, b"warming up"), Reply(503, b"warming up")])

    def handler(seen: Seen, body: bytes) -> Reply:
        return next(answers, _version(HEAD))

    with serve(handler, certificate.server_context()) as app:
        result, clock = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    assert len(app.seen) == 3
    assert clock.slept == [1, 2]
    assert result.verdict.items[0].evidence.extensions["x-probe"]["attempts"] == 3


def test_503_throughout_is_unverified_with_the_error(
    tmp_path: Path, certificate: Certificate
) -> None:
    with serve(lambda seen, body: Reply(503, b"down"), certificate.server_context()) as app:
        result, clock = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "answered 503" in result.verdict.reason
    assert "30s retry window" in result.verdict.reason
    assert clock.slept == [1, 2, 4, 8, 8]  # 23 s waited; a sixth wait of 8 s would pass 30 s
    assert len(app.seen) == 6
    item = result.verdict.items[0]
    assert item.disqualified is not None
    assert item.disqualified.code == "probe_failed"
    assert not item.evidence.has_observed_value


@pytest.mark.parametrize("status", [408, 429])
def test_a_busy_answer_is_not_yet_and_is_retried(
    tmp_path: Path, certificate: Certificate, status: int
) -> None:
    """'Too many requests' says nothing about which version is deployed: wait and ask again."""
    answers = iter([Reply(status, b"slow down", (("Retry-After", "1"),))])

    def handler(seen: Seen, body: bytes) -> Reply:
        return next(answers, _version(HEAD))

    with serve(handler, certificate.server_context()) as app:
        result, clock = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    assert len(app.seen) == 2
    assert clock.slept == [1]


@pytest.mark.parametrize("status", [401, 403, 407, 429])
def test_an_app_that_does_not_let_the_gate_in_is_unverified_not_refuted(
    tmp_path: Path, certificate: Certificate, status: int
) -> None:
    """Like a readback with wrong credentials: the gate saw nothing of the deploy."""
    with serve(lambda seen, body: Reply(status, b"no"), certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED, result.verdict.reason
    assert f"answered {status}" in result.verdict.reason
    item = result.verdict.items[0]
    assert item.disqualified is not None
    assert item.disqualified.code == "probe_failed"


def test_connection_refused_throughout_is_unverified(
    tmp_path: Path, certificate: Certificate
) -> None:
    with serve(lambda seen, body: _version(HEAD), certificate.server_context()) as app:
        url = app.url
    result, _ = _verify(tmp_path, _policy(tmp_path, certificate), url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "connection refused" in result.verdict.reason


def test_redirect_to_another_host_is_refused(tmp_path: Path, certificate: Certificate) -> None:
    tls = certificate.server_context()
    with serve(lambda seen, body: _version(HEAD), tls) as elsewhere:
        target = elsewhere.url + "/version"
        with serve(lambda seen, body: Reply(302, b"", (("Location", target),)), tls) as app:
            result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "refused a redirect" in result.verdict.reason
    assert elsewhere.seen == []
    assert result.verdict.items[0].disqualified is not None
    assert result.verdict.items[0].disqualified.code == "probe_refused"


@pytest.mark.parametrize(
    "location", ["https://127.0.0.1:abc/version", "https://127.0.0.1:99999/", "https://[::1/"]
)
def test_a_redirect_to_a_malformed_url_is_refused(
    tmp_path: Path, certificate: Certificate, location: str
) -> None:
    """The app chooses the Location; a port urllib cannot read is a refusal, not a crash."""
    reply = Reply(302, b"", (("Location", location),))
    with serve(lambda seen, body: reply, certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "refused a redirect" in result.verdict.reason
    assert result.verdict.items[0].disqualified is not None
    assert result.verdict.items[0].disqualified.code == "probe_refused"


def test_redirect_on_the_same_origin_is_followed(tmp_path: Path, certificate: Certificate) -> None:
    def handler(seen: Seen, body: bytes) -> Reply:
        if seen.path == "/version":
            return Reply(307, b"", (("Location", "/v2/version"),))
        return _version(HEAD)

    with serve(handler, certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    assert [seen.path for seen in app.seen] == ["/version", "/v2/version"]


@pytest.mark.parametrize("declare_length", [True, False])
def test_a_10_mb_body_is_capped(
    tmp_path: Path, certificate: Certificate, declare_length: bool
) -> None:
    big = b'{"sha": "' + HEAD.encode() + b'", "pad": "' + b"x" * (10 << 20) + b'"}'
    reply = Reply(200, big, (("Content-Type", "application/json"),), declare_length)
    with serve(lambda seen, body: reply, certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert f"{1 << 20}-byte cap" in result.verdict.reason
    assert len(app.seen) == 1  # a cap is a definite answer: no retry


def test_url_outside_allowed_hosts_is_refused_before_any_request(
    tmp_path: Path, certificate: Certificate
) -> None:
    policy = _policy(tmp_path, certificate, allowed_hosts=["localhost"])
    with serve(lambda seen, body: _version(HEAD), certificate.server_context()) as app:
        result, clock = _verify(tmp_path, policy, app.url)
    assert app.seen == []
    assert clock.slept == []
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "refused before any request" in result.verdict.reason
    assert "not in the policy's allowed_hosts (localhost)" in result.verdict.reason


def test_allowed_host_with_another_port_is_refused(
    tmp_path: Path, certificate: Certificate
) -> None:
    policy = _policy(tmp_path, certificate, allowed_hosts=["127.0.0.1:1"])
    with serve(lambda seen, body: _version(HEAD), certificate.server_context()) as app:
        result, _ = _verify(tmp_path, policy, app.url)
    assert app.seen == []
    assert result.verdict.state is VerdictState.UNVERIFIED


def test_tls_is_verified_without_the_ca_bundle(tmp_path: Path, certificate: Certificate) -> None:
    policy = tmp_path / "no-ca.json"
    document = json.loads(_policy(tmp_path, certificate).read_text())
    del document["probes"]["ca_bundle"]
    policy.write_text(json.dumps(document))
    with serve(lambda seen, body: _version(HEAD), certificate.server_context()) as app:
        result, clock = _verify(tmp_path, policy, app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "certificate verification failed" in result.verdict.reason
    assert clock.slept == []  # a bad certificate does not get better by waiting


def test_header_and_body_assertions_with_short_sha(
    tmp_path: Path, certificate: Certificate
) -> None:
    probe = {
        "environment": "production",
        "path": "/",
        "assert": [
            {"header": "X-Release", "equals": "{short_sha}"},
            {"body_contains": "build {short_sha}"},
        ],
    }
    policy = _policy(tmp_path, certificate, endpoint_health=[probe])

    def handler(seen: Seen, body: bytes) -> Reply:
        return Reply(200, f"<p>build {HEAD[:7]}</p>".encode(), (("X-Release", HEAD[:7]),))

    with serve(handler, certificate.server_context()) as app:
        result, _ = _verify(tmp_path, policy, app.url)
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    assert result.verdict.items[0].evidence.observed_value == {
        "status": 200, "header:x-release": HEAD[:7], "body_contains": f"build {HEAD[:7]}",
    }

    def stale(seen: Seen, body: bytes) -> Reply:
        return Reply(200, f"<p>build {PREVIOUS[:7]}</p>".encode(), (("X-Release", PREVIOUS[:7]),))

    with serve(stale, certificate.server_context()) as app:
        result, _ = _verify(tmp_path, policy, app.url)
    assert result.verdict.state is VerdictState.REFUTED
    assert "body_contains: expected 'build 3f78685', observed nothing" in result.verdict.reason


def test_head_request_with_header_assertion(tmp_path: Path, certificate: Certificate) -> None:
    probe = {
        "environment": "production", "path": "/", "method": "HEAD", "status": 204,
        "assert": [{"header": "X-Release", "equals": "{sha}"}],
    }
    policy = _policy(tmp_path, certificate, endpoint_health=[probe])
    with serve(lambda seen, body: Reply(204, b"", (("X-Release", HEAD),)),
               certificate.server_context()) as app:
        result, _ = _verify(tmp_path, policy, app.url)
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    assert [seen.method for seen in app.seen] == ["HEAD"]


@pytest.mark.parametrize(
    ("suffix", "requested"),
    [("/app/", "/app/version"), ("/app?region=eu#top", "/app/version?region=eu"),
     ("?x=", "/version?x=")],
)
def test_the_path_joins_the_environment_urls_path_not_its_query(
    tmp_path: Path, certificate: Certificate, suffix: str, requested: str
) -> None:
    """Whoever posts the deployment status writes the environment URL; a '?' in it must not
    turn the policy's path into a query value on another page."""
    with serve(lambda seen, body: _version(HEAD), certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url + suffix)
    assert [seen.path for seen in app.seen] == [requested]
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason


def test_wrong_status_is_a_contradiction(tmp_path: Path, certificate: Certificate) -> None:
    with serve(lambda seen, body: Reply.json(404, {"sha": HEAD}),
               certificate.server_context()) as app:
        result, _ = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.REFUTED
    assert "status: expected 200, observed 404" in result.verdict.reason


def test_missing_environment_url_is_unverified(tmp_path: Path, certificate: Certificate) -> None:
    clock = FakeClock(at("2026-11-30T10:00:05Z"))
    options = VerifyOptions(
        claim=_claim(tmp_path), policy=_policy(tmp_path, certificate), probe=True,
        probe_context=ProbeContext(head_sha=HEAD),
    )
    result = run_verify(options, clock.now, ProbeIO(clock, clock.sleep, {}, HttpTransport()))
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "no environment URL for 'production'" in result.verdict.reason


def test_a_slow_server_times_out_and_is_unverified(
    tmp_path: Path, certificate: Certificate
) -> None:
    def slow(seen: Seen, body: bytes) -> Reply:
        time.sleep(1)
        return _version(HEAD)

    policy = _policy(
        tmp_path, certificate, timeout_s=0.2, retry={"window_s": 1, "backoff_s": 1},
    )
    with serve(slow, certificate.server_context()) as app:
        result, _ = _verify(tmp_path, policy, app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "no answer within the 0.2s timeout" in result.verdict.reason


def test_a_missing_ca_bundle_is_invalid_input(tmp_path: Path, certificate: Certificate) -> None:
    policy = _policy(tmp_path, certificate, ca_bundle=str(tmp_path / "nope.pem"))
    with pytest.raises(InvalidInput, match=r"/probes/ca_bundle: .*nope.pem is not a file"):
        _verify(tmp_path, policy, "https://127.0.0.1:1")


def test_a_ca_bundle_that_holds_no_certificate_is_invalid_input(
    tmp_path: Path, certificate: Certificate
) -> None:
    bundle = tmp_path / "not-a-bundle.pem"
    bundle.write_text("this is not a certificate\n")
    policy = _policy(tmp_path, certificate, ca_bundle=str(bundle))
    with pytest.raises(InvalidInput, match=r"/probes/ca_bundle: .*not-a-bundle.pem holds no"):
        _verify(tmp_path, policy, "https://127.0.0.1:1")


@pytest.fixture
def no_real_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard: the probe code must wait only through the injected sleep."""
    def refuse(seconds: float) -> None:
        raise AssertionError("real sleep called")

    monkeypatch.setattr("gate.evidence.probe.observe.time.sleep", refuse)


@pytest.mark.usefixtures("no_real_sleep")
def test_retries_use_only_the_injected_sleep(tmp_path: Path, certificate: Certificate) -> None:
    with serve(lambda seen, body: Reply(502, b""), certificate.server_context()) as app:
        result, clock = _verify(tmp_path, _policy(tmp_path, certificate), app.url)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert sum(clock.slept) <= 30
