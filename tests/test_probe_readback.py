"""state_readback probes against a real SQLite-backed system of record on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.model import CheckType, VerdictState
from gate.evidence.probe.http import HttpTransport
from gate.evidence.probe.observe import PROBE_VERIFIER_ID, ProbeIO
from gate.pipeline import VerifyOptions, VerifyResult, run_verify
from tests.probe_support import FakeClock, RecordsService, Server, at, records_service, serve

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "rb-secret-7Qx9-never-print-me"
WRITTEN_AT = "2026-08-27T18:04:02Z"


@pytest.fixture
def records(tmp_path: Path) -> Iterator[tuple[RecordsService, Server]]:
    with records_service(tmp_path, TOKEN) as running:
        yield running


def _call(server: Server, method: str, path: str, fields: dict[str, Any] | None = None) -> Any:
    """A client of the records service (the agent's side of the write), over real HTTP."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        body = None if fields is None else json.dumps(fields)
        connection.request(method, path, body=body, headers={"Authorization": f"Bearer {TOKEN}"})
        response = connection.getresponse()
        assert response.status == 200
        return json.loads(response.read())
    finally:
        connection.close()


def _put(server: Server, path: str, fields: dict[str, Any]) -> None:
    _call(server, "PUT", path, fields)


def _get(server: Server, path: str) -> Any:
    return _call(server, "GET", path)


def _policy(tmp_path: Path, server: Server, **readback: Any) -> Path:
    probe = {
        "target": "accounts/{id}",
        "url": f"{server.url}/accounts/{{id}}",
        "headers": {"Authorization": {"env": "RECORDS_TOKEN", "prefix": "Bearer "}},
        "record": "/data",
        "fields": ["billing_zip"],
        **readback,
    }
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({
        "id": "readback",
        "requires": ["state_readback"],
        "probes": {
            "allowed_hosts": ["127.0.0.1"],
            "allow_http": True,
            "retry": {"window_s": 10, "backoff_s": 1},
            "state_readback": [probe],
        },
    }))
    return path


def _seed_claim(tmp_path: Path, **mutation: Any) -> Path:
    document = json.loads((ROOT / "examples" / "claim.json").read_text())
    document["mutations"][0].update(mutation)
    path = tmp_path / "claim.json"
    path.write_text(json.dumps(document))
    return path


def _verify(
    tmp_path: Path, policy: Path, claim: Path | None = None, environ: dict[str, str] | None = None
) -> VerifyResult:
    clock = FakeClock(at("2026-08-27T18:04:05Z"))
    io = ProbeIO(clock, clock.sleep, {"RECORDS_TOKEN": TOKEN} if environ is None else environ,
                 HttpTransport())
    options = VerifyOptions(claim=claim or _seed_claim(tmp_path), policy=policy, probe=True,
                            format="json")
    return run_verify(options, clock.now, io)


