"""Issue 21 item 6 in the documented two-job recipe: the test job hands on test evidence only.

Each attack is a test module of the change whose `atexit` handler edits the record file the
test job hands on after pytest has written it; the owner allows that file a `process-exit`
finding (a project may register its own atexit handler), so only the hand-off rule stands
between the record and the verdict. The gate job, in a fresh clone, names the file with
`--test-evidence` as the recipes do. Each attack beside its honest control."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.other_ci_support import CALC, TESTS, Pipeline, claim_text, edits, new_pipeline, outcome

FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")
BROKEN_CALC = FLOAT_CALC.replace("return a - b", "return a + b")
ALLOW_ATEXIT = ("id: hand-off\nevidence_chain:\n  allow_reach:\n"
                "    - {path: test_calc.py, rule: process-exit}\n")
#: The test module's atexit handler: it reads the record file the plugin wrote and writes it
#: back with `{edit}` applied (`records`: the list; `now`: the time; `head`: the record's commit).
HANDLER = '''

import atexit
import json
import subprocess
import os
from datetime import datetime, timezone


def _hand_on_more():
    path = os.path.join("out", "evidence.json")
    with open(path, encoding="utf-8") as handle:
        found = json.load(handle)
    records = found if isinstance(found, list) else [found]
    now = datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")
    head = records[0].get("x-commit")
    {edit}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(records, handle)


atexit.register(_hand_on_more)
'''
READBACK = ('{"check_type": "state_readback", "at": now, "covers": ["w1"],'
            ' "verifier": {"id": "ops/ledger-reader", "kind": "independent"},'
            ' "expected": {"balance": 10}, "observed_value": {"balance": 10}}')
PASSING_RUN = ('{"check_type": "test_run", "at": now, "covers": [],'
               ' "verifier": {"id": "ops/ci-tests", "kind": "independent"},'
               ' "observed_value": {"tests": 2, "failures": 0, "errors": 0},'
               ' "x-commit": head, "x-tree-clean": True}')


@dataclass(frozen=True)
class Case:
    edit: str  # Python run in the handler (see HANDLER)
    calc: str = FLOAT_CALC
    writes: bool = False  # the claim has a state_write w1 besides the code change
    operator_readback: bool = False  # the operator's own job read w1 back (--evidence)
    exit_code: int = 1
    codes: frozenset[str] = frozenset({"not_test_evidence"})


CASES = {
    "control: the handler writes the plugin's record back as it was": Case(
        "pass", exit_code=0, codes=frozenset()),
    "control: the readback comes from the operator's own job (--evidence)": Case(
        "pass", writes=True, operator_readback=True, exit_code=0, codes=frozenset()),
    "a state_readback added for a write that never happened": Case(
        f"records.append({READBACK})", writes=True),
    "a state_readback dressed in the plugin's own fields and inventory": Case(
        "records.append({**{k: v for k, v in records[0].items() if k.startswith('x-')},"
        f" **{READBACK}, 'verifier': records[0]['verifier']}})", writes=True),
    "a passing test run under an operator's verifier id, beside the plugin's": Case(
        f"records.append({PASSING_RUN})"),
    "the failing run replaced by a passing one under an operator's verifier id": Case(
        f"records[:] = [{PASSING_RUN}]", calc=BROKEN_CALC,
        exit_code=2, codes=frozenset({"not_test_evidence", "contradicted"})),
    "a passing test run under the plugin's id without its inventory": Case(
        "records.append({**" + PASSING_RUN + ", 'verifier': records[0]['verifier']})"),
}


def _operator_readback(pipeline: Pipeline) -> None:
    """What a job of the operator's writes after the tests, with its own credentials."""
    now = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    record = {"check_type": "state_readback", "at": now, "covers": ["w1"],
              "verifier": {"id": "ops/ledger-reader", "kind": "independent"},
              "expected": {"balance": 10}, "observed_value": {"balance": 10}}
    pipeline.operator_records.parent.mkdir(parents=True)
    pipeline.operator_records.write_text(json.dumps(record))


def _run(tmp_path: Path, case: Case) -> tuple[Pipeline, subprocess.CompletedProcess[str]]:
    pipeline = new_pipeline(tmp_path)
    files = {"calc.py": case.calc, "test_calc.py": TESTS + HANDLER.replace("{edit}", case.edit)}
    mutations = edits(files)
    if case.writes:
        mutations.append({"id": "w1", "kind": "state_write", "target": "accounts/1",
                          "at": mutations[0]["at"]})
    pipeline.branch(files, claim_text(mutations))
    pipeline.test_job()
    if case.operator_readback:
        _operator_readback(pipeline)
    policy = tmp_path / "policy.yaml"
    policy.write_text(ALLOW_ATEXIT)
    return pipeline, pipeline.gate_job("--policy", str(policy), "--trusted-verifier", "ops/*")


@pytest.mark.parametrize("name", list(CASES))
def test_the_hand_off_counts_for_the_plugins_test_runs_only(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    pipeline, result = _run(tmp_path, case)
    assert outcome(result) == (case.exit_code, set(case.codes)), result.stdout + result.stderr
    handed_on = json.loads((pipeline.artifacts / "evidence.json").read_text("utf-8"))
    assert len(handed_on) == (2 if "append" in case.edit else 1), "the handler ran"
    if case.codes:
        verdict = json.loads(result.stdout)["verdict"]
        [rule] = [u for u in verdict["unmet"] if u["code"] == "not_test_evidence"
                  and "could not be trusted" in u["message"]]
        place = "record 2 at" if "append" in case.edit else "record 1 at"
        assert f"{pipeline.artifacts / 'evidence.json'} ({place}" in rule["message"]


def test_the_test_jobs_record_passed_as_operator_evidence_is_refused(tmp_path: Path) -> None:
    """The recipe before this round: `--evidence out/evidence.json`. The plugin's record
    carries its marks, so it is refused there, and the JUnit file of its run with it."""
    pipeline = new_pipeline(tmp_path)
    pipeline.branch({"calc.py": FLOAT_CALC}, claim_text(edits(["calc.py"])))
    pipeline.test_job()
    assert outcome(pipeline.gate_job()) == (0, set())  # control: --test-evidence
    args = pipeline.gate_args()
    args[args.index("--test-evidence")] = "--evidence"
    result = pipeline.run_gate(args)
    code, codes = outcome(result)
    assert code == 1, result.stdout + result.stderr
    assert "test_job_record" in codes
    assert "hand it on with --test-evidence" in result.stdout
