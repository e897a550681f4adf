"""Test what merges: a head that lacks the base branch's tip was not tested as it will merge.

A branch that forked before a test was added to the base still passes its own tests, and
merging it turns the base red. The git collector records whether the head under review contains
the base's tip (`merge-base --is-ancestor`); a head that does not is unverified. A head that is
the merged result (GitLab's merged-results pipelines, GitHub's `refs/pull/N/merge`) or a branch
rebased onto the tip contains it, and is decided as usual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.claim.model import VerdictState
from gate.engine.results import Judgement, Unmet

if TYPE_CHECKING:
    from gate.claim.changed_paths import ChangedPaths


def judge_base_tip(changed: ChangedPaths) -> list[Judgement]:
    """Unverified (`behind_base`) when the head lacks the base's tip; nothing when the source
    did not ask (GitHub's PR file list) or the tip is there."""
    tip = changed.base_tip
    if tip is None or tip.contained:
        return []
    return [Judgement("rule base_tip", VerdictState.UNVERIFIED, Unmet(
        "behind_base",
        f"the head does not contain {tip.ref}'s tip {tip.sha[:12]}: the tests ran without the"
        f" base's latest commits, so what was tested is not what merging produces (a test"
        f" added to {tip.ref} since the branch forked never ran against this change); merge"
        f" or rebase {tip.ref} into the branch and test again, or test the merged result"
        " (GitLab merged results pipelines, GitHub's refs/pull/N/merge)",
    ))]
