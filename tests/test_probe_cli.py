"""The probe commands end to end: `verify --probe`, `probe --output`, secrets kept out."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.claim.schema import validator
from gate.evidence.probe.http import HttpTransport
from gate.evidence.probe.observe import ProbeIO
from gate.faces.cli import main
from tests.probe_support import (
    FakeClock,
    RecordsService,
    Reply,
    Seen,
    Server,
    at,
    records_service,
    serve,
)

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "cli-secret-Zz81-do-not-leak"
EXAMPLE_PORT = "127.0.0.1:8787"


@pytest.fixture
def records(tmp_path: Path) -> Iterator[tuple[RecordsService, Server]]:
    with records_service(tmp_path, TOKEN) as running:
        yield running


def _write(service: RecordsService, server: Server, zip_code: str) -> None:
    service(
        _seen("PUT", "/accounts/4471"), json.dumps({"billing_zip": zip_code}).encode()
    )


def _seen(method: str, path: str) -> Seen:
    return Seen(method, path, {"authorization": f"Bearer {TOKEN}"})


def _example_policy(tmp_path: Path, server: Server) -> Path:
    """examples/policy-readback.yml pointed at this test's port (the only change)."""
    text = (ROOT / "examples" / "policy-readback.yml").read_text()
    assert text.count(EXAMPLE_PORT) == 2
    path = tmp_path / "policy-readback.yml"
    path.write_text(text.replace(EXAMPLE_PORT, f"127.0.0.1:{server.port}"))
    return path


def _io(environ: dict[str, str]) -> tuple[ProbeIO, FakeClock]:
    clock = FakeClock(at("2026-08-27T18:04:05Z"))
    return ProbeIO(clock, clock.sleep, environ, HttpTransport()), clock


def _main(argv: list[str], probe_io: ProbeIO, clock: FakeClock) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, clock=clock, out=out, err=err, probe_io=probe_io)
    return code, out.getvalue(), err.getvalue()


