"""The command line holds the Action's bindings (issue 22 items 3 and 4), in real temporary git
repositories: a head without the base's tip is not what merges; a claim the change does not
write is no claim; a submodule bump is seen whatever `.gitmodules` says, and inside; replace
refs and grafts cannot swap the history the gate reads. Each attack beside its honest control."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.loader import parse_claim_bytes
from gate.claim.policy import default_policy
from gate.claim.subject import Binding as FactBinding
from gate.claim.subject import Subject
from gate.evidence.branch_changes import BranchChanges
from tests.gitrepo import commit_all, git, init_repo
from tests.other_ci_support import (
    CALC,
    CLAIM_PATH,
    Pipeline,
    claim_text,
    edits,
    new_pipeline,
    outcome,
)

FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")
HONEST = {"calc.py": FLOAT_CALC}
NEW_TEST = "from calc import add\n\ndef test_add_floats():\n    assert add(0.5, 0.25) == 0.75\n"


def _main_moves_on(pipeline: Pipeline) -> str:
    """A commit lands on main after the agent's branch forked (a new test)."""
    git(pipeline.work, "checkout", "-q", "main")
    (pipeline.work / "test_floats.py").write_text(NEW_TEST)
    tip = commit_all(pipeline.work, "main: a test added since the branch forked")
    git(pipeline.work, "checkout", "-q", "agent")
    return tip


def _forked_behind(tmp_path: Path) -> tuple[Pipeline, str]:
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(HONEST, claim_text(edits(HONEST)))
    return pipeline, _main_moves_on(pipeline)


def test_a_head_without_the_bases_tip_is_unverified(tmp_path: Path) -> None:
    pipeline, tip = _forked_behind(tmp_path)
    pipeline.test_job()
    result = pipeline.gate_job()
    assert outcome(result) == (1, {"behind_base"}), result.stdout + result.stderr
    assert f"does not contain origin/main's tip {tip[:12]}" in result.stdout
    assert "not what merging produces" in result.stderr


def test_control_the_branch_rebased_onto_the_tip_is_verified(tmp_path: Path) -> None:
    pipeline, _ = _forked_behind(tmp_path)
    git(pipeline.work, "rebase", "-q", "main")
    pipeline.head = git(pipeline.work, "rev-parse", "HEAD")
    pipeline.test_job()
    result = pipeline.gate_job()
    assert outcome(result) == (0, set()), result.stdout + result.stderr
    assert "the branch is up to date with its base" in result.stderr


def test_control_the_merged_result_is_decided_and_says_so(tmp_path: Path) -> None:
    """GitLab's merged-results pipeline (GitHub's refs/pull/N/merge): the commit tested is
    the change merged into the base's tip."""
    pipeline, tip = _forked_behind(tmp_path)
    git(pipeline.work, "checkout", "-q", "-b", "merged-result", "main")
    git(pipeline.work, "merge", "-q", "--no-ff", "--no-edit", "agent")
    pipeline.head = git(pipeline.work, "rev-parse", "HEAD")
    pipeline.test_job()
    result = pipeline.gate_job()
    assert outcome(result) == (0, set()), result.stdout + result.stderr
    assert f"a merge of the change into origin/main's tip {tip[:12]}: decided on the merged" \
        in result.stderr


def _inherited_claim(tmp_path: Path, rewrite: bool) -> Pipeline:
    """main already holds a claim (an earlier change's); the agent's branch may rewrite it."""
    pipeline = new_pipeline(tmp_path)
    (pipeline.work / CLAIM_PATH).write_text(claim_text(edits(["calc.py"])))
    commit_all(pipeline.work, "main: an earlier change's claim")
    pipeline.branch(HONEST, claim_text(edits(HONEST)) if rewrite else None)
    pipeline.test_job()
    return pipeline


def test_a_claim_the_change_does_not_write_is_no_claim(tmp_path: Path) -> None:
    pipeline = _inherited_claim(tmp_path, rewrite=False)
    required = pipeline.gate_job("--require-claim")
    assert outcome(required) == (1, {"no_claim"}), required.stdout + required.stderr
    assert "inherited from origin/main" in json.loads(required.stdout)["reason"]
    plain = pipeline.gate_job()
    assert plain.returncode == 3
    assert "does not add or modify the claim file" in plain.stderr


