"""End to end through `gate.faces.cli.main`: `claim-gate junit` and `claim-gate verify --junit`."""

from __future__ import annotations

import io
import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.faces.cli import main
from tests.junit_files import Case, Suite, write_junit

EDIT = "2026-08-27T18:04:00Z"
NOW = datetime(2026, 8, 27, 18, 10, tzinfo=UTC)


def _claim(tmp_path: Path, **extra: object) -> Path:
    claim = {
        "spec_version": "0.1",
        "task": {"id": "fix-7", "description": "Fix the login bug"},
        "claimed_outcome": "Fixed the login bug; tests pass.",
        "mutations": [{"id": "m1", "kind": "file_write", "target": "app/login.py", "at": EDIT}],
        **extra,
    }
    path = tmp_path / "claim.json"
    path.write_text(json.dumps(claim), encoding="utf-8")
    return path


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), clock=lambda: NOW, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _junit(tmp_path: Path, *cases: Case, timestamp: str | None = "2026-08-27T18:06:00Z",
           name: str = "junit.xml",
           properties: tuple[tuple[str, str], ...] = ()) -> Path:
    return write_junit(tmp_path / name, [Suite("pytest", cases, timestamp, properties)])


def test_passing_junit_after_the_edit_verifies(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"), Case("test_logout"))
    code, out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit))
    assert (code, err) == (0, "")
    assert out.startswith("VERIFIED")
    assert "junit (1 file): tests 2 (unique 2), passed 2, failures 0" in out


def test_failing_junit_after_the_edit_refutes_and_lists_the_failure(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login", result="failure", message="assert 401 == 200"),
                   Case("test_logout"))
    code, out, _err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit))
    assert code == 2
    assert out.startswith("REFUTED")
    assert "failing tests (1):" in out
    assert "- FAILURE tests.test_x.TestY::test_login: assert 401 == 200" in out


def test_verify_text_lists_flaky_tests(tmp_path: Path) -> None:
    """Repeated cases are reruns by the policy's word (issue 14); without it, two runs."""
    junit = tmp_path / "junit.xml"
    junit.write_text(
        '<testsuite name="s" timestamp="2026-08-27T18:06:00Z">'
        '<testcase classname="c" name="t"><failure message="first"/></testcase>'
        '<testcase classname="c" name="t"/></testsuite>', encoding="utf-8")
    policy = tmp_path / "policy.yml"
    policy.write_text("id: reruns\njunit:\n  reruns: repeated-cases\n", encoding="utf-8")
    code, out, _err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit),
                           "--policy", str(policy))
    assert code == 0
    assert "  flaky tests (1, passed on a later attempt):\n  - FLAKY c::t\n" in out
    code, out, _err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit))
    assert code == 2
    assert "tests 2 (unique 1), passed 1, failures 1" in out


def test_a_misspelt_junit_policy_section_is_refused(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"))
    policy = tmp_path / "policy.yml"
    policy.write_text("id: reruns\njunit:\n  reruns: repeated\n", encoding="utf-8")
    code, _out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit),
                           "--policy", str(policy))
    assert code == 3
    assert "junit.reruns: 'repeated' is not one of separate, repeated-cases" in err
    policy.write_text("id: reruns\njunit:\n  rerun: separate\n", encoding="utf-8")
    code, _out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit),
                           "--policy", str(policy))
    assert code == 3
    assert "junit: unknown key 'rerun'" in err


def test_junit_written_before_the_edit_is_unverified(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"), timestamp="2026-08-27T18:01:00Z")
    code, out, _err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit))
    assert code == 1
    assert "[before_mutation]" in out


def test_without_a_timestamp_the_file_time_decides(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"), timestamp=None)
    claim = _claim(tmp_path)
    before = datetime(2026, 8, 27, 18, 2, tzinfo=UTC).timestamp()
    os.utime(junit, (before, before))
    assert _cli("verify", str(claim), "--junit", str(junit))[0] == 1
    after = datetime(2026, 8, 27, 18, 5, tzinfo=UTC).timestamp()
    os.utime(junit, (after, after))
    assert _cli("verify", str(claim), "--junit", str(junit))[0] == 0


def test_glob_of_shards_is_one_run_and_json_output_records_it(tmp_path: Path) -> None:
    _junit(tmp_path, Case("test_a"), name="shard-1.xml")
    _junit(tmp_path, Case("test_b"), name="shard-2.xml")
    code, out, _err = _cli("verify", str(_claim(tmp_path)), "--junit",
                           str(tmp_path / "shard-*.xml"), "--format", "json")
    assert code == 0
    record = json.loads(out)
    (gate_item,) = [e for e in record["evidence"] if e["x-claim-gate"]["origin"] == "gate"]
    assert gate_item["observed_value"]["tests"] == 2
    assert len(gate_item["x-junit"]["files"]) == 2


def test_head_sha_mismatch_is_unverified(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"),
                   properties=(("claim-gate.commit", "1234567890abcdef"),))
    claim = str(_claim(tmp_path))
    other, same = "fedcba0987" + "0" * 30, "1234567890abcdef" + "0" * 24
    code, out, _err = _cli("verify", claim, "--junit", str(junit), "--head-sha", other)
    assert code == 1
    assert "[other_commit]" in out
    assert _cli("verify", claim, "--junit", str(junit), "--head-sha", same)[0] == 0


def test_a_bad_head_sha_is_a_usage_error(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"))
    code, _out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit),
                           "--head-sha", "main")
    assert code == 3
    assert "is not a full commit id" in err


