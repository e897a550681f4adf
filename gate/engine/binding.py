"""Facts count only when they are bound to the decision's subject (gate/claim/subject.py).

A run "on main", a run "listed for this PR", the PR's files "now": each looks like the right
thing without being bound to it. Collectors record what their source says a fact is bound to
(`EvidenceItem.binding`); this rule compares it with the `Subject` the face built once. An
item bound to another commit, another PR, another claim, made by a run of the gate's own
workflow, or started before the PR's base last changed is disqualified (`not_bound`), naming
the fact and the mismatch; a CI item on GitHub that records no binding at all is too. And if
the PR moved while the gate was observing it, nothing said of the old head may pass
(`superseded`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from gate.claim.facts import Disqualification, EvidenceItem, Facts, Origin
from gate.claim.model import VerdictState
from gate.claim.subject import Binding, Subject
from gate.claim.timefmt import format_rfc3339
from gate.engine.results import Judgement, Unmet

NOT_BOUND = "not_bound"
SUPERSEDED = "superseded"
#: Events whose runs are made for a PR (GitHub does not say reliably which one).
PULL_EVENTS = frozenset({"pull_request", "pull_request_target"})


def _differs(bound: str | int | None, wanted: str | int | None) -> bool:
    """Both known and not the same (SHAs compared case-blind)."""
    if bound is None or wanted is None:
        return False
    if isinstance(bound, str) and isinstance(wanted, str):
        return bound.lower() != wanted.lower()
    return bound != wanted


def _short(value: str) -> str:
    return value[:12]


def mismatches(binding: Binding, subject: Subject, rebound_at: datetime | None = None) -> list[str]:
    """Each way `binding` differs from `subject`, worded for a reviewer (empty: bound)."""
    found = []
    if binding.commit is not None and _differs(binding.commit, subject.head_sha):
        found.append(f"it is bound to commit {_short(binding.commit)}, not the head"
                     f" {_short(subject.head_sha or '')}")
    if _differs(binding.pull_number, subject.pull_number):
        found.append(f"it was made for PR #{binding.pull_number}, not #{subject.pull_number}")
    if binding.base_ref is not None and _differs(binding.base_ref, subject.base_ref):
        found.append(f"it was made for the base {binding.base_ref!r}, not {subject.base_ref!r}")
    if binding.claim_sha256 is not None and _differs(binding.claim_sha256, subject.claim_sha256):
        found.append(f"it is bound to the claim {_short(binding.claim_sha256)}, not the claim"
                     f" decided ({_short(subject.claim_sha256 or '')})")
    if (binding.event is not None and binding.workflow_path is not None
            and binding.workflow_path == subject.gate_workflow):
        found.append(f"it comes from a run of the gate's own workflow ({binding.workflow_path}):"
                     " the gate's runs are never CI evidence")
    if (rebound_at is not None and binding.event in PULL_EVENTS
            and (binding.observed_at is None or binding.observed_at <= rebound_at)):
        started = format_rfc3339(binding.observed_at) if binding.observed_at else "at no time said"
        found.append(f"its run started {started}, not after the PR's base last changed or it"
                     f" was reopened ({format_rfc3339(rebound_at)}): it was made for the PR"
                     " as it was then")
    return found


def _needs_binding(item: EvidenceItem, subject: Subject) -> bool:
    """On GitHub (a PR subject), every item a CI workflow produced must say what it is bound to."""
    return item.origin is Origin.GATE and item.producer is not None \
        and subject.pull_number is not None


def bind_to_subject(item: EvidenceItem, facts: Facts) -> EvidenceItem:
    """The item, disqualified (`not_bound`) when its binding does not match the subject; an
    earlier disqualification is kept (it came first)."""
    subject = facts.subject
    if subject is None or item.disqualified is not None:
        return item
    if item.binding is None:
        if not _needs_binding(item, subject):
            return item
        return replace(item, disqualified=Disqualification(
            NOT_BOUND, f"{item.source} records nothing it is bound to (commit, run, PR):"
            " a fact that cannot be tied to this PR's head does not count"))
    rebound = facts.pull.rebound_at if facts.pull is not None else None
    found = mismatches(item.binding, subject, rebound)
    if not found:
        return item
    return replace(item, disqualified=Disqualification(
        NOT_BOUND, f"{item.source} is not bound to this decision: {'; '.join(found)}"))


def superseded(facts: Facts) -> list[Judgement]:
    """The PR read again at the end: a new head or another base branch makes this decision
    stale. The base branch gaining commits does not: the head was still judged against the
    base commit it was read with, and nothing would decide the PR again."""
    before, after = facts.subject, facts.reread
    if before is None or after is None:
        return []
    moved = [f"its {what} moved from {old} to {new}" for what, old, new in (
        ("head", before.head_sha, after.head_sha),
        ("base branch", before.base_ref, after.base_ref)) if _differs(old, new)]
    if not moved:
        return []
    return [Judgement("rule subject", VerdictState.UNVERIFIED, Unmet(
        SUPERSEDED, f"superseded: PR #{before.pull_number} changed while the gate observed it"
        f" ({'; '.join(moved)}), so what was observed is about a PR state that is gone; the"
        " gate decides the new state on its own event"))]
