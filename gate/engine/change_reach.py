"""A change that can reach into its own test run is a change to that run's producer.

CI runs the change's code in the process that writes the results, so code that reaches into
the test machinery (`_pytest`, hooks, report classes), the import system, builtins or the end
of the process can make a failing run report success. The collectors read the change's own
files at the head (`gate/evidence/change_reach.py`), never the test process; here each test
run a CI job produced becomes `producer_modified` while a finding the owner did not allow
(`evidence_chain.allow_reach`) remains, naming file:line and what was reached, exactly as an
edit to ci.yml does. A reading that could not read every file it needed is unverified: "could
not read" is never "nothing there". A maintainer's `/claim-gate accept` is the way through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from gate.claim.facts import Disqualification, EvidenceItem
from gate.claim.model import JSON, CheckType, VerdictState, VerifierKind
from gate.claim.trust_policy import TrustPolicy
from gate.claim.wording import plural
from gate.engine.results import Judgement, Unmet

if TYPE_CHECKING:
    from gate.claim.change_facts import ChangeReading, ReachFinding

_SHOWN = 3


def unallowed(reading: ChangeReading, trust: TrustPolicy) -> tuple[ReachFinding, ...]:
    """The findings no `evidence_chain.allow_reach` entry of the owner's covers."""
    return tuple(f for f in reading.findings
                 if not any(allowance.allows(f) for allowance in trust.allow_reach))


def describe(findings: Sequence[ReachFinding]) -> str:
    shown = "; ".join(f"{f.where()} {f.reached} ({f.rule})" for f in findings[:_SHOWN])
    more = len(findings) - _SHOWN
    return shown + (f"; and {more} more" if more > 0 else "")


def _judged(item: EvidenceItem) -> bool:
    """A test run a CI job produced: the change's code ran in the process that wrote it."""
    return item.evidence.check_type is CheckType.TEST_RUN and item.producer is not None


def judge_reach(item: EvidenceItem, reading: ChangeReading | None,
                trust: TrustPolicy) -> EvidenceItem:
    """The item, `producer_modified` when the change reaches into the run that produced it.
    An earlier disqualification (the PR edited the workflow) stands as it is."""
    if reading is None or not _judged(item):
        return item
    found = unallowed(reading, trust)
    record: dict[str, JSON] = {
        "source": reading.source, "files_read": reading.files_read,
        "findings": [_as_json(f) for f in found],
        "allowed": [_as_json(f) for f in reading.findings if f not in found],
        "unread": [{"path": u.path, "problem": u.problem} for u in reading.unread],
    }
    evidence = replace(item.evidence,
                       extensions={**item.evidence.extensions, "x-change-reach": record})
    if not found or item.disqualified is not None:
        return replace(item, evidence=evidence)
    reason = Disqualification(
        "producer_modified",
        f"the change itself reaches into the test run ({describe(found)}): code the change"
        " runs in the test process can rewrite what the run reports, so its results are the"
        " agent's word, not an independent observation; a maintainer can accept the claim"
        " (/claim-gate accept), or the owner can allow a legitimate place"
        " (evidence_chain.allow_reach)",
    )
    evidence = replace(evidence, verifier=replace(evidence.verifier,
                                                  kind=VerifierKind.SELF_ATTESTED))
    return replace(item, evidence=evidence, disqualified=reason)


def _as_json(finding: ReachFinding) -> JSON:
    return {"path": finding.path, "line": finding.line, "rule": finding.rule,
            "reached": finding.reached}


def reading_judgements(reading: ChangeReading | None,
                       items: Sequence[EvidenceItem]) -> list[Judgement]:
    """An incomplete reading leaves the claim unverified when a CI test run is among the
    evidence: what was not read may reach into that run."""
    if reading is None or reading.complete or not any(_judged(i) for i in items):
        return []
    unread = reading.unread
    shown = "; ".join(f"{u.path}: {u.problem}" for u in unread[:_SHOWN])
    more = f"; and {len(unread) - _SHOWN} more" if len(unread) > _SHOWN else ""
    return [Judgement("rule change_reading", VerdictState.UNVERIFIED, Unmet(
        "change_unread",
        f"{plural(len(unread), 'changed file')} could not be read for reach into the test run"
        f" ({reading.source}): {shown}{more}. A file the gate could not read may rewrite"
        " what the tests report, so the test runs cannot be shown independent; a maintainer"
        " can accept the claim (/claim-gate accept)",
    ))]
