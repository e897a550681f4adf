"""What the Action leaves under `.claim-gate/` in the workspace, and when it cannot."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.claim.errors import CouldNotDecide
from gate.faces.action.attestation_file import write_statement
from gate.faces.action.runner_files import write_step_file, write_timelines


def test_files_land_under_the_step_folder_named_relative_to_the_workspace(
    tmp_path: Path,
) -> None:
    assert write_step_file(tmp_path, "completed-claim.json", "{}\n", "completed claim") == (
        ".claim-gate/completed-claim.json")
    assert (tmp_path / ".claim-gate" / "completed-claim.json").read_text() == "{}\n"
    assert write_timelines(tmp_path, ["<svg/>", "<svg></svg>"]) == [
        ".claim-gate/timeline-1.svg", ".claim-gate/timeline-2.svg"]
    assert write_timelines(tmp_path, ["<svg/>"]) == [".claim-gate/timeline.svg"]
    assert write_timelines(tmp_path, []) == []
    assert write_statement(tmp_path, {"_type": "x"}) == ".claim-gate/attestation.json"
    assert json.loads((tmp_path / ".claim-gate" / "attestation.json").read_text()) == {
        "_type": "x"}
    assert write_statement(tmp_path, None) == ""


@pytest.mark.parametrize(("write", "what"), [
    (lambda w: write_step_file(w, "completed-claim.json", "{}", "completed claim"),
     "completed claim"),
    (lambda w: write_timelines(w, ["<svg/>"]), "time line"),
    (lambda w: write_statement(w, {"_type": "x"}), "attestation"),
])
def test_an_unwritable_workspace_is_could_not_decide_naming_the_file(
    tmp_path: Path, write: Callable[[Path], object], what: str
) -> None:
    """A file where the folder should be: the gate cannot leave its results, and says which."""
    (tmp_path / ".claim-gate").write_text("in the way", encoding="utf-8")
    with pytest.raises(CouldNotDecide, match=rf"\.claim-gate/[^:]+: cannot write the {what}"):
        write(tmp_path)