def test_readback_matching_the_claim_verifies(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    _put(server, "/accounts/4471", {"billing_zip": "94107", "name": "Ada"})
    result = _verify(tmp_path, _policy(tmp_path, server))
    assert result.verdict.state is VerdictState.VERIFIED, result.verdict.reason
    probe = result.verdict.items[-1]
    assert probe.evidence.check_type is CheckType.STATE_READBACK
    assert probe.evidence.verifier.id == PROBE_VERIFIER_ID
    assert probe.evidence.covers == ("m1",)
    assert probe.evidence.target == "accounts/4471"
    assert probe.evidence.expected == {"billing_zip": "94107"}
    assert probe.evidence.observed_value == {"billing_zip": "94107"}
    # The agent's own readback is in the record, judged self-attested; the gate's counted.
    assessments = result.verdict.assessments
    assert not assessments[0].counts
    assert assessments[-1].supports == ("m1",)
    assert server.seen[-1].path == "/accounts/4471"


def test_a_write_that_went_only_to_the_cache_is_refuted(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    _put(server, "/accounts/4471", {"billing_zip": "10001"})
    _put(server, "/cache/accounts/4471", {"billing_zip": "94107"})
    assert _get(server, "/cache/accounts/4471")["data"]["billing_zip"] == "94107"  # cache lies
    result = _verify(tmp_path, _policy(tmp_path, server))
    assert result.verdict.state is VerdictState.REFUTED
    assert "billing_zip: expected '94107', observed '10001'" in result.verdict.reason


def test_reading_the_lagging_cache_instead_would_have_been_fooled(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    """Why the policy names the system of record: the cache still says what it said."""
    _, server = records
    _put(server, "/accounts/4471", {"billing_zip": "10001"})
    assert _get(server, "/cache/accounts/4471")["data"]["billing_zip"] == "10001"
    _put(server, "/accounts/4471", {"billing_zip": "94107"})
    policy = _policy(tmp_path, server, url=f"{server.url}/cache/accounts/{{id}}")
    assert _verify(tmp_path, policy).verdict.state is VerdictState.REFUTED  # stale cache
    assert _verify(tmp_path, _policy(tmp_path, server)).verdict.state is VerdictState.VERIFIED


def test_a_missing_record_is_refuted_with_the_observed_absence(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    result = _verify(tmp_path, _policy(tmp_path, server))
    assert result.verdict.state is VerdictState.REFUTED
    assert "billing_zip: expected '94107', observed nothing (field absent)" in result.verdict.reason
    probe = result.verdict.items[-1].evidence
    assert probe.observed_value == {}
    assert probe.extensions["x-probe"]["record"] == "absent"
    assert probe.extensions["x-probe"]["status"] == 404


def test_service_down_is_unverified_with_the_error(tmp_path: Path) -> None:
    service = RecordsService(tmp_path / "records.sqlite3", TOKEN)
    with serve(service) as server:
        policy = _policy(tmp_path, server)
    service.close()
    result = _verify(tmp_path, policy)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "connection refused" in result.verdict.reason
    assert "10s retry window" in result.verdict.reason


def test_wrong_credentials_are_unverified_not_refuted(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    _put(server, "/accounts/4471", {"billing_zip": "10001"})
    result = _verify(tmp_path, _policy(tmp_path, server), environ={"RECORDS_TOKEN": "wrong"})
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "the system of record answered 401" in result.verdict.reason


def test_x_intended_on_the_mutation_is_the_expectation(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    _put(server, "/accounts/4471", {"billing_zip": "94107"})
    claim = _seed_claim(tmp_path, **{"x-intended": {"billing_zip": "02139"}})
    result = _verify(tmp_path, _policy(tmp_path, server), claim)
    assert result.verdict.state is VerdictState.REFUTED
    assert "expected '02139', observed '94107'" in result.verdict.reason


def test_a_claim_with_nothing_to_compare_is_unverified(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    _put(server, "/accounts/4471", {"billing_zip": "94107"})
    document = json.loads(_seed_claim(tmp_path).read_text())
    document["evidence"] = []
    claim = tmp_path / "bare.json"
    claim.write_text(json.dumps(document))
    result = _verify(tmp_path, _policy(tmp_path, server), claim)
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert "the claim states no intended value for accounts/4471" in result.verdict.reason
    assert server.seen[-1].method == "PUT"  # no readback was made


def test_target_values_are_escaped_into_one_path_segment(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    claim = _seed_claim(tmp_path, target="accounts/4471?x=1#@evil.example")
    document = json.loads(claim.read_text())
    document["evidence"][0]["target"] = "accounts/4471?x=1#@evil.example"
    claim.write_text(json.dumps(document))
    result = _verify(tmp_path, _policy(tmp_path, server), claim)
    assert server.seen[-1].path == "/accounts/4471%3Fx%3D1%23%40evil.example"
    assert result.verdict.state is VerdictState.REFUTED  # no such record


def test_a_missing_secret_variable_is_invalid_input_naming_it(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    with pytest.raises(InvalidInput, match="RECORDS_TOKEN is not set"):
        _verify(tmp_path, _policy(tmp_path, server), environ={})
    assert server.seen == []


@pytest.mark.parametrize(
    "value", [TOKEN + "\n", TOKEN + "\r\nX-Injected: 1", TOKEN + "€"],
    ids=["newline", "crlf", "beyond-latin-1"],
)
def test_a_secret_that_cannot_be_a_header_is_invalid_input_without_its_value(
    tmp_path: Path, records: tuple[RecordsService, Server], value: str
) -> None:
    """http.client's own error quotes the header value, secret and all; the gate refuses it
    first and names the variable only."""
    _, server = records
    with pytest.raises(InvalidInput, match="RECORDS_TOKEN cannot be sent") as caught:
        _verify(tmp_path, _policy(tmp_path, server), environ={"RECORDS_TOKEN": value})
    assert TOKEN not in str(caught.value)
    assert server.seen == []


def test_a_claim_asking_for_more_readbacks_than_max_probes_is_cut_off(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    """A claim names its targets: 5 writes with max_probes 2 make 2 requests, not 5."""
    _, server = records
    document = json.loads((ROOT / "examples" / "claim.json").read_text())
    document["mutations"] = [
        {"id": f"m{i}", "kind": "state_write", "target": f"accounts/{4470 + i}",
         "at": "2026-08-27T18:04:02Z", "x-intended": {"billing_zip": "94107"}}
        for i in range(5)
    ]
    document["evidence"] = []
    claim = tmp_path / "many.json"
    claim.write_text(json.dumps(document))
    for i in range(5):
        _put(server, f"/accounts/{4470 + i}", {"billing_zip": "94107"})
    before = len(server.seen)
    policy = json.loads(_policy(tmp_path, server).read_text())
    policy["probes"]["max_probes"] = 2
    capped = tmp_path / "capped.json"
    capped.write_text(json.dumps(policy))
    result = _verify(tmp_path, capped, claim)
    assert len(server.seen) - before == 2
    assert result.verdict.state is VerdictState.UNVERIFIED
    assert sum("over the policy's max_probes (2)" in u.message for u in result.verdict.unmet) == 3
