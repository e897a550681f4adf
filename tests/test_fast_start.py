"""Each subcommand imports only what it uses (issue 23): guarded by the modules a fresh
interpreter holds after the command ran, not by timing (timings flake on shared machines;
bench figures are in docs/benchmarks.md).

A library that is not imported costs nothing at start: PyGithub (and requests, urllib3, jwt)
only for the Action and `scan`; cryptography only to sign or check an attestation; lxml only
when JUnit is read; jsonschema only to explain an invalid document (a valid one is answered
by the compiled check); PyYAML only for a YAML policy; http.client and ssl only for probes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.junit_files import passing

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "claim.json"
LIBRARIES = ("github", "requests", "urllib3", "jwt", "nacl", "cryptography", "lxml",
             "jsonschema", "referencing", "yaml", "http", "ssl", "socket", "email")

#: The gate's own collectors a command may not need: JUnit files, the branch's change.
COLLECTORS = ("gate.evidence.junit", "gate.evidence.junit_reader", "gate.evidence.branch_changes",
              "gate.evidence.git_change_reading", "gate.evidence.change_reach")

_PROBE = """
import contextlib, io, json, sys
from gate.faces.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(LIBRARIES))
collectors = sorted(set(sys.modules) & set(COLLECTORS))
print(json.dumps({"code": code, "loaded": loaded, "collectors": collectors}))
""".replace("LIBRARIES", repr(LIBRARIES)).replace("COLLECTORS", repr(COLLECTORS))


def probe(*argv: str) -> dict[str, object]:
    """What `claim-gate ARGV` left loaded in a fresh process, and its exit code."""
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True,
                          text=True, check=True, cwd=ROOT)
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def loaded_after(*argv: str) -> tuple[int, set[str]]:
    """(exit code, the listed libraries loaded) after `claim-gate ARGV` in a fresh process."""
    result = probe(*argv)
    code, loaded = result["code"], result["loaded"]
    assert isinstance(code, int)
    assert isinstance(loaded, list)
    return code, set(loaded)


def test_verifying_a_claim_from_its_file_loads_no_junit_or_change_collector(
    tmp_path: Path,
) -> None:
    """The collectors of JUnit files and of the branch's change come with their options only;
    the control: --junit loads the JUnit reader (and still not the change's)."""
    plain = probe("verify", str(EXAMPLE), "--now", "2026-08-27T18:05:00Z")
    assert plain["code"] == 1
    assert plain["collectors"] == []
    report = passing(tmp_path / "junit.xml")
    with_junit = probe("verify", str(EXAMPLE), "--now", "2026-08-27T18:05:00Z",
                       "--junit", str(report))
    assert with_junit["collectors"] == ["gate.evidence.junit", "gate.evidence.junit_reader"]


@pytest.mark.parametrize("argv", [
    ("--help",), ("verify", "--help"), ("scan", "--help"), ("--version",), ("schema",),
])
def test_help_and_the_schema_import_none_of_the_libraries(argv: tuple[str, ...]) -> None:
    _code, loaded = loaded_after(*argv)
    assert loaded == set()


def test_verifying_a_valid_claim_needs_no_parser_library_no_github_no_signing() -> None:
    code, loaded = loaded_after("verify", str(EXAMPLE), "--now", "2026-08-27T18:05:00Z",
                                "--trusted-verifier", "gitreal-gate/*")
    assert code == 0  # verified: the whole pipeline ran
    assert loaded == set()


def test_verifying_with_json_output_and_a_json_policy(tmp_path: Path) -> None:
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"id": "p", "requires": ["state_readback"]}))
    code, loaded = loaded_after("verify", str(EXAMPLE), "--now", "2026-08-27T18:05:00Z",
                                "--format", "json", "--policy", str(policy))
    assert code == 1  # unverified (self-attested), decided
    assert loaded == {"jsonschema", "referencing"}  # the operator's policy is validated


def test_an_invalid_claim_is_explained_by_jsonschema(tmp_path: Path) -> None:
    """The control: the probe does see a library a command imports."""
    claim = json.loads(EXAMPLE.read_text())
    claim["mutations"][0]["kind"] = ""
    path = tmp_path / "claim.json"
    path.write_text(json.dumps(claim))
    code, loaded = loaded_after("verify", str(path))
    assert code == 3
    assert "jsonschema" in loaded
    assert not loaded & {"github", "lxml", "cryptography", "yaml"}


def test_junit_loads_lxml_and_nothing_of_github_or_signing(tmp_path: Path) -> None:
    report = passing(tmp_path / "junit.xml")
    code, loaded = loaded_after("junit", str(report))
    assert code == 0
    assert "lxml" in loaded
    assert not loaded & {"github", "requests", "cryptography", "jsonschema", "yaml"}


def test_a_yaml_policy_loads_yaml_and_scan_loads_github(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("id: p\nrequires: [state_readback]\n")
    _code, loaded = loaded_after("verify", str(EXAMPLE), "--policy", str(policy))
    assert "yaml" in loaded
    assert not loaded & {"github", "cryptography", "lxml"}
    _code, loaded = loaded_after("scan", "not a reference")
    assert "github" in loaded