def test_the_seed_example_verifies_end_to_end_in_a_subprocess(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    service, server = records
    _write(service, server, "94107")
    policy = _example_policy(tmp_path, server)
    env = {**os.environ, "CLAIM_GATE_RECORDS_TOKEN": TOKEN}
    completed = subprocess.run(
        [sys.executable, "-m", "gate", "verify", str(ROOT / "examples" / "claim.json"),
         "--policy", str(policy), "--probe"],
        capture_output=True, text=True, env=env, check=False, timeout=60,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.startswith("VERIFIED")
    assert TOKEN not in completed.stdout + completed.stderr
    assert server.seen[-1].headers["authorization"] == f"Bearer {TOKEN}"


def test_the_seed_example_is_refuted_when_the_record_disagrees(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    service, server = records
    _write(service, server, "10001")
    probe_io, clock = _io({"CLAIM_GATE_RECORDS_TOKEN": TOKEN})
    code, out, _ = _main(
        ["verify", str(ROOT / "examples" / "claim.json"), "--policy",
         str(_example_policy(tmp_path, server)), "--probe"], probe_io, clock,
    )
    assert code == 2
    assert out.startswith("REFUTED")
    assert "expected '94107', observed '10001'" in out


def _probe_seed_claim(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> tuple[Path, ProbeIO, FakeClock, str]:
    """Write 94107 to the records service, then `claim-gate probe` the seed claim:
    (records file, the probe IO and clock used, stdout)."""
    service, server = records
    _write(service, server, "94107")
    output = tmp_path / "evidence.json"
    probe_io, clock = _io({"CLAIM_GATE_RECORDS_TOKEN": TOKEN})
    code, out, err = _main(
        ["probe", str(ROOT / "examples" / "claim.json"), "--policy",
         str(_example_policy(tmp_path, server)), "--output", str(output)], probe_io, clock,
    )
    assert code == 0, err
    return output, probe_io, clock, out


def test_probe_writes_records_that_verify_reads_back(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    claim = str(ROOT / "examples" / "claim.json")
    output, probe_io, clock, out = _probe_seed_claim(tmp_path, records)
    assert "wrote 1 evidence record to" in out
    records_written = json.loads(output.read_text())
    check = validator("#/$defs/evidence")
    for record in records_written:
        check.validate(record)
    assert records_written[0]["observed_value"] == {"billing_zip": "94107"}
    assert records_written[0]["verifier"] == {"id": "claim-gate/probe@0.1.0",
                                              "kind": "independent"}
    code, out, err = _main(
        ["verify", claim, "--evidence", str(output)], probe_io, clock,
    )
    assert code == 0, out + err
    assert out.startswith("VERIFIED")


def test_a_failed_probe_record_reads_back_unverified_with_its_error(tmp_path: Path) -> None:
    service = RecordsService(tmp_path / "records.sqlite3", TOKEN)
    with serve(service) as server:
        policy = _example_policy(tmp_path, server)
    service.close()
    output = tmp_path / "evidence.json"
    probe_io, clock = _io({"CLAIM_GATE_RECORDS_TOKEN": TOKEN})
    claim = str(ROOT / "examples" / "claim.json")
    code, out, _ = _main(
        ["probe", claim, "--policy", str(policy), "--output", str(output)], probe_io, clock,
    )
    assert code == 0
    assert "no observation" in out
    assert "connection refused" in out
    record = json.loads(output.read_text())[0]
    validator("#/$defs/evidence").validate(record)
    assert "observed_value" not in record
    assert record["x-probe"]["code"] == "probe_failed"
    code, out, _ = _main(["verify", claim, "--evidence", str(output)], probe_io, clock)
    assert code == 1
    assert out.startswith("UNVERIFIED")
    assert "connection refused" in out


def test_verify_probe_without_a_probes_section_is_invalid_input(tmp_path: Path) -> None:
    policy = tmp_path / "plain.yml"
    policy.write_text("id: plain\n")
    probe_io, clock = _io({})
    code, _, err = _main(
        ["verify", str(ROOT / "examples" / "claim.json"), "--policy", str(policy), "--probe"],
        probe_io, clock,
    )
    assert code == 3
    assert "has no `probes` section" in err


def test_probe_with_nothing_to_probe_is_invalid_input(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    _, server = records
    document = json.loads((ROOT / "examples" / "claim.json").read_text())
    document["mutations"][0]["target"] = "invoices/9"
    document["evidence"] = []
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps(document))
    probe_io, clock = _io({"CLAIM_GATE_RECORDS_TOKEN": TOKEN})
    code, _, err = _main(
        ["probe", str(claim), "--policy", str(_example_policy(tmp_path, server)),
         "--output", str(tmp_path / "e.json")], probe_io, clock,
    )
    assert code == 3
    assert "no probe of this policy applies" in err
    assert not (tmp_path / "e.json").exists()


def test_bad_head_sha_and_environment_url_are_usage_errors(tmp_path: Path) -> None:
    probe_io, clock = _io({})
    claim = str(ROOT / "examples" / "claim.json")
    code, _, err = _main(["verify", claim, "--probe", "--head-sha", "main"], probe_io, clock)
    assert code == 3
    assert "is not a full commit id" in err
    code, _, err = _main(["verify", claim, "--environment-url", "production"], probe_io, clock)
    assert code == 3
    assert "is not NAME=URL" in err


def test_secrets_never_reach_output_records_or_logs(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A hostile service echoes the credential back everywhere it can."""
    caplog.set_level(logging.DEBUG)

    def echo(seen: Seen, body: bytes) -> Reply:
        secret = seen.headers.get("authorization", "")
        if seen.path.startswith("/accounts/"):
            return Reply.json(200, {"data": {"billing_zip": secret, "note": secret}},
                              ("X-Echo", secret))
        return Reply(302, b"", (("Location", f"https://elsewhere.example/{secret}"),))

    with serve(echo) as server:
        policy = _example_policy(tmp_path, server)
        probe_io, clock = _io({"CLAIM_GATE_RECORDS_TOKEN": TOKEN})
        claim = str(ROOT / "examples" / "claim.json")
        output = tmp_path / "evidence.json"
        outputs = []
        codes = []
        for argv in (
            ["verify", claim, "--policy", str(policy), "--probe", "--format", "json"],
            ["verify", claim, "--policy", str(policy), "--probe", "--format", "markdown"],
            ["verify", claim, "--policy", str(policy), "--probe"],
            ["probe", claim, "--policy", str(policy), "--output", str(output)],
        ):
            code, out, err = _main(argv, probe_io, clock)
            codes.append(code)
            outputs.append(out + err)
        redirected = tmp_path / "redirect.yml"
        redirected.write_text(policy.read_text().replace("/accounts/{id}", "/moved/{id}"))
        code, out, err = _main(
            ["verify", claim, "--policy", str(redirected), "--probe"], probe_io, clock
        )
        codes.append(code)
        outputs.append(out + err)
    assert codes == [2, 2, 2, 0, 1]  # the echoed value is not the claimed zip: refuted
    assert "refused a redirect" in outputs[-1]
    assert "[redacted]" in outputs[0]
    assert server.seen
    assert all(
        seen.headers["authorization"] == f"Bearer {TOKEN}" for seen in server.seen
    )
    haystack = "\n".join([*outputs, output.read_text(), caplog.text])
    assert TOKEN not in haystack
    assert TOKEN[:12] not in haystack


def test_probe_command_for_a_deploy_writes_the_head_sha_expectation(tmp_path: Path) -> None:
    head = "0123456789abcdef0123456789abcdef01234567"
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({
        "spec_version": "0.1",
        "task": {"id": "t", "description": "deploy"},
        "claimed_outcome": "Deployed.",
        "mutations": [{"id": "d1", "kind": "deploy", "target": "staging",
                       "at": "2026-08-27T18:04:00Z"}],
    }))
    policy = tmp_path / "policy.yml"
    policy.write_text(
        "id: d\nprobes:\n  allowed_hosts: ['127.0.0.1']\n  allow_http: true\n"
        "  endpoint_health:\n    - environment: staging\n      path: /version\n"
        "      assert: [{json_pointer: /sha, equals: '{sha}'}]\n"
    )
    output = tmp_path / "evidence.json"
    probe_io, clock = _io({})
    with serve(lambda seen, body: Reply.json(200, {"sha": head})) as app:
        code, _, err = _main(
            ["probe", str(claim), "--policy", str(policy), "--output", str(output),
             "--head-sha", head, "--environment-url", f"staging={app.url}/"], probe_io, clock,
        )
    assert code == 0, err
    assert [seen.path for seen in app.seen] == ["/version"]
    (record,) = json.loads(output.read_text())
    validator("#/$defs/evidence").validate(record)
    assert record["expected"] == {"status": 200, "json:/sha": head}
    assert record["observed_value"] == {"status": 200, "json:/sha": head}
    assert record["covers"] == ["d1"]
    assert record["target"] == "staging"
    code, out, _ = _main(["verify", str(claim), "--evidence", str(output)], probe_io, clock)
    assert code == 0, out


def test_a_probe_record_made_for_another_claim_does_not_count(
    tmp_path: Path, records: tuple[RecordsService, Server]
) -> None:
    """The readback's expectation came from claim A; it says nothing about claim B."""
    output, probe_io, clock, _ = _probe_seed_claim(tmp_path, records)
    document = json.loads((ROOT / "examples" / "claim.json").read_text())
    document["claimed_outcome"] = "Updated the billing address on account 4471 to 10001."
    document["mutations"][0]["x-intended"] = {"billing_zip": "10001"}
    claim_b = tmp_path / "claim-b.json"
    claim_b.write_text(json.dumps(document))
    code, out, _ = _main(["verify", str(claim_b), "--evidence", str(output)], probe_io, clock)
    assert code == 1
    assert "[probe_other_claim]" in out
    assert "made for another claim document" in out
