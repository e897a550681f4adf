"""Issue 16: records and reports changed after the run, unbound JUnit, what `git status`
overlooks, and inputs that could hang the gate, each beside its honest control."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gate.evidence.producer_inventory import digest
from tests.gitrepo import commit_all, git, init_repo
from tests.tampering_support import CALC, PASSING, Project, env, new_project, unmet


@pytest.fixture
def ran(tmp_path: Path) -> Project:
    """An honest project whose plugin run passed."""
    project = new_project(tmp_path)
    project.commit({"calc.py": CALC, "test_calc.py": PASSING})
    assert project.pytest().returncode == 0
    return project


def _drop_inventory(record: dict[str, Any]) -> None:
    del record["x-producer-inventory"]


def _claim_installed(record: dict[str, Any]) -> None:
    """A tainted inventory whose entries were edited to look installed, digest left alone."""
    record["x-producer-inventory"]["hooks"][0]["origin"] = "repository"
    record["x-producer-inventory"]["hooks"][0]["hook"] = "pytest_runtest_makereport"


def _reseal_without_findings(record: dict[str, Any]) -> None:
    inventory = record["x-producer-inventory"]
    inventory["hooks"][0].update(origin="repository", hook="pytest_runtest_logreport")
    inventory["digest"] = digest(inventory)  # recomputed; the findings were not


def _fewer_failures(record: dict[str, Any]) -> None:
    record["observed_value"]["tests"] += 1  # a test that never ran, claimed passed
    record["observed_value"]["passed"] += 1


RECORD_EDITS: dict[str, tuple[Callable[[dict[str, Any]], None], str, str]] = {
    "no inventory": (_drop_inventory, "not_test_evidence", "carries no x-producer-inventory"),
    "entries edited": (_claim_installed, "producer_modified", "does not match its digest"),
    "digest recomputed": (_reseal_without_findings, "producer_modified", "do not follow"),
    "counts edited": (_fewer_failures, "evidence_mismatch", "differ from those of the JUnit"),
}


def test_control_the_record_and_its_junit_verify_together(ran: Project) -> None:
    code, verdict = ran.verify("--test-evidence", str(ran.evidence), "--junit", str(ran.junit))
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])


@pytest.mark.parametrize("edit", list(RECORD_EDITS))
def test_a_hand_edited_plugin_record_does_not_count(ran: Project, edit: str) -> None:
    change, code_wanted, words = RECORD_EDITS[edit]
    record = ran.record()
    change(record)
    ran.evidence.write_text(json.dumps(record))
    code, verdict = ran.verify("--test-evidence", str(ran.evidence))
    assert code == 1
    found = unmet(verdict)
    assert code_wanted in found
    assert words in found[code_wanted]


def test_a_junit_file_rewritten_after_the_plugin_wrote_it_counts_for_neither(
    ran: Project,
) -> None:
    ran.junit.write_text(ran.junit.read_text("utf-8").replace('tests="1"', 'tests="1" '))
    code, verdict = ran.verify("--test-evidence", str(ran.evidence), "--junit", str(ran.junit))
    assert (code, set(unmet(verdict))) == (1, {"evidence_mismatch"})
    assert "rewritten after the run" in unmet(verdict)["evidence_mismatch"]


def test_a_junit_file_with_no_commit_is_unbound_under_head_sha(ran: Project) -> None:
    code, verdict = ran.verify("--junit", str(ran.junit))
    assert (code, verdict["state"]) == (0, "verified")  # control: the plugin bound it
    assert ran.pytest(plugin=False).returncode == 0
    code, verdict = ran.verify("--junit", str(ran.junit))
    assert (code, set(unmet(verdict))) == (1, {"unbound_commit"})


def _nested_repo(path: Path) -> str:
    path.mkdir(parents=True)
    init_repo(path)
    (path / "__init__.py").write_text("VALUE = 1\n")
    return commit_all(path, "lib")


SUBMODULE_FILES = {
    "calc.py": "from lib import VALUE\n\ndef add(a, b):\n    return a + b + VALUE - 1\n",
    "test_calc.py": PASSING,
}


@pytest.mark.parametrize("gitmodules", [None, "ignore = all"])
def test_a_submodule_moved_or_edited_makes_the_tree_dirty(
    tmp_path: Path, gitmodules: str | None
) -> None:
    project = new_project(tmp_path)
    _nested_repo(project.repo / "lib")
    if gitmodules is not None:
        (project.repo / ".gitmodules").write_text(
            f'[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n\t{gitmodules}\n'
        )
    project.commit(SUBMODULE_FILES)
    assert git(project.repo, "ls-files", "-s", "lib").startswith("160000")
    assert project.pytest().returncode == 0
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["unmet"]) == (0, [])  # control: submodule at its recorded commit

    (project.repo / "lib" / "__init__.py").write_text("VALUE = 1  # edited in place\n")
    assert project.pytest().returncode == 0
    assert any("lib (submodule with uncommitted" in p for p in project.record()["x-dirty-paths"])
    commit_all(project.repo / "lib", "moved")
    assert project.pytest().returncode == 0
    assert any("lib (submodule at" in p for p in project.record()["x-dirty-paths"])
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, set(unmet(verdict))) == (1, {"dirty_tree"})


@pytest.mark.parametrize(
    ("ignored", "hidden", "dirty"),
    [
        ("calc_impl.py\n", {"calc_impl.py": "def add(a, b):\n    return a + b\n"}, True),
        ("_impl.py\n", {"pkg/_impl.py": "X = 1\n"}, True),
        ("build/\n__pycache__/\n", {"build/x.py": "X = 1\n", "pkg/__pycache__/y.pyc": ""}, False),
    ],
)
def test_ignored_importable_files_make_the_tree_dirty(
    tmp_path: Path, ignored: str, hidden: dict[str, str], dirty: bool
) -> None:
    project = new_project(tmp_path)
    (project.repo / ".gitignore").write_text("out/\n" + ignored)
    project.commit({"calc.py": "from calc_impl import add\n" if "calc_impl.py" in hidden
                    else CALC, "test_calc.py": PASSING, "pkg/__init__.py": ""})
    for name, text in hidden.items():
        (project.repo / name).parent.mkdir(parents=True, exist_ok=True)
        (project.repo / name).write_text(text)
    assert git(project.repo, "status", "--porcelain") == ""  # plain git sees nothing
    assert project.pytest().returncode == 0
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    if dirty:
        assert (code, set(unmet(verdict))) == (1, {"dirty_tree"})
    else:
        assert (code, verdict["unmet"]) == (0, [])


def _gate(*args: str) -> tuple[int, str, float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "gate", "verify", *args], env=env(), capture_output=True,
        text=True, check=False, timeout=30,
    )
    return result.returncode, result.stderr, time.monotonic() - started


@pytest.mark.parametrize("which", ["claim", "policy", "evidence", "junit"])
def test_a_fifo_input_is_refused_at_once(ran: Project, tmp_path: Path, which: str) -> None:
    fifo = tmp_path / f"{which}.fifo"
    os.mkfifo(fifo)
    policy = tmp_path / "policy.yaml"
    policy.write_text("id: p\nrequires: [test_run]\n")
    paths = {"claim": ran.claim, "policy": policy, "evidence": ran.evidence, "junit": ran.junit}
    code, _, _ = _gate(str(paths["claim"]), "--policy", str(paths["policy"]),
                       "--test-evidence", str(paths["evidence"]),
                       "--junit", str(paths["junit"]), "--head-sha", ran.head)
    assert code == 0  # control: the same inputs as regular files verify
    paths[which] = fifo
    code, stderr, _ = _gate(str(paths["claim"]), "--policy", str(paths["policy"]),
                            "--test-evidence", str(paths["evidence"]),
                            "--junit", str(paths["junit"]), "--head-sha", ran.head)
    assert code == 3
    assert str(fifo) in stderr
    assert "FIFO" in stderr or "not a regular file" in stderr


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("id: p\nrequires: [test_run]\n", 0),
        ("id: p\nrequires: [test_run]\nrequires: []\n", 3),
        ("id: p\nmax_age_s:\n  test_run: 86400\n  test_run: 99999999\n", 3),
    ],
)
def test_a_yaml_policy_with_a_key_written_twice_is_refused(
    ran: Project, tmp_path: Path, text: str, code: int
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(text)
    found, stderr, _ = _gate(str(ran.claim), "--policy", str(policy), "--test-evidence",
                             str(ran.evidence), "--head-sha", ran.head)
    assert found == code, stderr
    if code == 3:
        assert "appears twice" in stderr
