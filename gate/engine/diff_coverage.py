"""The claim matches the diff: every changed file is claimed, every claimed file changed.

The agent chooses which mutations its claim lists; the change's file list (GitHub's
`pulls/{n}/files`, or git's diff) is what it cannot choose. So:

- every changed path (a rename: both its paths) must match the target of a claimed
  code-change mutation (kind in the policy's `code_change_kinds`), or a policy
  `unclaimed_ok` glob, or be a claim file of this change; otherwise `unclaimed_change`, one
  per file, unverified;
- a claimed code-change mutation whose target matches no changed path is `not_in_diff`
  (the change it claims is not in this change), unverified;
- a list shorter than the source's own count (GitHub lists at most 300 files of a comparison,
  3,000 of a pull request) cannot show
  what the rest holds: `incomplete_diff`, unverified.

Targets and globs match with `fnmatch.fnmatchcase` against the whole path: `*` also
crosses `/` (`app/*` matches `app/a/b.py`), matching is case-sensitive, and a target without
glob characters matches only itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

from gate.claim.model import Claim, Mutation, VerdictState
from gate.claim.policy import Policy
from gate.engine.base_tip import judge_base_tip
from gate.engine.results import Judgement, Unmet

if TYPE_CHECKING:
    from gate.claim.changed_paths import ChangedPaths

MAX_NAMED = 20


def _matches(path: str, patterns: Sequence[str]) -> bool:
    return any(path == p or fnmatchcase(path, p) for p in patterns)


def judge_diff(claim: Claim, changed: ChangedPaths, policy: Policy) -> list[Judgement]:
    """One judgement per changed path and per claimed code-change mutation, plus the list's
    completeness; the claim file itself and `unclaimed_ok` paths need no mutation."""
    code_changes = [m for m in claim.mutations if m.kind in policy.code_change_kinds]
    targets = [m.target for m in code_changes if m.target]
    exempt = (*changed.claim_files, *policy.claims.unclaimed_ok)
    paths = changed.paths
    judgements = [_judge_path(path, targets, exempt, changed.source) for path in paths]
    if not changed.complete:
        judgements.append(_incomplete(changed))
    else:  # with files missing from the list, a target may be among them
        judgements += [_judge_target(m, paths, changed.source) for m in code_changes]
    return judgements + judge_base_tip(changed)


def _judge_path(path: str, targets: Sequence[str], exempt: Sequence[str], source: str
                ) -> Judgement:
    subject = f"changed-file {path}"
    if _matches(path, targets) or _matches(path, exempt):
        return Judgement(subject, VerdictState.VERIFIED)
    return Judgement(subject, VerdictState.UNVERIFIED, Unmet(
        "unclaimed_change",
        f"{path} is changed ({source}) but no claimed code-change mutation names it: every"
        " changed file must be a claimed mutation (its target, a path or glob) or match the"
        " policy's unclaimed_ok; add the mutation to the claim, or the glob to the policy",
        path=path,
    ))


def _judge_target(mutation: Mutation, paths: Sequence[str], source: str) -> Judgement:
    subject = f"claimed-target {mutation.id}"
    target = mutation.target
    if target and any(p == target or fnmatchcase(p, target) for p in paths):
        return Judgement(subject, VerdictState.VERIFIED)
    named = f"target {target!r}" if target else "no target"
    return Judgement(subject, VerdictState.UNVERIFIED, Unmet(
        "not_in_diff",
        f"mutation {mutation.id} ({mutation.kind}) claims a code change with {named}, but no"
        f" file it names is changed ({source}): the claim describes work this change does not"
        " contain",
        mutation=mutation.id,
    ))


def _incomplete(changed: ChangedPaths) -> Judgement:
    return Judgement("rule changed_files", VerdictState.UNVERIFIED, Unmet(
        "incomplete_diff",
        f"{changed.source} lists {changed.listed} files, fewer than the change has (at least"
        f" {changed.expected}): GitHub cuts its lists short (300 files of a comparison, 3,000"
        " of a pull request), so the files beyond the list cannot be held against the claim;"
        " split the change into smaller pull requests",
    ))