def test_control_a_claim_the_change_rewrites_is_decided(tmp_path: Path) -> None:
    pipeline = _inherited_claim(tmp_path, rewrite=True)
    result = pipeline.gate_job("--require-claim")
    assert outcome(result) == (0, set()), result.stdout + result.stderr


# The git collector alone, on a real repository: what the producer rule is given.

def _collect(repo: Path, head: str = "HEAD") -> frozenset[str]:
    loaded = parse_claim_bytes(claim_text().encode(), CLAIM_PATH)
    observed = BranchChanges(repo, "main", head).collect(loaded, default_policy())
    assert observed.pull is not None
    return observed.pull.changes.paths


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    init_repo(path)
    (path / "calc.py").write_text(CALC)
    commit_all(path, "base")
    return path


def _submodule(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository to use as a submodule: a first commit, then one that adds a conftest."""
    sub = _repo(tmp_path / "sub")
    first = git(sub, "rev-parse", "HEAD")
    (sub / "conftest.py").write_text("def pytest_runtest_logreport(report):\n    pass\n")
    second = commit_all(sub, "a conftest that reaches the test machinery")
    return sub, first, second


def _with_submodule(tmp_path: Path) -> tuple[Path, str]:
    sub, first, second = _submodule(tmp_path)
    repo = _repo(tmp_path / "repo")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    git(repo, "-C", "vendor/sub", "checkout", "-q", first)
    git(repo, "add", "vendor/sub")
    commit_all(repo, "main: the submodule at its first commit")
    git(repo, "checkout", "-q", "-b", "agent")
    return repo, second


def test_a_submodule_bump_hidden_by_ignore_all_is_seen_inside(tmp_path: Path) -> None:
    repo, second = _with_submodule(tmp_path)
    git(repo, "-C", "vendor/sub", "checkout", "-q", second)
    git(repo, "config", "-f", ".gitmodules", "submodule.vendor/sub.ignore", "all")
    git(repo, "add", ".gitmodules", "vendor/sub")
    commit_all(repo, "bump the submodule, and hide it")
    assert git(repo, "diff", "--name-only", "main...HEAD") == ".gitmodules"  # git's default
    paths = _collect(repo)
    assert {"vendor/sub", "vendor/sub/conftest.py"} <= paths


def test_control_a_change_that_leaves_the_submodule_alone(tmp_path: Path) -> None:
    repo, _ = _with_submodule(tmp_path)
    (repo / "calc.py").write_text(FLOAT_CALC)
    commit_all(repo, "an honest change")
    assert _collect(repo) == {"calc.py"}


def test_a_bump_this_clone_cannot_read_is_refused(tmp_path: Path) -> None:
    repo, second = _with_submodule(tmp_path)
    git(repo, "update-index", "--cacheinfo", f"160000,{second},vendor/sub")
    git(repo, "commit", "-q", "-m", "bump the submodule")
    clone = tmp_path / "clone"  # a gate job's clone without the submodules
    git(tmp_path, "clone", "-q", "-b", "agent", str(repo), str(clone))
    git(clone, "branch", "-q", "main", "origin/main")
    with pytest.raises(InvalidInput, match="moves the submodule vendor/sub from"):
        _collect(clone)


def _replaced(tmp_path: Path) -> tuple[Path, str]:
    """The agent's commit edits conftest.py; a replace ref shows a look-alike that does not."""
    repo = _repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "agent")
    (repo / "calc.py").write_text(FLOAT_CALC)
    (repo / "conftest.py").write_text("import pytest\n")
    real = commit_all(repo, "the change")
    git(repo, "checkout", "-q", "-b", "look-alike", "main")
    (repo / "calc.py").write_text(FLOAT_CALC)
    fake = commit_all(repo, "the change")
    git(repo, "checkout", "-q", "agent")
    git(repo, "replace", real, fake)
    return repo, real


def test_replace_refs_cannot_swap_the_commit_the_gate_reads(tmp_path: Path) -> None:
    repo, real = _replaced(tmp_path)
    assert git(repo, "diff", "--name-only", "main", real) == "calc.py"  # plain git is fooled
    assert _collect(repo, real) == {"calc.py", "conftest.py"}


