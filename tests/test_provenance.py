"""The provenance judgement on its own: which PR changes make CI evidence the agent's word,
and which runs predate the head's arrival. Pure inputs, no GitHub."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.github_facts import (
    MAX_LISTED_FILES,
    Arrival,
    ChangedFile,
    PullChanges,
    PullObservation,
)
from gate.claim.model import CheckType, VerifierKind
from gate.claim.trust_policy import TrustPolicy
from gate.engine.provenance import judge_provenance
from tests.builders import at, evidence

WORKFLOW = ".github/workflows/ci.yml"
ARRIVED = Arrival("a" * 40, at(0), "the push of aaaa")



def _judge(
    item: EvidenceItem, changed: PullChanges, trust: TrustPolicy, arrival: Arrival
) -> EvidenceItem:
    return judge_provenance(item, PullObservation(changed, arrival), trust)

def ci_item(when: float = 60.0, workflow: str | None = WORKFLOW) -> EvidenceItem:
    record = evidence(when=when, covers=(), check_type=CheckType.TEST_RUN,
                      verifier="claim-gate/junit@0.1.0")
    if workflow is not None:
        record = replace(record, extensions={"x-run": {"id": 7, "workflow_path": workflow}})
    return EvidenceItem(record, Origin.GATE, "run 7")


def changes(*names: str, renamed_from: str | None = None) -> PullChanges:
    files = [ChangedFile(name, "modified") for name in names]
    if renamed_from is not None:
        files.append(ChangedFile("docs/moved.yml", "renamed", previous_filename=renamed_from))
    return PullChanges.of(files)


def code(judged: EvidenceItem) -> str | None:
    return judged.disqualified.code if judged.disqualified else None


@pytest.mark.parametrize(("changed", "expected"), [
    (changes("app/parser.py"), None),
    (changes("app/parser.py", WORKFLOW), "producer_modified"),
    (changes(".github/workflows/other.yml"), "producer_modified"),
    (changes(".github/actions/setup/action.yml"), "producer_modified"),
    (changes("tests/unit/conftest.py"), "producer_modified"),
    (changes("conftest.py"), "producer_modified"),
    (changes("web/jest.config.ts"), "producer_modified"),
    (changes("pytest.ini"), "producer_modified"),
    (changes(renamed_from=WORKFLOW), "producer_modified"),  # moving it away is changing it
    (changes("docs/conftest.md"), None),
])
def test_what_counts_as_the_pr_changing_the_producer(
    changed: PullChanges, expected: str | None
) -> None:
    assert code(_judge(ci_item(), changed, TrustPolicy(), ARRIVED)) == expected


def test_a_changed_producer_is_recorded_as_self_attested() -> None:
    judged = _judge(ci_item(), changes(WORKFLOW), TrustPolicy(), ARRIVED)
    assert judged.evidence.verifier.kind is VerifierKind.SELF_ATTESTED
    provenance = judged.evidence.extensions["x-provenance"]
    assert isinstance(provenance, dict)
    assert provenance["changed_by_pr"] == [WORKFLOW]


def test_a_pr_too_large_to_list_cannot_be_checked() -> None:
    big = PullChanges.of([ChangedFile(f"f{i}.py", "added") for i in range(MAX_LISTED_FILES)])
    judged = _judge(ci_item(), big, TrustPolicy(), ARRIVED)
    assert code(judged) == "producer_modified"
    assert judged.disqualified is not None
    assert "more than GitHub lists" in judged.disqualified.message


def test_the_owner_may_allow_chain_changes_but_not_untrusted_workflows() -> None:
    allow = TrustPolicy(allow_pr_changes=True)
    assert code(_judge(ci_item(), changes(WORKFLOW), allow, ARRIVED)) is None
    pinned = TrustPolicy(allow_pr_changes=True, trusted_workflows=(".github/workflows/x.yml",))
    assert code(_judge(ci_item(), changes(), pinned, ARRIVED)) == "untrusted_workflow"
    assert code(_judge(ci_item(workflow=None), changes(), pinned, ARRIVED)) \
        == "untrusted_workflow"


def test_a_narrower_chain_is_the_owners_choice() -> None:
    narrow = TrustPolicy(chain=("ci/**",))
    assert code(_judge(ci_item(), changes("pyproject.toml"), narrow, ARRIVED)) is None
    assert code(_judge(ci_item(), changes("ci/run.sh"), narrow, ARRIVED)) \
        == "producer_modified"


@pytest.mark.parametrize(("started", "expected"), [
    (-1.0, "before_arrival"), (0.0, None), (30.0, None),
])
def test_a_run_counts_only_from_the_arrival_on(started: float, expected: str | None) -> None:
    judged = _judge(ci_item(when=started), changes(), TrustPolicy(), ARRIVED)
    assert code(judged) == expected


def test_an_unknown_arrival_counts_nothing() -> None:
    unknown = Arrival("a" * 40, None, "nothing recorded")
    assert code(_judge(ci_item(), changes(), TrustPolicy(), unknown)) \
        == "before_arrival"


def test_an_earlier_disqualification_is_kept_when_provenance_is_clean() -> None:
    broken = replace(ci_item(), disqualified=Disqualification("unreadable_artifact", "bad zip"))
    assert code(_judge(broken, changes(), TrustPolicy(), ARRIVED)) \
        == "unreadable_artifact"
