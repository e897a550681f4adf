"""Is a piece of CI evidence out of the PR's reach? Which workflow made it, and when.

On a `pull_request` event GitHub runs the workflow file *from the PR*: an agent that edits
`.github/workflows/ci.yml`, a composite action, `conftest.py` or the test runner's config can
make its "independent" JUnit say anything. So evidence whose producing workflow or evidence
chain the PR changed is `producer_modified` (it never counts, unless the owner's policy
says `evidence_chain.allow_pr_changes: true`); evidence from a workflow the policy does not
trust is `untrusted_workflow`; and a run that started before the head commit arrived on
GitHub is `before_arrival` (it ran on something else: an earlier visit of the SHA, or a
commit since replaced).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from gate.claim.facts import Disqualification, EvidenceItem
from gate.claim.model import JSON, VerifierKind
from gate.claim.timefmt import format_rfc3339
from gate.claim.trust_policy import TrustPolicy
from gate.engine.chain_parts import on_chain

if TYPE_CHECKING:
    from gate.claim.github_facts import Arrival, PullChanges, PullObservation

_SHOWN = 5
#: Disqualifications that make the evidence the agent's own word (recorded as self-attested).
_AGENTS_WORD = frozenset({"producer_modified", "untrusted_workflow"})


def workflow_of(item: EvidenceItem) -> str | None:
    """The workflow file that produced an item (`x-run.workflow_path`), if it says."""
    run = item.evidence.extensions.get("x-run")
    if isinstance(run, dict) and isinstance(run.get("workflow_path"), str):
        return str(run["workflow_path"])
    return None


def _listed(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:_SHOWN])
    return shown + (f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else "")


def _verdict_on(
    workflow: str | None, changes: PullChanges, trust: TrustPolicy, on_github: bool = True
) -> Disqualification | None:
    what = f"the workflow {workflow}" if workflow else "the workflow that ran the tests"
    # `trusted_workflows` names GitHub workflow files; elsewhere the CI's own config decides
    # which job ran the tests, and the chain below covers its files.
    if on_github and trust.trusted_workflows is not None \
            and workflow not in trust.trusted_workflows:
        return Disqualification(
            "untrusted_workflow",
            f"it was produced by {what}, which is not among the workflows the policy trusts"
            f" ({_listed(list(trust.trusted_workflows))})",
        )
    if trust.allow_pr_changes:
        return None
    if not changes.complete:
        from gate.claim.github_facts import MAX_LISTED_FILES  # only here (issue 23)

        return Disqualification(
            "producer_modified",
            f"the PR changes {MAX_LISTED_FILES} or more files, more than GitHub lists, so"
            " whether it edited the workflow or test set-up that produced this evidence cannot"
            " be checked",
        )
    if workflow is not None and workflow in changes.paths:
        return Disqualification(
            "producer_modified",
            f"the PR itself edits {workflow}, the workflow that produced this evidence; a pull"
            " request's run uses the PR's own copy of that file, so its results are the"
            " agent's word, not an independent observation",
        )
    touched = on_chain(changes.matching(trust.chain), changes.chain_files)
    if touched:
        return Disqualification(
            "producer_modified",
            f"the PR itself edits the evidence chain ({_listed(touched)}): the CI set-up or"
            " test configuration that produced this evidence is the agent's own, so its"
            " results do not count as independent",
        )
    return None


def _before_arrival(at: datetime, arrival: Arrival) -> Disqualification | None:
    if arrival.at is None:
        return Disqualification(
            "before_arrival", f"{arrival.describe()}, so no run can be shown to have tested it",
        )
    if at < arrival.at:
        return Disqualification(
            "before_arrival",
            f"the run started at {format_rfc3339(at)}, before the head commit arrived on GitHub"
            f" ({arrival.describe()}): it tested an earlier push, not this one (commit dates"
            " are the pusher's and are never used)",
        )
    return None


def judge_provenance(
    item: EvidenceItem, pull: PullObservation, trust: TrustPolicy
) -> EvidenceItem:
    """The item, disqualified when the PR could reach its producer or it predates the head.
    Without an arrival (the command line) only the producer rules apply: the run binds
    itself to the commit it tested."""
    changes, arrival = pull.changes, pull.arrival
    workflow = (item.producer.workflow_path if item.producer else None) or workflow_of(item)
    found = _verdict_on(workflow, changes, trust, on_github=arrival is not None)
    if found is None and arrival is not None:
        found = _before_arrival(item.evidence.at, arrival)
    chain: dict[str, JSON] = {
        "workflow_path": workflow,
        "changed_by_pr": list(changes.matching(trust.chain)) + (
            [workflow] if workflow and workflow in changes.paths
            and workflow not in changes.matching(trust.chain) else []),
        "arrival": arrival.as_json() if arrival is not None else None,
    }
    evidence = replace(item.evidence,
                       extensions={**item.evidence.extensions, "x-provenance": chain})
    if found is not None and found.code in _AGENTS_WORD:
        # The producer was the PR's own: the record shows the evidence as self-attested.
        evidence = replace(evidence, verifier=replace(evidence.verifier,
                                                      kind=VerifierKind.SELF_ATTESTED))
    return replace(item, evidence=evidence, disqualified=found or item.disqualified)
