"""Rules for a complete picture: what the gate could not see keeps a claim from `verified`.

The collectors record what they read and also what they could not (a run still going, a run
that failed, an artifact that could not be read, an arrival nobody recorded, a base branch
test set that is gone); these rules turn those facts into judgements. "I could not read it"
is never "there was nothing there": each of them leaves the claim `unverified`, naming it.
A run that failed can still *refute* (its failing tests contradict the claim); it can never
support `verified`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gate.claim.facts import EvidenceItem, Facts
from gate.claim.model import VerdictState
from gate.claim.policy import Policy
from gate.claim.trust_policy import TrustPolicy
from gate.engine.results import Judgement, Problem, Unmet

if TYPE_CHECKING:
    from gate.claim.ci_facts import HeadRun
    from gate.claim.github_facts import PullObservation

_SHOWN = 5


def _listed(lines: Sequence[str]) -> str:
    shown = "; ".join(lines[:_SHOWN])
    return shown + (f"; and {len(lines) - _SHOWN} more" if len(lines) > _SHOWN else "")


def _trusted(workflow: str, trust: TrustPolicy) -> bool:
    return trust.trusted_workflows is None or workflow in trust.trusted_workflows


def _unverified(subject: str, code: str, message: str) -> Judgement:
    return Judgement(subject, VerdictState.UNVERIFIED, Unmet(code, message))


def _pending(runs: Sequence[HeadRun]) -> Judgement | None:
    waiting = [f"{r.label} is {r.conclusion or r.status}" for r in runs if not r.finished]
    if not waiting:
        return None
    return _unverified(
        "rule ci_complete", "ci_incomplete",
        f"CI on the head is not finished: {_listed(waiting)}. Its results could change the"
        " verdict, so the claim cannot be verified yet; the gate decides again when the run"
        " completes (a `workflow_run` completed event for that workflow)",
    )


def _failed(runs: Sequence[HeadRun]) -> Judgement | None:
    failed = [f"{r.label} ended {r.conclusion}" for r in runs if r.failed]
    if not failed:
        return None
    return _unverified(
        "rule ci_succeeded", "ci_failed",
        f"a trusted workflow run on the head did not succeed: {_listed(failed)}. A run that"
        " did not succeed never supports verified, whatever its artifacts say",
    )


def _not_the_gate(run: HeadRun, facts: Facts) -> bool:
    """The gate's own workflow (every run of it, not only this one) is never CI: an earlier
    gate run that ended unverified must not block the head for ever."""
    return facts.subject is None or run.workflow_path != facts.subject.gate_workflow


def ci_judgements(facts: Facts, policy: Policy) -> list[Judgement]:
    """Runs not finished or not successful, artifacts not read, an arrival not known, an
    expected producer that did not report."""
    found: list[Judgement | None] = []
    if facts.ci is not None:
        runs = [r for r in facts.ci.runs
                if _trusted(r.workflow_path, policy.trust) and _not_the_gate(r, facts)]
        found += [_pending(runs), _failed(runs), expected_producers(facts, policy.trust)]
        unread = [f"{u.label}: {u.problem}" for u in facts.ci.unread]
        if unread:
            found.append(_unverified(
                "rule artifacts_read", "unreadable_artifact",
                f"an artifact of a counted run could not be read: {_listed(unread)}. What"
                " could not be read is not absence: the claim cannot be verified",
            ))
    arrival = facts.pull.arrival if facts.pull is not None else None
    if arrival is not None and arrival.at is None:  # None: no arrival applies (a git diff)
        found.append(_unverified(
            "rule arrival", "arrival_unknown",
            f"{arrival.describe()}: without GitHub's record of when the head"
            " arrived, no CI run can be shown to have tested it (an old run of a SHA pushed"
            " again would look current)",
        ))
    return [j for j in found if j is not None]


def _reported(workflow: str, facts: Facts) -> bool:
    """A finished, successful run of `workflow` on the head whose JUnit became an item."""
    runs = facts.ci.runs if facts.ci is not None else ()
    succeeded = any(r.workflow_path == workflow and r.finished and r.conclusion == "success"
                    for r in runs)
    return succeeded and any(i.producer is not None and i.producer.workflow_path == workflow
                             and i.producer.conclusion == "success" for i in facts.items)


def expected_producers(facts: Facts, trust: TrustPolicy) -> Judgement | None:
    """Each producer the owner expects (the base commit's, the policy's) reported on the head:
    the one that would fail cannot simply stay silent (skipped, `[skip ci]`, deleted). A base
    workflow outside a `trusted_workflows` list is not expected (one that runs only on the
    base, say); the gate's own workflow never is (its evidence is its own run's)."""
    ci = facts.ci
    if ci is None:
        return None
    gate = facts.subject.gate_workflow if facts.subject is not None else None
    missing = [f"{p.workflow_path} ({p.why})" for p in ci.expected
               if p.workflow_path != gate and (p.from_policy or _trusted(p.workflow_path, trust))
               and not _reported(p.workflow_path, facts)]
    if ci.expected_unknown is not None:
        missing.append(ci.expected_unknown)
    if not missing:
        return None
    return _unverified(
        "rule expected_producers", "producer_missing",
        f"a workflow the owner expects to report tests has no finished, successful run with"
        f" its JUnit artifact on the head: {_listed(missing)}. A producer that did not report"
        " (a skipped job, [skip ci], a deleted run) is not one that passed",
    )


def item_problem(item: EvidenceItem, pull: PullObservation | None,
                 contradicts: bool) -> Problem | None:
    """Why a CI item cannot support anything, by what GitHub says of its run; a run that
    failed may still contradict the claim, so it is ruled out only when it would support."""
    producer = item.producer
    if producer is None:
        return None
    base = pull.base_ref if pull is not None else None
    if producer.base_ref is not None and base is not None and producer.base_ref != base:
        return Problem(
            "other_base",
            f"{item.source} was made while the PR targeted {producer.base_ref!r}, not its"
            f" base now ({base!r}): that run used {producer.base_ref!r}'s workflow and"
            " policy, so it is not evidence for this base",
        )
    if producer.conclusion not in (None, "success") and not contradicts:
        return Problem(
            "run_not_successful",
            f"{item.source} comes from a run that ended {producer.conclusion}: a run that did"
            " not succeed never supports verified, whatever its artifacts say",
        )
    return None
