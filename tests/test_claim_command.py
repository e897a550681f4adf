"""`claim-gate claim …` end to end in a temporary git repository (through `main()`)."""

from __future__ import annotations

import contextlib
import io
import os
import stat
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from gate.claim.timefmt import format_rfc3339, parse_rfc3339
from gate.faces.cli import main
from tests.agent_repo import (
    NEWLINE_NAME,
    SPACE_NAME,
    AgentRepo,
    agent_change,
    ci_junit,
    last_mutation_time,
    make_agent_repo,
    policy_requiring_test_run,
    read_claim,
    verify,
)
from tests.gitrepo import commit_all, git, git_env

NOW = datetime(2026, 8, 27, 18, 4, 10, tzinfo=UTC)
DOCS = Path(__file__).resolve().parent.parent / "docs" / "claim.md"


def claim_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["claim", *argv], clock=lambda: NOW, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def repo(tmp_path: Path) -> AgentRepo:
    return make_agent_repo(tmp_path)


def _new(claim: Path) -> None:
    code, out, err = claim_cli("new", "--task", "FIX-7", "--outcome", "add() adds.",
                               "--file", str(claim))
    assert (code, err) == (0, ""), err
    assert out == f"wrote {claim}: task 'FIX-7', no mutations yet\n"


def test_the_whole_story_new_add_changes_add_check_and_verify(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    changed = agent_change(repo)
    commit_time = parse_rfc3339(git(repo.path, "show", "-s", "--format=%cI", "HEAD"))

    code, out, err = claim_cli("add-changes", "--file", str(claim), "--repo", str(repo.path))
    assert (code, err) == (0, "")
    document = read_claim(claim)
    by_target = {m["target"]: m for m in document["mutations"]}
    assert sorted(by_target) == sorted(changed)
    assert {t: m["kind"] for t, m in by_target.items()} == {
        "src/calc.py": "file_edit", "src/legacy.py": "file_delete",
        "src/util.py": "file_delete", "src/helpers.py": "file_write",
        SPACE_NAME: "file_write", NEWLINE_NAME: "file_write",
    }
    assert {parse_rfc3339(m["at"]) for m in document["mutations"]} == {commit_time}
    assert [m["id"] for m in document["mutations"]] == [f"m{i}" for i in range(1, 7)]
    assert 'file_write "notes\\nv2.md"' in out
    assert "6 changed files in origin/main...HEAD" in out
    assert "note:" not in out  # the uncommitted claim file itself is not work left behind

    # Idempotent: the same bytes, nothing reported as added.
    before = claim.read_bytes()
    code, out, _ = claim_cli("add-changes", "--file", str(claim), "--repo", str(repo.path))
    assert code == 0
    assert claim.read_bytes() == before
    assert "0 mutations added or updated" in out

    # More work later: the file's time moves, nothing is duplicated.
    (repo.path / "src" / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    later = commit_time + timedelta(hours=1)
    subprocess.run(["git", "commit", "-q", "-am", "again"], cwd=repo.path, check=True,
                   env={**git_env(), "GIT_COMMITTER_DATE": later.isoformat()})
    calc = by_target["src/calc.py"]["id"]
    code, out, _ = claim_cli("add-changes", "--file", str(claim), "--repo", str(repo.path))
    assert code == 0
    assert f"updated {calc} file_edit src/calc.py at {format_rfc3339(later)}" in out
    assert len(read_claim(claim)["mutations"]) == 6

    code, out, _ = claim_cli("add", "--kind", "state_write", "--target", "accounts/4471",
                             "--expected", '{"billing_zip": "94107"}', "--file", str(claim))
    assert code == 0
    assert out == "added m7 state_write accounts/4471 at 2026-08-27T18:04:10Z\n"
    assert read_claim(claim)["mutations"][-1]["x-intended"] == {"billing_zip": "94107"}

    code, out, _ = claim_cli("check", "--file", str(claim))
    assert code == 0
    assert f"{claim}: a valid completion claim v0.1 for task 'FIX-7' with 7 mutations" in out
    assert f"  {calc} file_edit src/calc.py: needs a test_run written by CI after " in out
    assert '  m2 file_write "notes\\nv2.md": needs a test_run' in out
    assert ("  m7 state_write accounts/4471: needs a state_readback from the system of record"
            " after 2026-08-27T18:04:10Z") in out


def test_the_written_claim_verifies_with_ci_evidence_and_not_without(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    agent_change(repo)
    assert claim_cli("add-changes", "--file", str(claim), "--repo", str(repo.path))[0] == 0
    git(repo.path, "add", ".claim.json")
    commit_all(repo.path, "Completion claim")  # the claim file itself is not claimed
    document = read_claim(claim)
    assert ".claim.json" not in {m["target"] for m in document["mutations"]}
    last = last_mutation_time(document)
    policy = policy_requiring_test_run(repo.root)
    now = last + timedelta(minutes=5)

    code, verdict = verify(repo, claim, policy, ci_junit(repo, last), now)
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])
    code, verdict = verify(repo, claim, policy, None, now)
    assert (code, verdict["state"]) == (1, "unverified")
    assert {entry["code"] for entry in verdict["unmet"]} == {"no_evidence", "missing_check_type"}
    code, verdict = verify(repo, claim, policy, ci_junit(repo, last, failing=True), now)
    assert (code, verdict["state"]) == (2, "refuted")


def test_a_write_keeps_x_fields_key_order_and_mode(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    claim.write_text(
        '{"x-agent": {"name": "bot", "run": 7},\n'
        ' "mutations": [{"x-why": "config", "at": "2026-08-01T00:00:00+02:00", "id": "d1",'
        ' "kind": "deploy", "target": "staging"}],\n'
        ' "claimed_outcome": "done", "spec_version": "0.1",\n'
        ' "task": {"x-ticket": 42, "description": "", "id": "T"}, "x-last": [1, "two"]}\n'
    )
    claim.chmod(0o640)
    agent_change(repo)
    assert claim_cli("add-changes", "--file", str(claim), "--repo", str(repo.path))[0] == 0
    document = read_claim(claim)
    assert list(document) == ["x-agent", "mutations", "claimed_outcome", "spec_version", "task",
                              "x-last"]
    assert document["x-agent"] == {"name": "bot", "run": 7}
    assert document["x-last"] == [1, "two"]
    assert list(document["task"]) == ["x-ticket", "description", "id"]
    assert document["mutations"][0] == {"x-why": "config", "at": "2026-08-01T00:00:00+02:00",
                                        "id": "d1", "kind": "deploy", "target": "staging"}
    assert [m["id"] for m in document["mutations"]][1:] == [f"m{i}" for i in range(1, 7)]
    assert stat.S_IMODE(claim.stat().st_mode) == 0o640
    assert sorted(p.name for p in repo.path.iterdir() if p.name.startswith(".claim")) == [
        ".claim.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    repo: AgentRepo, mocker: MockerFixture
) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    before = claim.read_bytes()
    mocker.patch.object(Path, "replace", side_effect=OSError(28, "No space left on device"))
    code, _, err = claim_cli("add", "--kind", "deploy", "--target", "prod", "--file", str(claim))
    assert code == 4
    assert "cannot write the claim: No space left on device" in err
    assert claim.read_bytes() == before
    assert [p.name for p in repo.path.iterdir() if p.name.startswith(".claim")] == [".claim.json"]


def test_the_default_file_is_dot_claim_json_in_the_current_directory(
    repo: AgentRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo.path)
    assert claim_cli("new", "--task", "T", "--outcome", "o")[0] == 0
    agent_change(repo)
    code, out, _ = claim_cli("add-changes", "--base", "origin/main")
    assert code == 0
    assert "origin/main...HEAD" in out
    assert len(read_claim(repo.path / ".claim.json")["mutations"]) == 6


def test_uncommitted_work_is_named(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    agent_change(repo)
    (repo.path / "src" / "forgotten.py").write_text("pass\n")
    code, out, _ = claim_cli("add-changes", "--file", str(claim), "--repo", str(repo.path))
    assert code == 0
    assert ("note: 1 uncommitted change not in the claim (first: 'src/forgotten.py');"
            " commit them") in out
    assert "src/forgotten.py" not in {m["target"] for m in read_claim(claim)["mutations"]}


def test_check_under_a_policy_with_required_checks_and_probes(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    for kind, target in (("deploy", "production"), ("state_write", "accounts/1"),
                         ("migration", "db/0042")):
        assert claim_cli("add", "--kind", kind, "--target", target, "--at",
                         "2026-08-27T18:00:00+02:00", "--file", str(claim))[0] == 0
    policy = repo.root / "policy.yml"
    policy.write_text(
        "id: strict\nrequires: [test_run, endpoint_health]\nmax_age_s: {endpoint_health: 60}\n"
        "required_tests: [tests/test_calc.py::test_add]\n"
        "probes:\n  allowed_hosts: [records.example]\n"
        "  state_readback:\n    - target: 'accounts/{id}'\n"
        "      url: 'https://records.example/accounts/{id}'\n"
    )
    code, out, err = claim_cli("check", "--policy", str(policy), "--file", str(claim))
    assert code == 0, err
    lines = out.splitlines()
    assert lines[1].startswith("policy 'strict' from ")
    assert lines[3:] == [
        "  m1 deploy production: needs an endpoint_health check of the deployed thing after"
        " 2026-08-27T16:00:00Z (at most 60s old when the gate decides)",
        "  m2 state_write accounts/1: needs a state_readback from the system of record after"
        " 2026-08-27T16:00:00Z (at most 300s old when the gate decides); the policy reads it"
        " back itself (`verify --probe`), but the mutation states no x-intended, so the"
        " readback has nothing to compare (add it with `claim add ... --expected JSON`)",
        "  m3 migration db/0042: needs independent evidence whose `covers` names m3, observed"
        " after 2026-08-27T16:00:00Z (the policy's code-change kinds are file_write,"
        " file_edit, file_delete, code_change, commit; this kind is not one of them)",
        "  the policy requires a test_run: independent, observed after every mutation it"
        " covers, at most 86400s old when the gate decides",
        "  the policy requires a endpoint_health: independent, observed after every mutation"
        " it covers, at most 60s old when the gate decides",
        "  named tests must pass in the test_run: tests/test_calc.py::test_add",
        "Evidence the agent writes itself (inside the claim) is self-attested and never"
        " counts; the gate counts what CI, probes or the operator observed.",
    ]


def test_check_points_out_a_mutation_dated_in_the_future(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    assert claim_cli("add", "--kind", "deploy", "--target", "p", "--at",
                     "2026-08-28T00:00:00Z", "--file", str(claim))[0] == 0
    code, out, _ = claim_cli("check", "--file", str(claim))
    assert code == 0
    assert "note: it is dated after now (2026-08-27T18:04:10Z)" in out


def test_check_of_an_empty_claim_says_it_cannot_verify(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    code, out, _ = claim_cli("check", "--file", str(claim))
    assert code == 0
    assert "nothing to observe: a claim with no mutation" in out


def _bad_claim(path: Path) -> Path:
    path.write_text('{"spec_version": "0.1",\n "task": {"id": "T", "description": ""},\n'
                    ' "claimed_outcome": "o",\n "mutations": [{"id": "m1", "kind": "deploy",'
                    ' "at": "2026-08-27 18:00"}]}\n')
    return path


@pytest.mark.parametrize(
    ("setup", "argv", "message"),
    [
        (None, ["new", "--outcome", "o"], "the following arguments are required: --task"),
        (None, ["new", "--task", "", "--outcome", "o"], "--task: must not be empty"),
        (None, ["frobnicate"], "invalid choice: 'frobnicate'"),
        (None, [], "the following arguments are required: SUBCOMMAND"),
        ("new", ["new", "--task", "T", "--outcome", "o"],
         ".claim.json: a claim file already exists (add to it with"),
        (None, ["add", "--kind", "deploy", "--target", "p"],
         ".claim.json: there is no claim file here yet (start one with `claim-gate claim new"),
        ("new", ["add", "--kind", "deploy", "--target", "p", "--at", "2026-08-27T18:00:00"],
         "has no time zone"),
        ("new", ["add", "--kind", "state_write", "--target", "a/1", "--expected", "{'a': 1}"],
         "--expected:1:2: the --expected value is not valid JSON"),
        ("new", ["add", "--kind", "state_write", "--target", "a/1", "--expected", "42"],
         "--expected:1:1: must be a JSON object, not int"),
        ("new", ["add", "--kind", "", "--target", "a/1"], "--kind: must not be empty"),
        ("bad", ["check"],
         ".claim.json:4:53: /mutations/0/at: '2026-08-27 18:00' has no time zone"),
        ("bad", ["add", "--kind", "deploy", "--target", "p"], ".claim.json:4:53: /mutations/0/at"),
        ("symlink", ["add-changes"], ".claim.json: the claim path is a symbolic link"),
        ("directory", ["check"], ".claim.json: the claim path is a directory, not a file"),
        ("new", ["add-changes", "--base", "origin/nope"],
         "the base 'origin/nope' names no commit"),
        ("no-origin-head", ["add-changes"],
         "--base: no base given, and the remote's default branch is not known here"),
        ("new", ["check", "--policy", "missing.yml"], "missing.yml: no such policy file"),
    ],
)
def test_bad_input_is_exit_3_with_a_message_naming_the_place(
    repo: AgentRepo, monkeypatch: pytest.MonkeyPatch, setup: str | None, argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(repo.path)
    claim = repo.path / ".claim.json"
    if setup in ("new", "no-origin-head"):
        _new(claim)
    if setup == "no-origin-head":
        git(repo.path, "remote", "set-head", "origin", "--delete")
    if setup == "bad":
        _bad_claim(claim)
    if setup == "symlink":
        _new(repo.root / "elsewhere.json")
        claim.symlink_to(repo.root / "elsewhere.json")
    if setup == "directory":
        claim.mkdir()
    before = claim.read_bytes() if claim.is_file() and not claim.is_symlink() else None
    code, out, err = claim_cli(*argv)
    assert code == 3, (out, err)
    assert err.startswith("claim-gate: invalid input: ")
    assert message in err
    if before is not None:
        assert claim.read_bytes() == before  # a refused command writes nothing


def test_a_shallow_clone_is_refused_with_what_to_do(repo: AgentRepo) -> None:
    shallow = repo.root / "shallow"
    git(repo.root, "clone", "-q", "--depth", "1", f"file://{repo.root / 'origin.git'}",
        str(shallow))
    claim = shallow / ".claim.json"
    _new(claim)
    code, _, err = claim_cli("add-changes", "--file", str(claim), "--repo", str(shallow))
    assert code == 3
    assert "is a shallow clone" in err
    assert "git fetch --unshallow" in err


def test_outside_a_git_repository(tmp_path: Path) -> None:
    claim = tmp_path / "c.json"
    _new(claim)
    code, _, err = claim_cli("add-changes", "--base", "main", "--file", str(claim), "--repo",
                             str(tmp_path))
    assert code == 3
    assert "is not inside a git working tree" in err


def test_new_force_starts_over(repo: AgentRepo) -> None:
    claim = repo.path / ".claim.json"
    _new(claim)
    assert claim_cli("add", "--kind", "deploy", "--target", "p", "--file", str(claim))[0] == 0
    code, _, _ = claim_cli("new", "--task", "T2", "--outcome", "o", "--force", "--file",
                           str(claim))
    assert code == 0
    assert read_claim(claim)["mutations"] == []


def test_the_docs_name_every_option_of_every_claim_subcommand() -> None:
    docs = DOCS.read_text("utf-8")
    for command in ("new", "add-changes", "add", "check"):
        out = io.StringIO()
        with pytest.raises(SystemExit), contextlib.redirect_stdout(out):
            main(["claim", command, "--help"])
        options = {word for word in out.getvalue().split() if word.startswith("--")}
        options = {o.strip("[],") for o in options} - {"--help"}
        assert options
        missing = sorted(o for o in options if o not in docs)
        assert not missing, f"docs/claim.md lacks {missing} of `claim {command}`"


def test_the_real_command_from_the_agents_directory(repo: AgentRepo) -> None:
    assert repo.run("claim-gate", "claim", "new", "--task", "T", "--outcome", "o").returncode == 0
    agent_change(repo)
    result = repo.run("claim-gate", "claim", "add-changes")
    assert result.returncode == 0, result.stderr
    assert len(read_claim(repo.path / ".claim.json")["mutations"]) == 6
    result = repo.run("claim-gate", "claim", "add", "--kind", "deploy", "--target", "p", "--at",
                      "yesterday")
    assert result.returncode == 3
    assert "'yesterday' is not an RFC 3339 date-time" in result.stderr
    assert os.access(repo.path / ".claim.json", os.R_OK)
