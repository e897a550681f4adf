"""Records are judged by the job that wrote them: the test job hands on test evidence only.

The test job runs the change's own code, and that code can write anything into the file the
job hands on: an atexit handler can add a `state_readback` for a write that never happened, or
a record under a verifier id the operator trusts. So a file named with `--test-evidence` counts
only for the pytest plugin's own `test_run` records, each carrying the plugin's producer
inventory (which the collector has judged, with the record's commit binding); anything else
in it is refused (`not_test_evidence`) and leaves the claim unverified, naming file and place:
the gate could not trust it, which is not the same as it not being there.

The other way round, a record with the plugin's marks (its verifier id or a field only the
plugin writes) named with `--evidence` was written in the test job whoever passes it on, so it
is refused there too (`test_job_record`), pointing to `--test-evidence`: operator records come
from outside the test job (the operator's own job after the tests, or signed with a key the
test job does not hold).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.model import CheckType, Evidence, VerdictState, VerifierKind
from gate.claim.test_job import INVENTORY_FIELD, PLUGIN_FIELDS, PLUGIN_VERIFIER_PREFIX
from gate.claim.wording import plural
from gate.engine.results import Judgement, Unmet

NOT_TEST_EVIDENCE = "not_test_evidence"
TEST_JOB_RECORD = "test_job_record"
_SHOWN = 3


def _not_the_plugins_run(evidence: Evidence) -> str | None:
    """Why a record in the test job's hand-off is not the plugin's own test run, if it is not."""
    if evidence.check_type is not CheckType.TEST_RUN:
        return (f"it is a {evidence.check_type} record, and the test job hands on test runs"
                " only")
    if not evidence.verifier.id.startswith(PLUGIN_VERIFIER_PREFIX):
        return (f"its verifier {evidence.verifier.id!r} is not the claim-gate pytest plugin"
                f" ({PLUGIN_VERIFIER_PREFIX}VERSION)")
    if INVENTORY_FIELD not in evidence.extensions:
        return f"it carries no {INVENTORY_FIELD}, which every record of the plugin carries"
    return None


def _plugin_marks(evidence: Evidence) -> list[str]:
    marks = [f for f in PLUGIN_FIELDS if f in evidence.extensions]
    if evidence.verifier.id.startswith(PLUGIN_VERIFIER_PREFIX):
        marks.insert(0, f"verifier {evidence.verifier.id!r}")
    return marks


def _where(item: EvidenceItem) -> str:
    return f"{item.source} ({item.place})" if item.place else item.source


def refusal(item: EvidenceItem) -> Disqualification | None:
    """Why this record does not count where it was handed on, or None when it may."""
    if item.origin is Origin.TEST_JOB:
        why = _not_the_plugins_run(item.evidence)
        return None if why is None else Disqualification(
            NOT_TEST_EVIDENCE,
            f"{_where(item)} was handed on by the test job (--test-evidence), which ran the"
            f" change's code, but {why}: the gate cannot trust it. Other check types come"
            " from the gate's own probes or from producers the test job cannot reach"
            " (--evidence: the operator's own job after the tests, or records signed with a"
            " key the test job does not hold)")
    marks = _plugin_marks(item.evidence) if item.origin is Origin.OPERATOR else []
    return None if not marks else Disqualification(
        TEST_JOB_RECORD,
        f"{_where(item)} carries the pytest plugin's marks ({', '.join(marks)}): it was"
        " written in the test job, which runs the change's code, so it is not an operator"
        " record; hand it on with --test-evidence, where only the plugin's own test runs count")


def judge_channel(item: EvidenceItem) -> EvidenceItem:
    """The item, refused when its channel says it cannot be trusted (the agent's word: its
    kind becomes self-attested). This refusal replaces any other: the record is not the
    gate's to weigh at all."""
    found = refusal(item)
    if found is None:
        return item
    verifier = replace(item.evidence.verifier, kind=VerifierKind.SELF_ATTESTED)
    return replace(item, evidence=replace(item.evidence, verifier=verifier), disqualified=found)


def channel_judgements(items: Sequence[EvidenceItem]) -> list[Judgement]:
    """A refused record leaves the claim unverified, whatever else counts: what the gate
    could not trust is reported, never dropped as if it were absent."""
    judgements = []
    refusals = [found for found in map(refusal, items) if found is not None]
    for code, what, whats in (
            (NOT_TEST_EVIDENCE, "record the test job handed on", "records the test job handed on"),
            (TEST_JOB_RECORD, "test-job record passed as operator evidence",
             "test-job records passed as operator evidence")):
        refused = [found for found in refusals if found.code == code]
        if not refused:
            continue
        shown = "; ".join(found.message for found in refused[:_SHOWN])
        more = f"; and {len(refused) - _SHOWN} more" if len(refused) > _SHOWN else ""
        judgements.append(Judgement(f"rule {code}", VerdictState.UNVERIFIED, Unmet(
            code, f"{plural(len(refused), what, whats)} could not be trusted: {shown}{more}")))
    return judgements
