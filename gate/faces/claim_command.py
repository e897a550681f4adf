"""`claim-gate claim …`: the commands an agent (or its harness) runs to write its claim.

The edits are pure (gate/claim/authoring.py) and the diff comes from git
(gate/evidence/git_diff.py); this module parses the arguments, reads the claim file, checks
the edited document with the same loader the gate uses, and replaces the file atomically.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from gate.claim.authoring import (
    Edit,
    add_file_changes,
    add_mutation,
    dump_document,
    file_changes,
    new_claim,
    parse_expected,
)
from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.expectations import needs
from gate.claim.loader import parse_claim_bytes
from gate.claim.policy import default_policy
from gate.claim.policy_parse import load_policy
from gate.claim.probe_policy import parse_probes
from gate.claim.wording import plural
from gate.evidence.git_diff import (
    GitDiffError,
    GitUnavailable,
    ShallowClone,
    UnknownBase,
    changed_in,
    commit_times,
    default_base,
    head_time,
    resolve_range,
)
from gate.evidence.git_probe import run_git
from gate.evidence.junit import required_tests
from gate.evidence.pytest_record import dirty_paths
from gate.faces.claim_files import load_claim_file, refuse_odd_path, write_atomically


def _save(path: Path, edit: Edit, out: TextIO) -> None:
    data = dump_document(edit.document)
    parse_claim_bytes(data, str(path))  # never write what the gate would refuse
    write_atomically(path, data)
    for line in edit.done:
        out.write(f"{line}\n")


def _new(args: argparse.Namespace, out: TextIO) -> int:
    path: Path = args.file
    refuse_odd_path(path)
    if path.exists() and not args.force:
        raise InvalidInput(
            str(path), None, "a claim file already exists",
            "add to it with `claim add-changes` / `claim add`, or pass --force to start over",
        )
    document = new_claim(args.task, args.outcome, args.description)
    _save(path, Edit(document, (f"wrote {path}: task {args.task!r}, no mutations yet",)), out)
    return 0


def _git_problem(exc: GitDiffError, repo: Path) -> Exception:
    if isinstance(exc, UnknownBase | ShallowClone | GitUnavailable):
        return InvalidInput(str(repo), None, str(exc))
    return CouldNotDecide(f"{repo}: {exc}")


def _relative(path: Path, top: Path) -> str | None:
    try:
        return path.resolve().relative_to(top.resolve()).as_posix()
    except ValueError:
        return None


def _add_changes(args: argparse.Namespace, out: TextIO) -> int:
    path: Path = args.file
    loaded = load_claim_file(path)
    repo: Path = args.repo
    try:
        base = args.base or default_base(repo)
        if base is None:
            raise InvalidInput(
                "--base", None,
                "no base given, and the remote's default branch is not known here"
                " (no origin/HEAD)",
                "pass the branch the work started from, e.g. --base origin/main"
                " (or run `git remote set-head origin --auto`)",
            )
        resolved = resolve_range(repo, base)
        changed = changed_in(resolved)
        times = commit_times(resolved)
        fallback = head_time(resolved)
    except GitDiffError as exc:
        raise _git_problem(exc, repo) from None
    own = _relative(path, resolved.toplevel)
    changes = file_changes(changed, times, fallback, skip=(own,) if own else ())
    edit = add_file_changes(loaded.document.raw, changes)
    if edit.done:
        _save(path, edit, out)
    for note in edit.notes:
        out.write(f"{note}\n")
    out.write(
        f"{path}: {plural(len(changes), 'changed file')} in {base}...HEAD (merge base"
        f" {resolved.merge_base[:12]}), {plural(len(edit.done), 'mutation')} added or updated\n"
    )
    _warn_uncommitted(resolved.toplevel, own, out)
    return 0


def _warn_uncommitted(top: Path, own: str | None, out: TextIO) -> None:
    """Only commits are in the claim; say so when the agent left work uncommitted."""
    try:
        status = run_git(["status", "--porcelain", "-z", "--untracked-files=all"], top)
    except (OSError, subprocess.SubprocessError):
        out.write("note: could not ask git for uncommitted changes\n")
        return
    dirty = dirty_paths(status, (own,) if own else ())
    if dirty:
        out.write(
            f"note: {plural(len(dirty), 'uncommitted change')} not in the claim"
            f" (first: {dirty[0]!r}); commit them and run `claim add-changes` again\n"
        )


def _add(args: argparse.Namespace, out: TextIO, clock: Callable[[], datetime]) -> int:
    path: Path = args.file
    loaded = load_claim_file(path)
    intended = parse_expected(args.expected) if args.expected is not None else None
    at = args.at if args.at is not None else clock()
    edit = add_mutation(loaded.document.raw, args.kind, args.target, at, intended)
    _save(path, edit, out)
    return 0


def _check(args: argparse.Namespace, out: TextIO, now: datetime) -> int:
    loaded = load_claim_file(args.file)
    policy = load_policy(args.policy) if args.policy is not None else default_policy()
    claim = loaded.claim
    named = required_tests(policy, claim, loaded.source)
    probes = parse_probes(policy.sections["probes"], policy.source) \
        if "probes" in policy.sections else None
    count = len(claim.mutations)
    out.write(
        f"{loaded.source}: a valid completion claim v{claim.spec_version} for task"
        f" {claim.task.id!r} with {count} mutation{'s' if count != 1 else ''}\n"
        f"{policy.tightened_by(claim.policy).describe()}\n"
        "The gate will need:\n"
    )
    for need in needs(claim, policy, named, probes, now):
        out.write(f"  {need.text}\n")
    out.write(
        "Evidence the agent writes itself (inside the claim) is self-attested and never counts;"
        " the gate counts what CI, probes or the operator observed.\n"
    )
    return 0


def _utc_now() -> datetime:
    return datetime.now(UTC)


def run_claim_command(
    args: argparse.Namespace, out: TextIO | None = None,
    clock: Callable[[], datetime] = _utc_now,
) -> int:
    """Run one `claim` subcommand; errors propagate to the CLI's one handler (exit 3/4)."""
    stream = out or sys.stdout
    if args.claim_command == "new":
        return _new(args, stream)
    if args.claim_command == "add-changes":
        return _add_changes(args, stream)
    if args.claim_command == "add":
        return _add(args, stream, clock)
    return _check(args, stream, clock())

