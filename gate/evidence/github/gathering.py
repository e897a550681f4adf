"""Everything the gate observes about one PR head, with the trust checks applied.

CI artifacts, workspace JUnit and deployment statuses are collected; then each item is
judged by who could have shaped it (`provenance`: the PR's own workflow edits, untrusted
workflows, runs before the head arrived) and the head's test set is compared with the base
branch's (`removed_tests`). Check runs and commit statuses are never read as evidence:
anyone's workflow can post one under any name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.claim.errors import CouldNotDecide
from gate.claim.facts import EvidenceItem
from gate.claim.github_facts import (
    Arrival,
    Deployment,
    PullChanges,
    PullRequestRef,
    TestSetComparison,
)
from gate.claim.junit_facts import FailingTest
from gate.claim.model import Claim
from gate.claim.trust_policy import TrustPolicy
from gate.engine.provenance import judge_provenance
from gate.engine.removed_tests import MAX_COMPARED_TESTS, compare_test_sets
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.arrival import head_arrival
from gate.evidence.github.ci_evidence import collect_ci_evidence
from gate.evidence.github.deployments import deployment_evidence
from gate.evidence.junit import read_run, run_evidence
from gate.faces.action.inputs import ActionInputs, RunnerContext


@dataclass(frozen=True)
class PullFacts:
    """What is known about the PR before any claim is read (asked of GitHub once)."""

    pull: PullRequestRef
    changes: PullChanges
    deployments: tuple[Deployment, ...]
    trust: TrustPolicy
    ignored: tuple[str, ...] = ()  # checks and statuses under the gate's name: never evidence


@dataclass(frozen=True)
class Gathered:
    items: tuple[EvidenceItem, ...]
    notes: tuple[str, ...]
    links: tuple[str, ...]
    failing: tuple[FailingTest, ...]
    inputs: tuple[tuple[str, str], ...]
    arrival: Arrival
    comparisons: tuple[TestSetComparison, ...]


def pull_facts(
    api: GitHubApi, pull: PullRequestRef, trust: TrustPolicy, check_name: str
) -> PullFacts:
    return PullFacts(pull, PullChanges.of(api.changed_files(pull.number)),
                     tuple(api.deployments(pull.head_sha)), trust,
                     tuple(ignored_speakers(api, pull.head_sha, check_name)))


def ignored_speakers(api: GitHubApi, sha: str, check_name: str) -> list[str]:
    """Say out loud that checks and statuses already on the head, under the gate's name,
    were not read: a green badge posted by another workflow or App is not evidence."""
    try:  # informational only: a token without checks/statuses read must not block the gate
        checks = api.check_runs(sha, check_name)
        statuses = api.status_contexts(sha)
    except CouldNotDecide as exc:
        return [f"the checks and statuses already on this commit could not be listed ({exc});"
                " they are never read as evidence anyway"]
    notes = [
        f"a check run named {check_name!r} from the app {c.app_slug or 'unknown'!r}"
        f" ({c.conclusion or c.status}) is already on this commit; it is not read as evidence:"
        " any workflow or App can post a check under any name"
        for c in checks
    ]
    notes += [
        f"a commit status {context!r} ({state}, by {creator or 'unknown'}) is on this commit;"
        " it is not read as evidence: anyone with write access can post a status"
        for context, state, creator in statuses if context == check_name
    ]
    return notes


def gather(
    api: GitHubApi,
    facts: PullFacts,
    claim: Claim,
    requested: Sequence[str],
    inputs: ActionInputs,
    runner: RunnerContext,
) -> Gathered:
    head_sha = facts.pull.head_sha
    workdir = runner.workspace if runner.workspace.is_dir() else None
    ci = collect_ci_evidence(api, head_sha, inputs.artifact_names, requested, workdir=workdir,
                             identities=MAX_COMPARED_TESTS, pull_number=facts.pull.number)
    arrival = head_arrival(api, facts.pull, ci.runs)
    items = [judge_provenance(item, facts.changes, facts.trust, arrival) for item in ci.items]
    file_inputs = list(ci.inputs)
    if inputs.junit:
        patterns = [p if Path(p).is_absolute() else str(runner.workspace / p)
                    for p in inputs.junit]
        run = read_run(patterns, requested)
        file_inputs += [(f"workspace JUnit {f.path}", f.sha256) for f in run.files]
        items.append(judge_provenance(run_evidence(run, head_sha), facts.changes, facts.trust,
                                      arrival, workflow=runner.workflow_path))
    items += deployment_evidence(claim, facts.deployments, facts.trust.deployment_creators,
                                 facts.trust.deployment_success_counts)
    comparisons: list[TestSetComparison] = []
    if ci.junit:
        comparisons = compare_test_sets(api, ci.junit, facts.pull.base_ref,
                                        inputs.artifact_names, workdir, MAX_COMPARED_TESTS)
    notes = list(ci.notes) + [c.note for c in comparisons if c.note]
    notes += facts.ignored
    return Gathered(tuple(items), tuple(notes), ci.links, ci.failing, tuple(file_inputs),
                    arrival, tuple(comparisons))
