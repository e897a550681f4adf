"""Pure claim edits: what `claim add-changes` and `claim add` do to a document."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gate.claim.authoring import (
    FileChange,
    add_file_changes,
    add_mutation,
    dump_document,
    file_changes,
    new_claim,
    next_mutation_id,
    parse_expected,
)
from gate.claim.diff_facts import ChangedPath, ChangeStatus
from gate.claim.errors import InvalidInput
from gate.claim.loader import parse_claim_bytes

T1 = datetime(2026, 8, 2, 8, 0, tzinfo=UTC)
T2 = T1 + timedelta(hours=1)


def _claim() -> dict[str, Any]:
    return {
        "x-first": 1,
        "spec_version": "0.1",
        "task": {"id": "T-1", "x-ticket": "JIRA-9", "description": "d"},
        "claimed_outcome": "done",
        "mutations": [{"id": "m1", "kind": "deploy", "target": "production",
                       "at": "2026-08-02T07:00:00Z", "x-note": "blue/green"}],
        "x-last": {"nested": True},
    }


def test_new_claim_is_valid_and_has_no_mutations() -> None:
    document = new_claim("T-1", "The parser accepts empty input.")
    assert document == {
        "spec_version": "0.1",
        "task": {"id": "T-1", "description": "The parser accepts empty input."},
        "claimed_outcome": "The parser accepts empty input.",
        "mutations": [],
    }
    parse_claim_bytes(dump_document(document), "new")
    assert new_claim("T-1", "o", "the task")["task"]["description"] == "the task"


@pytest.mark.parametrize(
    ("task", "outcome", "message"),
    [("", "o", "--task: must not be empty"), (" ", "o", "--task: must not be empty"),
     ("x" * 257, "o", "--task: is 257 characters; at most 256"),
     ("T", "\n", "--outcome: must not be empty"),
     ("T\udcff", "o", "--task: is not valid UTF-8 text")],
)
def test_new_claim_refuses_empty_or_long_values(task: str, outcome: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        new_claim(task, outcome)


def test_a_description_that_is_not_utf8_is_refused() -> None:
    with pytest.raises(InvalidInput, match="--description: is not valid UTF-8"):
        new_claim("T", "o", "\udcff")


def test_diff_statuses_become_code_change_kinds_and_renames_claim_both_paths() -> None:
    changed = [
        ChangedPath(ChangeStatus.ADDED, "new.py"),
        ChangedPath(ChangeStatus.MODIFIED, "edit.py"),
        ChangedPath(ChangeStatus.TYPE_CHANGED, "link"),
        ChangedPath(ChangeStatus.DELETED, "gone.py"),
        ChangedPath(ChangeStatus.RENAMED, "to.py", "from.py"),
        ChangedPath(ChangeStatus.COPIED, "copy.py", "new.py"),
        ChangedPath(ChangeStatus.MODIFIED, ".claim.json"),
    ]
    found = file_changes(changed, {"edit.py": T1}, T2, skip=[".claim.json"])
    assert found == [
        FileChange("file_write", "new.py", T2),
        FileChange("file_edit", "edit.py", T1),
        FileChange("file_edit", "link", T2),
        FileChange("file_delete", "gone.py", T2),
        FileChange("file_delete", "from.py", T2),
        FileChange("file_write", "to.py", T2),
        FileChange("file_write", "copy.py", T2),
    ]


def test_a_name_that_is_not_utf8_cannot_be_claimed() -> None:
    with pytest.raises(InvalidInput, match=r"\\xff.py: this file name is not UTF-8"):
        file_changes([ChangedPath(ChangeStatus.ADDED, "\udcff.py")], {}, T1)


def test_add_file_changes_appends_keeps_everything_else_and_is_idempotent() -> None:
    original = _claim()
    changes = [FileChange("file_edit", "a.py", T1), FileChange("file_write", "b c.py", T1)]
    first = add_file_changes(original, changes)
    assert original == _claim()  # pure: the input is untouched
    assert [m["id"] for m in first.document["mutations"]] == ["m1", "m2", "m3"]
    assert first.document["mutations"][1] == {
        "id": "m2", "kind": "file_edit", "target": "a.py", "at": "2026-08-02T08:00:00Z"
    }
    assert list(first.document) == list(original)  # key order, x- fields first and last
    assert first.document["task"] == original["task"]
    assert first.done == ("added m2 file_edit a.py at 2026-08-02T08:00:00Z",
                          "added m3 file_write b c.py at 2026-08-02T08:00:00Z")
    again = add_file_changes(first.document, changes)
    assert (again.document, again.done) == (first.document, ())
    assert dump_document(again.document) == dump_document(first.document)


def test_a_later_commit_updates_the_claimed_file_in_place() -> None:
    document = add_file_changes(_claim(), [FileChange("file_write", "a.py", T1)]).document
    document["mutations"][1]["x-mine"] = "kept"
    later = add_file_changes(document, [FileChange("file_write", "a.py", T2)])
    assert later.document["mutations"][1] == {
        "id": "m2", "kind": "file_write", "target": "a.py", "at": "2026-08-02T09:00:00Z",
        "x-mine": "kept",
    }
    assert later.done == ("updated m2 file_write a.py at 2026-08-02T09:00:00Z",)


def test_a_file_claimed_under_another_code_change_kind_is_not_claimed_twice() -> None:
    document = _claim()
    document["mutations"].append({"id": "m7", "kind": "code_change", "target": "a.py",
                                  "at": "2026-08-02T08:00:00Z"})
    edit = add_file_changes(document, [FileChange("file_edit", "a.py", T1)])
    assert [m["id"] for m in edit.document["mutations"]] == ["m1", "m7"]
    assert edit.document["mutations"][1]["kind"] == "file_edit"


def test_a_claimed_file_no_longer_in_the_diff_is_pointed_out_not_removed() -> None:
    document = _claim()
    document["mutations"] += [
        {"id": "m2", "kind": "file_edit", "target": "reverted.py", "at": "2026-08-02T08:00:00Z"},
        {"id": "m3", "kind": "file_edit", "target": "src/*.py", "at": "2026-08-02T08:00:00Z"},
    ]
    edit = add_file_changes(document, [FileChange("file_edit", "a.py", T1)])
    assert [m["target"] for m in edit.document["mutations"]] == [
        "production", "reverted.py", "src/*.py", "a.py"]
    assert edit.notes == ("note: m2 file_edit reverted.py is claimed but not changed in the"
                          " diff; remove it if the branch no longer changes that file",)


def test_a_newline_in_a_name_is_shown_escaped() -> None:
    edit = add_file_changes(_claim(), [FileChange("file_write", "a\nb.py", T1)])
    assert edit.done == ('added m2 file_write "a\\nb.py" at 2026-08-02T08:00:00Z',)
    assert edit.document["mutations"][1]["target"] == "a\nb.py"


def test_next_mutation_id_never_reuses() -> None:
    assert next_mutation_id([]) == "m1"
    assert next_mutation_id([{"id": "m9"}, {"id": "deploy-1"}, {"id": "m2"}]) == "m10"
    assert next_mutation_id([{"id": "m0"}, {"id": "m01"}]) == "m1"


def test_add_mutation_with_an_intention_and_no_duplicate() -> None:
    edit = add_mutation(_claim(), "state_write", "accounts/4471", T1, {"billing_zip": "94107"})
    assert edit.document["mutations"][1] == {
        "id": "m2", "kind": "state_write", "target": "accounts/4471",
        "at": "2026-08-02T08:00:00Z", "x-intended": {"billing_zip": "94107"},
    }
    again = add_mutation(edit.document, "state_write", "accounts/4471", T1,
                         {"billing_zip": "94107"})
    assert again.document == edit.document
    assert again.done == ("already claimed as m2; nothing added",)
    other = add_mutation(edit.document, "state_write", "accounts/4471", T1, {"billing_zip": "1"})
    assert len(other.document["mutations"]) == 3
    bare = add_mutation(edit.document, "state_write", "accounts/4471", T1)
    assert len(bare.document["mutations"]) == 3  # without an intention it is another entry


@pytest.mark.parametrize(
    ("kind", "target", "message"),
    [("", "t", "--kind: must not be empty"), ("deploy", "", "--target: must not be empty")],
)
def test_add_mutation_refuses_empty_values(kind: str, target: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        add_mutation(_claim(), kind, target, T1)


def test_parse_expected() -> None:
    assert parse_expected('{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}
    with pytest.raises(InvalidInput, match=r"--expected:1:7: the --expected value is not valid"):
        parse_expected('{"a": }')
    with pytest.raises(InvalidInput, match="appears twice"):
        parse_expected('{"a": 1, "a": 2}')
    with pytest.raises(InvalidInput, match="NaN is not JSON"):
        parse_expected('{"a": NaN}')
    with pytest.raises(InvalidInput, match="must be a JSON object, not list"):
        parse_expected("[1]")


def test_dump_document_is_utf8_json_with_a_final_newline() -> None:
    data = dump_document({"a": "é\n"})
    assert data == '{\n  "a": "é\\n"\n}\n'.encode()
    assert json.loads(data) == {"a": "é\n"}
