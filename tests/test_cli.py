"""`claim-gate` end to end through `main()`, and once as a real subprocess."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from gate import __version__
from gate.claim.schema import validator
from gate.faces.cli import EXIT_CODES_HELP, main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "claim.json"
NOW = "2026-08-27T18:04:10Z"


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_seed_example_verifies_with_its_verifier_trusted() -> None:
    code, out, _ = run_cli("verify", str(EXAMPLE), "--trusted-verifier", "gitreal-gate/*",
                           "--now", NOW)
    assert code == 0
    assert out.startswith("VERIFIED")


def test_seed_example_is_unverified_without_trust_because_self_attested() -> None:
    code, out, _ = run_cli("verify", str(EXAMPLE), "--now", NOW)
    assert code == 1
    assert out.startswith("UNVERIFIED")
    assert "[untrusted_verifier] mutation m1" in out
    assert "self-attested" in out


def test_json_output_is_a_completed_claim_valid_against_the_schema() -> None:
    code, out, _ = run_cli("verify", str(EXAMPLE), "--now", NOW, "--format", "json")
    record = json.loads(out)
    validator("#/$defs/completed").validate(record)
    assert code == 1
    assert record["verdict"]["state"] == "unverified"
    assert record["verdict"]["x-decided-by"] == f"claim-gate/{__version__}"
    assert record["verdict"]["x-policy"]["sha256"] == record["policy"]["x-sha256"]
    evidence = record["evidence"][0]
    assert evidence["verifier"] == {
        "id": "gitreal-gate/0.3", "kind": "self_attested", "x-claimed-kind": "independent"
    }
    assert evidence["x-claim-gate"]["problem"]["code"] == "untrusted_verifier"
    assert record["claimed_outcome"] == "Updated the billing address on account 4471."


def test_markdown_output_has_the_mutation_table_and_policy() -> None:
    code, out, _ = run_cli("verify", str(EXAMPLE), "--now", NOW, "--format", "markdown")
    assert code == 1
    assert "## Completion claim: ⚠️ unverified" in out
    row = "| `m1` | state_write | accounts/4471 | 2026-08-27T18:04:02Z | `untrusted_verifier` |"
    assert row in out
    assert "Policy `claim-gate-default+claim`" in out


def test_output_file(tmp_path: Path) -> None:
    target = tmp_path / "verdict.json"
    code, out, _ = run_cli("verify", str(EXAMPLE), "--now", NOW, "--format", "json",
                           "--output", str(target))
    assert code == 1
    assert out == ""
    assert json.loads(target.read_text("utf-8"))["verdict"]["state"] == "unverified"


def test_unwritable_output_is_invalid_input_naming_the_path(tmp_path: Path) -> None:
    # Issue 13 item 5: the verdict was decided; the path is the operator's to fix (exit 3).
    target = tmp_path / "no" / "x.json"
    code, _, err = run_cli("verify", str(EXAMPLE), "--output", str(target))
    assert code == 3
    assert f"{target}: cannot write the output" in err
    assert "the verdict was decided (unverified)" in err


def test_with_output_one_line_naming_the_verdict_goes_to_stderr(tmp_path: Path) -> None:
    target = tmp_path / "verdict.json"
    code, out, err = run_cli("verify", str(EXAMPLE), "--format", "json", "--output", str(target),
                             "--now", NOW)
    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"claim-gate: UNVERIFIED (2 unmet items); json output written to {target}"]
    assert json.loads(target.read_text("utf-8"))["verdict"]["state"] == "unverified"


def test_probe_with_a_fixed_now_is_refused() -> None:
    code, _, err = run_cli("verify", str(EXAMPLE), "--probe", "--now", "2026-08-27T18:04:10Z")
    assert code == 3
    assert "--now cannot be given with --probe" in err


def test_help_shows_the_format_default_and_probe_lists_exit_codes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in ("verify", "probe"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
    shown = capsys.readouterr().out
    assert "output format (default: text)" in shown
    assert "exit codes:" in shown.split("usage: claim-gate probe", 1)[1]


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def readback(at: str, zip_code: str = "94107", kind: str = "independent") -> dict[str, object]:
    return {
        "check_type": "state_readback", "target": "accounts/4471",
        "expected": {"billing_zip": "94107"}, "observed_value": {"billing_zip": zip_code},
        "at": at, "covers": ["m1"], "verifier": {"id": "records-reader/2", "kind": kind},
    }


def test_operator_evidence_keeps_its_kind(tmp_path: Path) -> None:
    records = write_json(tmp_path / "ev.json", [readback("2026-08-27T18:04:08Z")])
    code, out, _ = run_cli("verify", str(EXAMPLE), "--evidence", str(records), "--now", NOW)
    assert code == 0, out


def test_operator_evidence_contradiction_refutes(tmp_path: Path) -> None:
    records = write_json(tmp_path / "ev.json", readback("2026-08-27T18:04:08Z", "10001"))
    code, out, _ = run_cli("verify", str(EXAMPLE), "--evidence", str(records), "--now", NOW)
    assert code == 2
    assert "[contradicted]" in out


def test_self_attested_operator_evidence_stays_self_attested(tmp_path: Path) -> None:
    record = readback("2026-08-27T18:04:08Z", kind="self_attested")
    records = write_json(tmp_path / "ev.json", record)
    code, _, _ = run_cli("verify", str(EXAMPLE), "--evidence", str(records), "--now", NOW)
    assert code == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[]", "holds no records"),
        ('{"check_type": "test_run"}', "is required here"),
        (json.dumps(readback("2026-08-27T18:04:08")), "no time zone"),
        ("[1", "not valid JSON"),
    ],
)
def test_bad_evidence_files_exit_3(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "ev.json"
    path.write_text(content, encoding="utf-8")
    code, _, err = run_cli("verify", str(EXAMPLE), "--evidence", str(path))
    assert code == 3
    assert str(path) in err
    assert expected in err


def test_a_missing_evidence_file_says_so_once(tmp_path: Path) -> None:
    code, _, err = run_cli("verify", str(EXAMPLE), "--evidence", str(tmp_path / "nope.json"))
    assert code == 3
    assert "no such evidence file (check the path)" in err


def test_policy_file_in_yaml(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("id: ops\nrequires: [state_readback, endpoint_health]\nmax_age_s: 60\n"
                      "trusted_verifiers: ['gitreal-gate/*']\n", encoding="utf-8")
    code, out, _ = run_cli("verify", str(EXAMPLE), "--policy", str(policy), "--now", NOW)
    assert code == 1
    assert "policy 'ops+claim'" not in out  # the claim's policy adds nothing stricter
    assert "policy 'ops' from" in out
    assert "the policy requires endpoint_health" in out


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("requires: [test_run]\n", "'id' is a required property"),
        ("id: x\nrequire: [test_run]\n", "misspelt key"),
        ("id: x\nrequires: [smoke]\n", "/requires/0"),
        ("id: x\nmax_age_s: -1\n", "/max_age_s"),
        ("id: &a x\nother: *a\n", "aliases are not accepted"),
        ("id: [unclosed\n", "not valid YAML"),
        ("- a list\n", "must be a mapping"),
        # YAML can say what JSON cannot; the policy is JSON-shaped (it has a JSON digest).
        ("id: x\n1: one\n", "/1: a key must be text"),
        ("id: x\n~: none\n", "/None: a key must be text"),
        ("id: x\n2024-01-01: day\n", "a key must be text"),
        ("id: x\nrequired_tests: [a]\nx-when: {at: 2024-01-01}\n", "/x-when/at: a date"),
        ("id: x\nprobes: {allowed_hosts: [h], endpoint_health: [{environment: p, url:"
         " 'https://h/v', assert: [{json_pointer: /d, equals: 2024-01-01}]}]}\n",
         "/probes/endpoint_health/0/assert/0/equals: a date"),
        ("id: x\nx-n: .nan\n", "/x-n: nan is not a JSON number"),
        ('id: "\\ud800"\n', "/id: a lone surrogate"),
    ],
)
def test_bad_policies_exit_3(tmp_path: Path, content: str, expected: str) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text(content, encoding="utf-8")
    code, _, err = run_cli("verify", str(EXAMPLE), "--policy", str(policy))
    assert code == 3
    assert str(policy) in err
    assert expected in err


@pytest.mark.parametrize("depth", [70, 5000], ids=["deeper-than-json-allows", "recursion-deep"])
def test_a_deeply_nested_yaml_policy_exits_3(tmp_path: Path, depth: int) -> None:
    policy = tmp_path / "policy.yml"
    policy.write_text("id: x\nx-deep: " + "[" * depth + "]" * depth + "\n", encoding="utf-8")
    code, _, err = run_cli("verify", str(EXAMPLE), "--policy", str(policy))
    assert code == 3
    assert f"{policy}: the policy is nested" in err


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["verify"],
        ["verify", str(EXAMPLE), "--format", "yaml"],
        ["verify", str(EXAMPLE), "--now", "2026-08-27T18:04:10"],
        ["verify", str(EXAMPLE), "--max-claim-bytes", "0"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_3_not_2(argv: list[str]) -> None:
    code, out, err = run_cli(*argv)
    assert code == 3
    assert out == ""
    assert err


def test_max_claim_bytes_is_applied() -> None:
    code, _, err = run_cli("verify", str(EXAMPLE), "--max-claim-bytes", "64")
    assert code == 3
    assert "64-byte limit" in err


def test_an_internal_error_is_a_definite_non_passing_exit(mocker: MockerFixture) -> None:
    mocker.patch("gate.pipeline.decide", side_effect=RuntimeError("boom"))
    code, _, err = run_cli("verify", str(EXAMPLE))
    assert code == 4
    assert "internal error RuntimeError: boom" in err
    assert "Traceback" not in err


def test_schema_command_prints_the_shipped_schema() -> None:
    code, out, _ = run_cli("schema")
    assert code == 0
    assert json.loads(out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["verify", "--help"])
    assert done.value.code == 0
    assert EXIT_CODES_HELP in capsys.readouterr().out


def test_readme_exit_codes_match_the_help() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    for line in EXIT_CODES_HELP.splitlines()[1:]:
        number, meaning = line.strip().split(None, 1)
        assert f"| {number} | {meaning.split(':')[0]} |" in readme, line


def test_version_and_module_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gate", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"claim-gate {__version__}"


def test_console_script_runs_the_seed_example() -> None:
    result = subprocess.run(
        ["claim-gate", "verify", str(EXAMPLE), "--trusted-verifier", "gitreal-gate/*",
         "--now", NOW], capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("command", ["verify", "junit", "probe"])
def test_readme_synopsis_names_every_option_of_the_help(command: str) -> None:
    """The README tells the truth the code enforces: no option goes undocumented."""
    readme = (ROOT / "README.md").read_text("utf-8")
    synopsis = readme[readme.index("## The command"):readme.index("### Exit codes")]
    out = io.StringIO()
    with pytest.raises(SystemExit), contextlib.redirect_stdout(out):
        main([command, "--help"])
    options = set(re.findall(r"(--[a-z][a-z-]+)", out.getvalue())) - {"--help"}
    assert options
    missing = sorted(o for o in options if o not in synopsis)
    assert not missing, f"README's synopsis lacks {missing} of `claim-gate {command}`"