def test_control_without_replace_refs_the_same_paths(tmp_path: Path) -> None:
    repo, real = _replaced(tmp_path)
    git(repo, "replace", "-d", real)
    assert _collect(repo, real) == {"calc.py", "conftest.py"}


def test_a_grafted_history_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "agent")
    (repo / "conftest.py").write_text("import pytest\n")
    edit = commit_all(repo, "the conftest")
    (repo / "calc.py").write_text(FLOAT_CALC)
    head = commit_all(repo, "the change")
    assert _collect(repo) == {"calc.py", "conftest.py"}  # control: no grafts
    # Graft the head onto the conftest commit: the diff from that "merge base" hides it.
    grafts = repo / ".git" / "info" / "grafts"
    grafts.parent.mkdir(exist_ok=True)
    grafts.write_text(f"{head} {edit}\n{edit}\n")
    with pytest.raises(InvalidInput, match="grafts file"):
        _collect(repo)


def test_every_git_the_gate_runs_ignores_replace_objects() -> None:
    from gate.evidence.git_probe import git_environment

    assert git_environment(os.environ)["GIT_NO_REPLACE_OBJECTS"] == "1"


# Item 5: an agent whose clock runs fast, with a run bound to the exact head on a clean tree.

def _fast_clock_claim(minutes: int = 2) -> str:
    from datetime import UTC, datetime, timedelta

    ahead = (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    return claim_text([{"id": "m1", "kind": "file_edit", "target": "calc.py", "at": ahead}])


def _later(minutes: int) -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def test_a_fast_agent_clock_is_ordered_by_the_head_binding_and_reported(tmp_path: Path) -> None:
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(HONEST, _fast_clock_claim())
    pipeline.test_job()
    result = pipeline.gate_job("--now", _later(5))
    assert outcome(result) == (0, set()), result.stdout + result.stderr
    notes = json.loads(result.stdout)["verdict"]["x-notes"]
    assert any(n.startswith("clock skew: m1 is dated") and "ordered by that binding" in n
               for n in notes), notes


HEAD = "a" * 40
AT_HEAD = Subject(head_sha=HEAD)


def _skewed(binding: FactBinding | None, kind: str = "file_edit",
            subject: Subject | None = AT_HEAD) -> tuple[str, tuple[str, ...]]:
    """decide() on a code change dated 120 s after the test run that covers it."""
    from dataclasses import replace

    from gate.claim.facts import Facts
    from gate.claim.model import CheckType
    from gate.engine.decide import decide
    from tests.builders import at, claim, evidence, item, mutation

    run = replace(item(evidence(when=10, check_type=CheckType.TEST_RUN)), binding=binding)
    changed = claim([mutation("m1", kind, when=130, target="calc.py")])
    verdict = decide(changed, Facts(items=(run,), subject=subject), default_policy(), at(600))
    return str(verdict.state), tuple(u.code for u in verdict.unmet)


def test_engine_a_head_bound_clean_run_orders_a_code_change_dated_after_it() -> None:
    assert _skewed(FactBinding(commit=HEAD, tree_clean=True)) == ("verified", ())


@pytest.mark.parametrize(("binding", "subject"), [
    (FactBinding(commit=HEAD, tree_clean=None), Subject(head_sha=HEAD)),  # cleanliness unsaid
    (FactBinding(commit=HEAD, tree_clean=False), Subject(head_sha=HEAD)),
    (FactBinding(commit=HEAD, tree_clean=True), None),  # no subject to bind to
    (None, Subject(head_sha=HEAD)),
])
def test_engine_without_that_binding_time_orders_it(
    binding: FactBinding | None, subject: Subject | None
) -> None:
    assert _skewed(binding, subject=subject) == ("unverified", ("before_mutation",))


def test_engine_a_run_bound_to_another_commit_is_not_bound_before_time_is_read() -> None:
    """The subject rule refuses it outright: it is about other code, whatever its time."""
    other = FactBinding(commit="b" * 40, tree_clean=True)
    assert _skewed(other, subject=Subject(head_sha=HEAD)) == ("unverified", ("not_bound",))


def test_engine_a_binding_orders_only_code_changes() -> None:
    """A deploy dated after the run is not in the commit the run tested."""
    state, _ = _skewed(FactBinding(commit=HEAD, tree_clean=True), kind="deploy")
    assert state == "unverified"
