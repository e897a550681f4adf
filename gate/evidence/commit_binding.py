"""Is a test run about the commit under review? The strongest ordering proof for code.

A run on the exact commit the PR ends with followed every edit in it, whatever any clock
says. With `--head-sha`, a test run bound to another commit, run on a dirty tree, or not
bound to any commit is not evidence about the claimed work. This module reads the pytest
plugin's records (`x-commit`, `x-tree-clean`); JUnit files carry the same binding as
`claim-gate.commit` / `claim-gate.tree_clean` properties, read by `gate/evidence/junit.py`
(a merged file can hold several shards' bindings, and any one that is off decides).
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.claim.commit import normalise_sha
from gate.claim.facts import Disqualification
from gate.claim.model import JSON, CheckType, Evidence
from gate.claim.subject import Binding as FactBinding

OTHER_COMMIT = "other_commit"
DIRTY_TREE = "dirty_tree"
UNBOUND_COMMIT = "unbound_commit"




@dataclass(frozen=True)
class Binding:
    """What a piece of evidence says about the code it ran on, as its producer wrote it."""

    commit: str | None  # a normalised full sha, or None when absent or malformed
    tree_clean: bool | None  # None: not stated (e.g. a CI variable named the commit)
    written_commit: JSON = None  # the raw value, for the message when it is malformed



def binding_of_record(evidence: Evidence) -> Binding:
    """The binding in an evidence record's `x-commit` and `x-tree-clean` (hostile values)."""
    raw_commit = evidence.extensions.get("x-commit")
    raw_clean = evidence.extensions.get("x-tree-clean")
    return Binding(
        normalise_sha(raw_commit),
        raw_clean if isinstance(raw_clean, bool) else None if raw_clean is None else False,
        raw_commit,
    )


def check_binding(binding: Binding, head_sha: str | None) -> Disqualification | None:
    """Why this evidence is not about `head_sha`, or None when it is (or none was asked)."""
    if head_sha is None:
        return None
    if binding.commit is None:
        written = (
            "records no commit"
            if binding.written_commit is None
            else f"records the commit as {str(binding.written_commit)[:80]!r}, not a full sha"
        )
        return Disqualification(
            UNBOUND_COMMIT,
            f"the test run {written}, so it cannot show it tested {head_sha[:12]}; run the"
            " tests in a git checkout (or with the CI's commit variable set)",
        )
    if binding.commit != head_sha:
        return Disqualification(
            OTHER_COMMIT,
            f"the tests ran on commit {binding.commit[:12]}, not on the head {head_sha[:12]};"
            " they say nothing about the code under review: run them again on the head",
        )
    if binding.tree_clean is False:
        return Disqualification(
            DIRTY_TREE,
            f"the tests ran on {head_sha[:12]} with uncommitted changes in the working tree,"
            " so they tested other code than the commit; run them on a clean checkout",
        )
    return None


def check_record(evidence: Evidence, head_sha: str | None) -> Disqualification | None:
    """Commit binding for an operator's evidence record; only test runs are bound to code."""
    if evidence.check_type is not CheckType.TEST_RUN:
        return None
    return check_binding(binding_of_record(evidence), head_sha)


def record_fact_binding(evidence: Evidence) -> FactBinding | None:
    """A test-run record's commit and tree in the shape every fact shares
    (gate/claim/subject.py), so the engine's subject rule reads the command line's bindings as
    it reads GitHub's. It is what the record's producer wrote; `check_record` has already
    judged it against the head."""
    if evidence.check_type is not CheckType.TEST_RUN:
        return None
    stated = binding_of_record(evidence)
    if stated.commit is None:
        return None
    return FactBinding(commit=stated.commit, tree_clean=stated.tree_clean)
