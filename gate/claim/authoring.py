"""Writing a claim: pure edits of a claim document (a JSON object as `json.loads` gives it).

The edits work on the raw document, not on the model, so whatever the writer put there
(key order, `x-` fields at any level) survives; `claim_command` reads and writes the file
and validates the result with the loader before anything reaches the disk.

File mutations take their kinds from the policy's default code-change kinds, so the
built-in policy and a test run cover them without `covers`: an added file is `file_write`
(a file that did not exist now does), a modified one `file_edit`, a deleted one
`file_delete`; a rename is a `file_delete` of the old path and a `file_write` of the new
one (both paths changed, and a later check against the PR's file list needs both).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.claim.errors import InvalidInput
from gate.claim.jsondoc import parse_json
from gate.claim.model import INTENDED_EXTENSION, JSON, SPEC_VERSION
from gate.claim.policy import DEFAULT_CODE_CHANGE_KINDS
from gate.claim.timefmt import format_rfc3339

FILE_WRITE = "file_write"
FILE_EDIT = "file_edit"
FILE_DELETE = "file_delete"

#: What `--expected` becomes on a mutation: the field the state_readback probe compares the
#: record with (gate/evidence/probe/observe.py). The spec's mutation has no such field.
INTENDED_FIELD = INTENDED_EXTENSION

_KIND_FOR_STATUS = {
    ChangeStatus.ADDED: FILE_WRITE,
    ChangeStatus.COPIED: FILE_WRITE,
    ChangeStatus.MODIFIED: FILE_EDIT,
    ChangeStatus.TYPE_CHANGED: FILE_EDIT,
    ChangeStatus.DELETED: FILE_DELETE,
}
_MAX_ID = 256
_ID_NUMBER = re.compile(r"^m([1-9][0-9]{0,8})$")

Document = dict[str, Any]


@dataclass(frozen=True)
class FileChange:
    """One file mutation to claim: a code-change kind, a repository path, a commit time."""

    kind: str
    target: str
    at: datetime


@dataclass(frozen=True)
class Edit:
    """A new document and one line per thing the edit did, for the person running it."""

    document: Document
    done: tuple[str, ...]
    notes: tuple[str, ...] = ()


def file_changes(
    changed: Iterable[ChangedPath], times: Mapping[str, datetime], fallback: datetime,
    skip: Iterable[str] = (),
) -> list[FileChange]:
    """The file mutations for a diff: one per changed path (a rename gives two). `times`
    holds the last commit time per path; a path without one gets `fallback` (HEAD's time,
    never earlier than the truth). Paths in `skip` (the claim file itself) are left out."""
    skipped = set(skip)
    found: list[FileChange] = []
    for change in changed:
        if change.status is ChangeStatus.RENAMED and change.old_path is not None:
            pairs = [(FILE_DELETE, change.old_path), (FILE_WRITE, change.path)]
        else:
            pairs = [(_KIND_FOR_STATUS[change.status], change.path)]
        for kind, path in pairs:
            if path in skipped:
                continue
            _refuse_unnamable(path)
            found.append(FileChange(kind, path, times.get(path, fallback)))
    return found


def _refuse_unnamable(path: str) -> None:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise InvalidInput(
            shown, None, "this file name is not UTF-8, so a JSON claim cannot name it",
            "rename the file to a UTF-8 name (or claim it by hand with a glob target)",
        ) from None


def _require_text(value: str | None, option: str, limit: int | None = None,
                  empty_ok: bool = False) -> None:
    if value is None:
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            option, None, "is not valid UTF-8 text", "pass the value as UTF-8"
        ) from None
    if empty_ok:
        return
    if not value.strip():
        raise InvalidInput(option, None, "must not be empty")
    if limit is not None and len(value) > limit:
        raise InvalidInput(option, None, f"is {len(value)} characters; at most {limit}")


def new_claim(task_id: str, outcome: str, description: str | None = None) -> Document:
    """A spec v0.1 claim with no mutations yet (add them with the other edits)."""
    _require_text(task_id, "--task", _MAX_ID)
    _require_text(outcome, "--outcome")
    _require_text(description, "--description", empty_ok=True)
    return {
        "spec_version": SPEC_VERSION,
        "task": {"id": task_id, "description": description if description is not None
                 else outcome},
        "claimed_outcome": outcome,
        "mutations": [],
    }


def next_mutation_id(mutations: Sequence[Mapping[str, JSON]]) -> str:
    """`m<N>` with N one above the highest such id already used (ids never get reused)."""
    highest = 0
    for mutation in mutations:
        found = _ID_NUMBER.match(str(mutation.get("id", "")))
        if found:
            highest = max(highest, int(found[1]))
    return f"m{highest + 1}"


def _mutations(document: Document) -> list[dict[str, JSON]]:
    mutations = document.get("mutations")
    if not isinstance(mutations, list):  # the loader ran first; this is a programming error
        raise TypeError("the claim document has no mutation list")
    return mutations


def _mutation(mutation_id: str, kind: str, target: str, at: datetime) -> dict[str, JSON]:
    return {"id": mutation_id, "kind": kind, "target": target, "at": format_rfc3339(at)}


def add_file_changes(
    document: Document, changes: Sequence[FileChange],
    code_change_kinds: Sequence[str] = DEFAULT_CODE_CHANGE_KINDS,
) -> Edit:
    """Claim each changed file once. A file already claimed by a code-change mutation keeps
    its id and `x-` fields and is brought up to date (kind and time as git says now), so
    running this again after more commits neither duplicates nor leaves a stale time."""
    result = copy.deepcopy(document)
    mutations = _mutations(result)
    claimed: dict[str, dict[str, JSON]] = {}
    for mutation in mutations:
        target = mutation.get("target")
        if mutation.get("kind") in code_change_kinds and isinstance(target, str):
            claimed.setdefault(target, mutation)
    done: list[str] = []
    for change in changes:
        at = format_rfc3339(change.at)
        existing = claimed.get(change.target)
        if existing is None:
            mutation_id = next_mutation_id(mutations)
            added = _mutation(mutation_id, change.kind, change.target, change.at)
            mutations.append(added)
            claimed[change.target] = added
            done.append(f"added {mutation_id} {change.kind} {_shown(change.target)} at {at}")
        elif (existing.get("kind"), existing.get("at")) != (change.kind, at):
            existing["kind"] = change.kind
            existing["at"] = at
            done.append(
                f"updated {existing.get('id')} {change.kind} {_shown(change.target)} at {at}"
            )
    in_diff = {change.target for change in changes}
    notes = tuple(
        f"note: {mutation.get('id')} {mutation.get('kind')} {_shown(target)} is claimed but not"
        " changed in the diff; remove it if the branch no longer changes that file"
        for target, mutation in claimed.items()
        if target not in in_diff and not set("*?[") & set(target)
    )
    return Edit(result, tuple(done), notes)


def parse_expected(text: str) -> dict[str, JSON]:
    """`--expected`: a JSON object of what the agent expects the target to hold (read as
    strictly as a claim: no duplicate keys, no NaN, which the claim file could not hold)."""
    value = parse_json(text, "--expected", "--expected value")
    if not isinstance(value, dict):
        raise InvalidInput(
            "--expected", "1:1", f"must be a JSON object, not {type(value).__name__}",
            """name the fields, e.g. --expected '{"billing_zip": "94107"}'""",
        )
    return value


def add_mutation(
    document: Document, kind: str, target: str, at: datetime,
    intended: Mapping[str, JSON] | None = None,
) -> Edit:
    """Claim one mutation (a state write, a deploy, ...). The same mutation again (kind,
    target, time and intention all equal) is not added twice."""
    _require_text(kind, "--kind")
    _require_text(target, "--target")
    result = copy.deepcopy(document)
    mutations = _mutations(result)
    wanted = _mutation("", kind, target, at)
    if intended is not None:
        wanted[INTENDED_FIELD] = dict(intended)
    for mutation in mutations:
        if all(mutation.get(key) == value for key, value in wanted.items() if key != "id") and (
            intended is not None or INTENDED_FIELD not in mutation
        ):
            return Edit(result, (f"already claimed as {mutation.get('id')}; nothing added",))
    wanted["id"] = next_mutation_id(mutations)
    mutations.append(wanted)
    return Edit(result, (f"added {wanted['id']} {kind} {_shown(target)} at {wanted['at']}",))


def _shown(path: str) -> str:
    """A path on one line: control characters (a newline in a file name) escaped."""
    text = json.dumps(path, ensure_ascii=False)
    return path if text[1:-1] == path else text


def dump_document(document: Mapping[str, JSON]) -> bytes:
    """The claim file's bytes: two-space JSON, UTF-8, keys in the order they came."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
