"""The bound-facts rules one by one (issue 20): the engine's binding comparison, the expected
producers, the gate's own workflow left out of CI, the owner's `required_workflows`, and the
change read by SHA with GitHub's 300-file cap (through the stand-in)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gate.claim.ci_facts import CiObservation, ExpectedProducer, HeadRun
from gate.claim.errors import InvalidInput
from gate.claim.facts import EvidenceItem, Facts, Origin, Producer
from gate.claim.model import CheckType, Evidence, Verifier, VerifierKind
from gate.claim.policy import Policy
from gate.claim.subject import Binding, Subject
from gate.claim.trust_policy import parse_trust_policy
from gate.engine.binding import bind_to_subject, mismatches
from gate.engine.completeness import ci_judgements
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.gathering import changed_paths
from tests.action_support import T0
from tests.github_standin.clients import pygithub
from tests.github_standin.hub import Hub
from tests.github_standin.plugin import GITHUB_TOKEN

HEAD, OTHER = "a" * 40, "b" * 40
CI, LINT, GATE = ".github/workflows/ci.yml", ".github/workflows/lint.yml", \
    ".github/workflows/claim.yml"
SUBJECT = Subject("octo/app", 7, HEAD, "main", "c" * 40, "d" * 64, GATE)


@pytest.mark.parametrize(("binding", "words"), [
    (Binding(commit=OTHER), "bound to commit bbbbbbbbbbbb, not the head aaaaaaaaaaaa"),
    (Binding(commit=HEAD, pull_number=8), "made for PR #8, not #7"),
    (Binding(commit=HEAD, base_ref="copilot/base"), "base 'copilot/base', not 'main'"),
    (Binding(commit=HEAD, claim_sha256="e" * 64), "bound to the claim eeeeeeeeeeee"),
    (Binding(commit=HEAD, event="pull_request_review", workflow_path=GATE),
     "the gate's own workflow"),
    (Binding(commit=HEAD, event="pull_request", observed_at=T0), "base last changed"),
])
def test_each_way_a_binding_differs_is_named(binding: Binding, words: str) -> None:
    found = mismatches(binding, SUBJECT, rebound_at=T0 + timedelta(minutes=1))
    assert len(found) == 1, found
    assert words in found[0], found


def test_a_bound_item_and_the_gates_own_workspace_run_pass() -> None:
    assert mismatches(Binding(commit=HEAD.upper(), pull_number=7, event="push",
                              workflow_path=CI, observed_at=T0), SUBJECT, T0) == []
    # The workspace JUnit of the gate's own run names no event: it is not a listed run.
    assert mismatches(Binding(commit=HEAD, workflow_path=GATE), SUBJECT) == []


CI_RUN = Producer(CI, "success")


def _item(binding: Binding | None, producer: Producer | None = CI_RUN) -> EvidenceItem:
    evidence = Evidence(check_type=CheckType.TEST_RUN, at=T0,
                        verifier=Verifier("claim-gate/junit", VerifierKind.INDEPENDENT))
    return EvidenceItem(evidence, Origin.GATE, "a run's JUnit", producer=producer,
                        binding=binding)


def test_a_ci_item_that_records_no_binding_does_not_count_on_a_pr() -> None:
    judged = bind_to_subject(_item(None), Facts(subject=SUBJECT))
    assert judged.disqualified is not None
    assert judged.disqualified.code == "not_bound"
    # Without a subject (the command line), or for an item no CI produced, nothing changes.
    assert bind_to_subject(_item(None), Facts()).disqualified is None
    assert bind_to_subject(_item(None, producer=None), Facts(subject=SUBJECT)).disqualified \
        is None


def _ci(runs: tuple[HeadRun, ...], expected: tuple[ExpectedProducer, ...] = (),
        items: tuple[EvidenceItem, ...] = ()) -> list[str]:
    facts = Facts(items, ci=CiObservation(runs, expected=expected), subject=SUBJECT)
    return [j.unmet.code for j in ci_judgements(facts, Policy(id="p")) if j.unmet]


def test_the_gates_own_runs_are_never_ci() -> None:
    gate_run = HeadRun("claim-gate #3", GATE, "completed", "failure")
    assert _ci((gate_run,)) == []
    assert _ci((HeadRun("lint #4", LINT, "completed", "failure"),)) == ["ci_failed"]


def test_an_expected_producer_needs_a_successful_run_with_its_junit() -> None:
    expected = (ExpectedProducer(LINT, "it produced JUnit on the base commit"),)
    ran = (HeadRun("lint #4", LINT, "completed", "success"),)
    assert _ci(ran, expected) == ["producer_missing"]  # no artifact became an item
    assert _ci(ran, expected, (_item(Binding(commit=HEAD), Producer(LINT, "success")),)) == []
    skipped = (HeadRun("lint #4", LINT, "completed", "skipped"),)
    assert _ci(skipped, expected, (_item(Binding(commit=HEAD), Producer(LINT, "success")),)) \
        == ["producer_missing"]
    gate = (ExpectedProducer(GATE, "it produced JUnit on the base commit"),)
    assert _ci((), gate) == []  # the gate's own evidence is its own run's workspace


def test_a_base_workflow_outside_trusted_workflows_is_not_expected() -> None:
    """A workflow that runs only on pushes to the base would block every PR; the owner's
    trusted_workflows list, when set, says which base producers count. The policy's own
    required_workflows always do."""
    from_base = ExpectedProducer(LINT, "it produced JUnit on the base commit")
    required = ExpectedProducer(LINT, "the policy's required_workflows names it",
                                from_policy=True)
    trusted = Policy(id="p", trust=parse_trust_policy({"trusted_workflows": [CI]}, "p"))
    for expected, codes in (((from_base,), []), ((required,), ["producer_missing"])):
        facts = Facts(ci=CiObservation(expected=expected), subject=SUBJECT)
        assert [j.unmet.code for j in ci_judgements(facts, trusted) if j.unmet] == codes


def test_required_workflows_is_a_list_of_workflow_files() -> None:
    policy = parse_trust_policy({"required_workflows": [CI, f" {LINT} "]}, "p")
    assert policy.required_workflows == (CI, LINT)
    assert parse_trust_policy({}, "p").required_workflows == ()
    with pytest.raises(InvalidInput, match="required_workflows must be a list"):
        parse_trust_policy({"required_workflows": CI}, "p")


@pytest.mark.parametrize(("count", "complete"), [(299, True), (300, False), (305, False)])
def test_the_change_is_read_by_sha_and_its_300_file_cap_is_cut_short(
    github_hub: Hub, count: int, complete: bool
) -> None:
    github_hub.add_token(GITHUB_TOKEN)
    repo = github_hub.add_repo("octo/app", files={"README.md": "x\n"})
    github_hub.add_commit(repo, {f"f{i}.py": "1\n" for i in range(count)}, branch="fix")
    pull = github_hub.add_pull(repo, head="fix")
    api = GitHubApi(github=pygithub(github_hub, GITHUB_TOKEN), repository="octo/app")
    github_hub.calls.clear()
    changed = changed_paths(api, api.pull(pull.number))
    assert changed.complete is complete
    assert changed.listed == min(count, 300)
    assert changed.merge_base == pull.base_sha
    assert "GET /repos/{owner}/{repo}/pulls/{pull_number}/files" not in github_hub.calls
    assert not github_hub.violations
