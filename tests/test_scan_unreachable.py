"""Issue 24 item 9: `scan` with no route to GitHub fails at once, in one line.

It used to retry silently for 31 s and print urllib3's `HTTPSConnectionPool(...) Max retries
exceeded ...`, with nothing on stdout in JSON mode. A real closed loopback port and a name
that cannot resolve (`.invalid`, RFC 6761); beside them, the stand-in answering (control)."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta

import pytest

from gate.faces.cli import main
from tests.action_support import REPO, T0, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.github_standin.plugin import GITHUB_TOKEN
from tests.tampering_support import env

FEW_SECONDS = 10.0  # the machine is shared; the old behaviour took 31 s


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends


def _scan(api_url: str, *more: str, clock: datetime = T0) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    started = time.monotonic()
    code = main(["scan", f"{REPO}#1", "--api-url", api_url, *more], clock=lambda: clock,
                out=out, err=err)
    return code, out.getvalue(), err.getvalue(), time.monotonic() - started


def test_a_closed_port_is_one_line_at_once(github_hub: Hub) -> None:
    port = _closed_port()
    code, out, err, took = _scan(f"http://127.0.0.1:{port}/api/v3")
    assert code == 4
    assert took < FEW_SECONDS
    last = err.strip().splitlines()[-1]
    assert last == (f"claim-gate: could not decide: cannot reach 127.0.0.1:{port}:"
                    " the connection was refused"), err
    assert "Max retries" not in err
    assert out == ""


def test_in_json_mode_stdout_holds_the_error(github_hub: Hub) -> None:
    port = _closed_port()
    code, out, _err, _took = _scan(f"http://127.0.0.1:{port}/api/v3", "--format", "json")
    assert code == 4
    assert json.loads(out) == {
        "error": {"kind": "could_not_decide", "exit_code": 4,
                  "message": f"cannot reach 127.0.0.1:{port}: the connection was refused"},
        "posted": False,
    }


def test_a_name_that_does_not_resolve_is_one_line_at_once() -> None:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "gate", "scan", "octo/app#1", "--api-url",
         "https://nonexistent.invalid/api/v3", "--format", "json"],
        env=env(), capture_output=True, text=True, check=False, timeout=120,
    )
    took = time.monotonic() - started
    assert result.returncode == 4, result.stderr
    assert took < FEW_SECONDS + 10  # a new interpreter starts first
    error = json.loads(result.stdout)["error"]
    assert error["message"].startswith("cannot reach nonexistent.invalid: the name does not"
                                       " resolve"), error
    last = result.stderr.strip().splitlines()[-1]
    assert last == f"claim-gate: could not decide: {error['message']}"


def test_the_control_the_stand_in_answers(
    github_hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GH_TOKEN", GITHUB_TOKEN)
    s = scenario(github_hub, claim_json([edit(at=T0 - timedelta(minutes=3))]))
    s.add_run(junit_xml(passed=5))
    code, out, err, _took = _scan(github_hub.api_url, "--artifact-name", "junit-*",
                                  "--format", "json", clock=T0 + timedelta(hours=1))
    assert (code, json.loads(out)["verdict"]) == (0, "verified"), err
