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

#: Every module of the gate a claim verified from its file may load: the parser and its option
#: modules, the loader and the compiled schema check, the default policy's sections, the
#: engine, the records collector, the text report. The rest is imported where it is used
#: (issue 23): a module new on this path is added here on purpose, or imported later.
VERIFY_MODULES = frozenset({
    "gate", "gate.claim", "gate.claim.claim_rules", "gate.claim.codec", "gate.claim.commit",
    "gate.claim.diff_facts", "gate.claim.errors", "gate.claim.facts", "gate.claim.fail_to_pass",
    "gate.claim.jsondoc", "gate.claim.jsonpos", "gate.claim.junit_options", "gate.claim.limits",
    "gate.claim.loader", "gate.claim.model", "gate.claim.policy", "gate.claim.regular_file",
    "gate.claim.schema", "gate.claim.schema_check", "gate.claim.subject", "gate.claim.test_job",
    "gate.claim.timefmt", "gate.claim.trust_policy", "gate.claim.watched_internals",
    "gate.claim.wording",
    "gate.engine", "gate.engine.agent_time", "gate.engine.base_tip", "gate.engine.binding",
    "gate.engine.bound_targets", "gate.engine.chain_parts", "gate.engine.change_reach",
    "gate.engine.commit_order", "gate.engine.completeness", "gate.engine.decide",
    "gate.engine.diff_coverage", "gate.engine.fail_to_pass", "gate.engine.handed_on",
    "gate.engine.override", "gate.engine.provenance", "gate.engine.readings",
    "gate.engine.removed_tests",
    "gate.engine.results", "gate.engine.run_binding", "gate.engine.test_counts",
    "gate.engine.trust",
    "gate.evidence", "gate.evidence.commit_binding", "gate.evidence.git_claim",
    "gate.evidence.interface",
    "gate.evidence.operator_records", "gate.evidence.probe", "gate.evidence.probe.context",
    "gate.evidence.probe.records", "gate.evidence.producer_inventory",
    "gate.faces", "gate.faces.action", "gate.faces.action.input_table", "gate.faces.arguments",
    "gate.faces.attestation_arguments", "gate.faces.attestation_check_arguments",
    "gate.faces.attestation_output", "gate.faces.base_code_arguments",
    "gate.faces.claim_arguments", "gate.faces.cli", "gate.faces.gc_pause", "gate.faces.parser",
    "gate.faces.probe_arguments", "gate.faces.probe_command", "gate.faces.scan_arguments",
    "gate.faces.verify_command", "gate.faces.verify_git_arguments",
    "gate.pipeline", "gate.report", "gate.report.renderers", "gate.report.text",
    "gate.report.untrusted",
})

#: What that path used to load and no longer does, each with what needs it (named, so a
#: failure says which one came back): the other collectors' fact types, the probe room, the
#: policy parser, the review facts, the attestation writer, the plugin's record, git, the
#: JUnit summary.
NOT_FOR_A_CLAIM_FILE = (
    "gate.claim.github_facts", "gate.claim.junit_facts", "gate.claim.ci_facts",
    "gate.claim.change_facts", "gate.claim.changed_paths",  # GitHub, JUnit, the change
    "gate.claim.probe_settings", "gate.claim.probe_policy", "gate.evidence.probe.observe",
    "gate.evidence.probe.fetch", "gate.evidence.probe.http",  # --probe, a policy's probes
    "gate.claim.policy_parse",  # --policy
    "gate.claim.review_facts", "gate.claim.agents",  # acceptances (the Action)
    "gate.report.attestation", "gate.report.record",  # --attestation, --format json
    "gate.evidence.pytest_record",  # the plugin's tree state
    "gate.evidence.git_probe", "gate.evidence.git_diff",  # --head-sha, --diff-base (git)
    "gate.report.junit_summary",  # --junit
)

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
gate = sorted(name for name in sys.modules if name == "gate" or name.startswith("gate."))
print(json.dumps({"code": code, "loaded": loaded, "collectors": collectors, "gate": gate}))
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
    junit_path = with_junit["gate"]
    assert isinstance(junit_path, list)  # the JUnit summary comes back with the JUnit read
    assert {"gate.claim.junit_facts", "gate.report.junit_summary"} <= set(junit_path)


@pytest.mark.parametrize("argv", [
    ("--help",), ("verify", "--help"), ("scan", "--help"), ("--version",), ("schema",),
])
def test_help_and_the_schema_import_none_of_the_libraries(argv: tuple[str, ...]) -> None:
    _code, loaded = loaded_after(*argv)
    assert loaded == set()


def test_verifying_a_valid_claim_needs_no_parser_library_no_github_no_signing() -> None:
    """And of the gate's own modules only the verify path's (VERIFY_MODULES): the fact types
    of the other collectors, the probes and the policy parser are imported when used."""
    result = probe("verify", str(EXAMPLE), "--now", "2026-08-27T18:05:00Z",
                   "--trusted-verifier", "gitreal-gate/*")
    assert result["code"] == 0  # verified: the whole pipeline ran
    assert result["loaded"] == []
    gate = result["gate"]
    assert isinstance(gate, list)
    assert sorted(set(gate) - VERIFY_MODULES) == []
    assert sorted(set(gate) & set(NOT_FOR_A_CLAIM_FILE)) == []
    assert "gate.engine.decide" in gate  # the control: the probe lists the gate's modules


def test_verifying_with_json_output_and_a_json_policy(tmp_path: Path) -> None:
    """A policy file brings its parser and its sections' types (probes among them); json
    output its record writer: what the claim file alone never loads, found when used."""
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"id": "p", "requires": ["state_readback"]}))
    result = probe("verify", str(EXAMPLE), "--now", "2026-08-27T18:05:00Z",
                   "--format", "json", "--policy", str(policy))
    assert result["code"] == 1  # unverified (self-attested), decided
    # the operator's policy is validated
    assert result["loaded"] == ["jsonschema", "referencing"]
    gate = result["gate"]
    assert isinstance(gate, list)
    assert {"gate.claim.policy_parse", "gate.claim.probe_settings",
            "gate.report.record"} <= set(gate)
    assert "gate.evidence.probe.observe" not in gate  # no --probe: nothing probes


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
