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

from gate.claim.model import Claim
from gate.errors import CouldNotDecide
from gate.evidence.interface import EvidenceItem
from gate.evidence.junit import read_run, run_evidence
from gate.evidence.junit_model import FailingTest
from gate.evidence.junit_options import JUnitOptions
from gate.evidence.junit_reader import DEFAULT_OPTIONS
from gate.github.api import Deployment, GitHubApi
from gate.github.arrival import Arrival, head_arrival
from gate.github.ci_evidence import collect_ci_evidence
from gate.github.deployments import deployment_evidence
from gate.github.event import PullRequestRef
from gate.github.inputs import ActionInputs, RunnerContext
from gate.github.provenance import PullChanges, judge_provenance
from gate.github.removed_tests import (
    MAX_COMPARED_TESTS,
    TestSetComparison,
    compare_test_sets,
)
from gate.github.trust_policy import TrustPolicy


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
    junit_options: JUnitOptions = DEFAULT_OPTIONS,
) -> Gathered:
    head_sha = facts.pull.head_sha
    workdir = runner.workspace if runner.workspace.is_dir() else None
    ci = collect_ci_evidence(api, head_sha, inputs.artifact_names, requested, workdir=workdir,
                             identities=MAX_COMPARED_TESTS, pull_number=facts.pull.number,
                             junit_options=junit_options)
    arrival = head_arrival(api, facts.pull, ci.runs)
    items = [judge_provenance(item, facts.changes, facts.trust, arrival) for item in ci.items]
    file_inputs = list(ci.inputs)
    skipped_files: list[str] = []
    if inputs.junit:
        patterns = [p if Path(p).is_absolute() else str(runner.workspace / p)
                    for p in inputs.junit]
        run = read_run(patterns, requested, options=junit_options)
        skipped_files = list(run.notes)
        file_inputs += [(f"workspace JUnit {f.path}", f.sha256) for f in run.files]
        items.append(judge_provenance(run_evidence(run, head_sha), facts.changes, facts.trust,
                                      arrival, workflow=runner.workflow_path))
    items += deployment_evidence(claim, facts.deployments, facts.trust.deployment_creators,
                                 facts.trust.deployment_success_counts)
    comparisons: list[TestSetComparison] = []
    if ci.junit:
        comparisons = compare_test_sets(api, ci.junit, facts.pull.base_ref,
                                        inputs.artifact_names, workdir, MAX_COMPARED_TESTS)
    notes = list(ci.notes) + skipped_files + [c.note for c in comparisons if c.note]
    notes += facts.ignored
    return Gathered(tuple(items), tuple(notes), ci.links, ci.failing, tuple(file_inputs),
                    arrival, tuple(comparisons))
