"""Issue 16 items 1, 2, 4 and issue 13 item 4 on the command line: each attack beside its
honest control, in temporary git repositories, in the separate-gate-job shape (a test job in
the agent's workspace, then `claim-gate verify` from a fresh clone of the head with only the
test job's artifacts, `--diff-base origin/main` and the base branch's report)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.other_ci_support import (
    CALC,
    CLAIM_PATH,
    TESTS,
    Pipeline,
    claim_text,
    edits,
    new_pipeline,
    outcome,
)

FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")
HONEST = {"calc.py": FLOAT_CALC}
OWNER_CHAIN = "id: other-ci\nevidence_chain:\n  paths: ['.gitlab-ci.yml', 'conftest.py']\n"


@dataclass(frozen=True)
class Case:
    files: Mapping[str, str | None]
    run: tuple[str, ...] = ()
    policy: str | None = None
    after: Callable[[Pipeline], None] | None = None
    exit_code: int = 1
    codes: frozenset[str] = field(default_factory=frozenset)
    claimed: tuple[str, ...] = ()  # the files the claim names (default: every changed one)


def _handwritten(pipeline: Pipeline, observed: Mapping[str, object], expected: object,
                 covers: list[str] | None = None) -> None:
    record = {
        "check_type": "test_run", "at": _now(), "covers": covers or [],
        "verifier": {"id": "ops/ci-tests", "kind": "independent"},
        "observed_value": dict(observed), "x-commit": pipeline.head, "x-tree-clean": True,
    }
    if expected is not None:
        record["expected"] = expected
    pipeline.operator_records.parent.mkdir(parents=True, exist_ok=True)
    pipeline.operator_records.write_text(json.dumps(record))


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


SKIPPED = TESTS.replace("def test_sub", "import pytest\n\n@pytest.mark.skip\ndef test_sub")
DELETED = TESTS.split("\n\ndef test_sub")[0] + "\n"
CASES: dict[str, Case] = {
    "control: honest change, whole suite": Case(HONEST, exit_code=0),
    "conftest.py on the diff": Case(
        {**HONEST, "conftest.py": "import pytest\n"}, codes=frozenset({"producer_modified"})),
    "test config (pyproject.toml) on the diff": Case(
        {**HONEST, "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"},
        codes=frozenset({"producer_modified"})),
    "workflow on the diff": Case(
        {**HONEST, ".github/workflows/ci.yml": "on: push\n"},
        codes=frozenset({"producer_modified"})),
    "CI config the owner's chain names (.gitlab-ci.yml)": Case(
        {**HONEST, ".gitlab-ci.yml": "tests: {script: [true]}\n"},
        policy=OWNER_CHAIN,
        codes=frozenset({"producer_modified"})),
    "the CI's own pipeline file on the diff (default chain)": Case(
        {**HONEST, "Jenkinsfile": "pipeline { agent any }\n"},
        codes=frozenset({"producer_modified"})),
    "control: the same file, not in the owner's chain": Case(
        {**HONEST, "notes.txt": "tests: {script: [true]}\n"},
        policy=OWNER_CHAIN, exit_code=0),
    "failing test marked skip": Case(
        {**HONEST, "test_calc.py": SKIPPED}, codes=frozenset({"removed_tests"})),
    "failing test deleted": Case(
        {**HONEST, "test_calc.py": DELETED}, codes=frozenset({"removed_tests"})),
    "failing test deselected": Case(
        HONEST, run=("--deselect", "test_calc.py::test_sub"),
        codes=frozenset({"removed_tests", "narrowed_selection"})),
    "selection narrowed with -k": Case(
        HONEST, run=("-k", "add"), codes=frozenset({"removed_tests", "narrowed_selection"})),
    "hand-written failing record, lenient expected": Case(
        HONEST, after=lambda p: _handwritten(p, {"tests": 2, "failures": 1}, {"failures": 1}),
        exit_code=2, codes=frozenset({"contradicted"})),
    "a changed file the claim leaves out": Case(
        {**HONEST, "notes.txt": "later\n"}, claimed=("calc.py",),
        codes=frozenset({"unclaimed_change"})),
    "a claimed file the change does not touch": Case(
        HONEST, claimed=("calc.py", "billing.py"), codes=frozenset({"not_in_diff"})),
    "control: a rename claimed by both its paths": Case(
        {"calc.py": None, "calc2.py": FLOAT_CALC, "test_calc.py": TESTS.replace(
            "from calc import", "from calc2 import")},
        claimed=("calc.py", "calc2.py", "test_calc.py"), exit_code=0),
    "a rename claimed by its new path only": Case(
        {"calc.py": None, "calc2.py": FLOAT_CALC, "test_calc.py": TESTS.replace(
            "from calc import", "from calc2 import")},
        claimed=("calc2.py", "test_calc.py"), codes=frozenset({"unclaimed_change"})),
    "control: hand-written passing record": Case(
        HONEST, after=lambda p: _handwritten(p, {"tests": 2, "failures": 0}, None), exit_code=0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_attack_beside_its_control(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(case.files, claim_text(edits(case.claimed or case.files)))
    pipeline.test_job(*case.run)
    if case.after is not None:
        case.after(pipeline)
    more: list[str] = []
    if case.policy is not None:
        policy = tmp_path / "policy.yaml"
        policy.write_text(case.policy)
        more += ["--policy", str(policy)]
    result = pipeline.gate_job(*more)
    code, codes = outcome(result)
    assert (code, codes) == (case.exit_code, set(case.codes)), result.stdout + result.stderr


def test_a_claim_rewritten_after_the_run_is_refused(tmp_path: Path) -> None:
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(HONEST, claim_text(edits(HONEST)))
    pipeline.test_job()
    assert outcome(pipeline.gate_job(workspace=True)) == (0, set())  # control
    rewritten = claim_text([{"id": "m1", "kind": "commit", "target": "other", "at": _now()}])
    (pipeline.work / CLAIM_PATH).write_text(rewritten)
    result = pipeline.gate_job(workspace=True)
    assert result.returncode == 3
    assert CLAIM_PATH in result.stderr
    assert pipeline.head[:12] in result.stderr
    assert "differs from the one committed" in result.stderr
    # The gate job's fresh clone never sees the test job's rewrite.
    assert outcome(pipeline.gate_job()) == (0, set())


def test_a_claim_the_commit_lacks_is_refused(tmp_path: Path) -> None:
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(HONEST, None)
    pipeline.test_job()
    (pipeline.work / CLAIM_PATH).write_text(claim_text())
    result = pipeline.gate_job(workspace=True)
    assert result.returncode == 3
    assert "is not in" in result.stderr


def test_a_test_run_covering_a_state_write_leaves_it_unmet(tmp_path: Path) -> None:
    now = _now()
    code = {"id": "m1", "kind": "file_edit", "target": "calc.py", "at": now}
    write = {"id": "w1", "kind": "state_write", "target": "accounts/1", "at": now}
    passing = {"tests": 2, "failures": 0}
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(HONEST, claim_text([code]))
    pipeline.test_job()
    _handwritten(pipeline, passing, None, covers=["m1"])
    assert outcome(pipeline.gate_job()) == (0, set())  # control: code only
    pipeline = new_pipeline(tmp_path / "attack")
    pipeline.branch(HONEST, claim_text([code, write]))
    pipeline.test_job()
    _handwritten(pipeline, passing, None, covers=["m1", "w1"])
    result = pipeline.gate_job()
    assert outcome(result) == (1, {"no_evidence"})
    assert "w1" in result.stdout


@pytest.mark.parametrize(("require", "expected"), [(True, 1), (False, 3)])
def test_a_missing_claim_is_unverified_when_required(
    tmp_path: Path, require: bool, expected: int
) -> None:
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(HONEST, None)
    pipeline.test_job()
    result = pipeline.gate_job(*(["--require-claim"] if require else []))
    assert result.returncode == expected, result.stderr
    if require:
        assert outcome(result) == (1, {"no_claim"})
        assert CLAIM_PATH in json.loads(result.stdout)["reason"]