def test_named_tests_from_policy_and_claim(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"), Case("test_logout"))
    policy = tmp_path / "policy.yml"
    policy.write_text("id: team\nrequired_tests:\n  - tests/test_x.py::TestY::test_login\n",
                      encoding="utf-8")
    claim = _claim(tmp_path, **{"x-required-tests": ["test_signup"]})
    code, out, _err = _cli("verify", str(claim), "--junit", str(junit), "--policy", str(policy))
    assert code == 2
    assert "named test did not run: test_signup" in out
    plain = _claim(tmp_path)
    assert _cli("verify", str(plain), "--junit", str(junit), "--policy", str(policy))[0] == 0


def test_glob_matching_nothing_is_invalid_input(tmp_path: Path) -> None:
    code, out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(tmp_path / "*.xml"))
    assert (code, out) == (3, "")
    assert "the glob matches no file" in err


def test_truncated_junit_is_invalid_input_with_its_place(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_login"), Case("test_logout"))
    junit.write_bytes(junit.read_bytes()[:-40])
    code, _out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit))
    assert code == 3
    prefix = f"claim-gate: invalid input: {re.escape(str(junit))}"
    assert re.match(rf"{prefix}:2:\d+: not well-formed XML: ", err), err


def test_junit_command_text(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_a"), Case("test_b", result="error", message="boom"),
                   Case("test_c", result="skipped"))
    code, out, err = _cli("junit", str(junit))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (f"{junit}: tests 3 (unique 3), passed 1, failures 0, errors 1,"
                        " skipped 1, flaky 0")
    assert lines[1] == "  time 2026-08-27T18:06:00Z (timestamp: the earliest suite timestamp" \
        " (it carries a zone))"
    assert "  - ERROR tests.test_x.TestY::test_b: boom" in lines
    assert ("total (1 file): tests 3 (unique 3), passed 1, failures 0, errors 1, skipped 1,"
            " flaky 0") in lines
    assert lines[-1] == "  - ERROR tests.test_x.TestY::test_b: boom"


def test_text_from_a_junit_file_cannot_start_a_workflow_command(tmp_path: Path) -> None:
    """Test names and messages are the test author's text; in a GitHub Actions step a line
    of output starting with `::` is a workflow command, so line breaks are shown escaped."""
    sha = "0" * 40
    body = (
        '<testsuite name="s" timestamp="2026-08-27T18:06:00Z"><properties>'
        f'<property name="claim-gate.commit" value="{sha}&#10;::error::commit"/></properties>'
        '<testcase classname="c" name="t&#10;::error::name">'
        '<failure message="boom&#13;&#10;::add-mask::x"/></testcase>'
        '<testcase classname="c" name="f&#10;::notice::flaky"><flakyFailure/></testcase>'
        "</testsuite>"
    )
    junit = tmp_path / "junit.xml"
    junit.write_text(body, encoding="utf-8")
    outputs = [_cli("junit", str(junit))[1],
               _cli("verify", str(_claim(tmp_path)), "--junit", str(junit),
                    "--head-sha", "1" * 40)[1]]
    for out in outputs:
        assert "::error::name" in out
        assert not [line for line in out.splitlines() if line.startswith("::")], out
        assert "boom\\r\\n::add-mask::x" in out


def test_junit_command_json_per_file_and_total(tmp_path: Path) -> None:
    first = _junit(tmp_path, Case("test_a"), name="a.xml")
    _junit(tmp_path, Case("test_b", result="failure"), name="b.xml")
    code, out, _err = _cli("junit", str(first), str(tmp_path / "b*.xml"), "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert [f["tests"] for f in document["files"]] == [1, 1]
    assert document["files"][1]["failing_tests"][0]["outcome"] == "failure"
    assert document["total"] == {
        "files": 2, "tests": 2, "passed": 1, "failures": 1, "errors": 0, "skipped": 0,
        "flaky": 0, "unique": 2, "suite_errors": 0,
        "failing_tests": ["tests.test_x.TestY::test_b"],
    }


@pytest.mark.parametrize("bad", ["missing.xml", "*.nothing"])
def test_junit_command_refuses_what_it_cannot_read(tmp_path: Path, bad: str) -> None:
    code, out, err = _cli("junit", str(tmp_path / bad))
    assert (code, out) == (3, "")
    assert str(tmp_path / bad) in err


def test_junit_size_cap_flag(tmp_path: Path) -> None:
    junit = _junit(tmp_path, Case("test_a"))
    code, _out, err = _cli("junit", str(junit), "--max-bytes", "10")
    assert code == 3
    assert "over the size cap" in err
    code, _out, err = _cli("verify", str(_claim(tmp_path)), "--junit", str(junit),
                           "--junit-max-bytes", "10")
    assert code == 3


def test_the_junit_command_reads_files_without_claims_or_policies(tmp_path: Path) -> None:
    """`claim-gate junit` prints what the reader read: none of the claim, policy or
    evidence-record code is imported for it (its start counts in a million-case read)."""
    import subprocess
    import sys

    report = write_junit(tmp_path / "r.xml", [Suite("s", (Case("t"),))])
    probe = (
        "import contextlib, io, sys\n"
        "from gate.faces.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(['junit', sys.argv[1]])\n"
        "heavy = ('gate.claim.policy', 'gate.claim.loader', 'gate.claim.facts',"
        " 'gate.evidence.junit')\n"
        "print(code, sorted(name for name in heavy if name in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(report)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.split() == ["0", "[]"]
