"""Merging what the collectors saw: one picture of each thing only one of them observes."""

from __future__ import annotations

import pytest

from gate.claim.ci_facts import CiObservation, UnreadArtifact
from gate.evidence.interface import Collected


def test_the_one_ci_picture_is_kept_with_everything_else_merged() -> None:
    seen = CiObservation(unread=(UnreadArtifact("junit-a", ".github/workflows/t.yml", "410"),))
    merged = Collected.merge([Collected(notes=("a",)), Collected(ci=seen, notes=("b",))])
    assert merged.ci == seen
    assert merged.notes == ("a", "b")


def test_two_ci_pictures_are_a_wiring_error_not_a_silent_choice() -> None:
    """Taking the first would drop the other's unread artifacts, which block `verified`."""
    one = CiObservation()
    other = CiObservation(unread=(UnreadArtifact("junit-b", ".github/workflows/t.yml", "5xx"),))
    with pytest.raises(ValueError, match="two collectors observed the CI runs"):
        Collected.merge([Collected(ci=one), Collected(ci=other)])
