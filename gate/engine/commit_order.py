"""Ordered by the commit: a test run bound to the exact head on a clean tree came after every
edit in that commit, whatever the agent's clock says.

Rule 2 orders evidence after the change it covers by time, and a code change's time is the
agent's word (`at`). An agent whose clock runs two minutes fast dates its edit after the CI
run that tested it, and an honest change would be unverified. For a code change, a binding is
the stronger proof: the run names the head under review (the decision's subject) and a clean
tree, so the edit was in the code it ran. Such a run is ordered after the code changes it
covers; the skew between the two clocks is reported, never hidden. Any other mutation (a
deploy, a state write) and any run without that binding are ordered by time, as before.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import timedelta

from gate.claim.facts import EvidenceItem
from gate.claim.model import CheckType, Mutation
from gate.claim.subject import Subject
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import duration


def bound_to_head(item: EvidenceItem, subject: Subject | None) -> bool:
    """The item is a test run its source bound to the subject's head, on a clean tree."""
    if subject is None or subject.head_sha is None:  # nothing to be bound to: no item is
        return False
    binding = item.binding
    return (
        binding is not None and binding.commit == subject.head_sha
        and binding.tree_clean is True
        and item.evidence.check_type is CheckType.TEST_RUN
    )


def ordered_after(item: EvidenceItem, mutation: Mutation, code_change: Collection[str],
                  subject: Subject | None) -> bool:
    """Whether `item` counts as observed after `mutation`: by time, or, for a code change,
    by the run's binding to the head on a clean tree."""
    if item.evidence.at > mutation.at:
        return True
    return mutation.id in code_change and bound_to_head(item, subject)


def skew_notes(
    items: Sequence[EvidenceItem], covers: Sequence[Sequence[str]],
    known: Mapping[str, Mutation], code_change: Collection[str], subject: Subject | None,
) -> tuple[str, ...]:
    """One line per code change dated at or after a head-bound run that covers it."""
    notes: list[str] = []
    if subject is None or subject.head_sha is None:  # no head: no item is bound to it
        return ()
    for index, (item, covered) in enumerate(zip(items, covers, strict=True)):
        if not bound_to_head(item, subject):
            continue
        for mutation_id in covered:
            mutation = known.get(mutation_id)
            if mutation is None or mutation_id not in code_change:
                continue
            ahead = mutation.at - item.evidence.at
            if ahead >= timedelta(0):
                notes.append(
                    f"clock skew: {mutation_id} is dated {format_rfc3339(mutation.at)},"
                    f" {duration(ahead.total_seconds())} after evidence #{index} was observed"
                    f" ({format_rfc3339(item.evidence.at)}), which ran on the head"
                    f" {str(subject.head_sha if subject else '')[:12]} on a clean tree: ordered"
                    " by that binding, not by the agent's clock"
                )
    return tuple(notes)
