"""Everything the gate observes about one PR head, as facts for the engine.

CI artifacts, workspace JUnit and deployment statuses are collected, with the PR's changed
paths, the head's arrival and the base branch's test set; the engine then judges who could
have shaped each item (`gate/engine/provenance.py`) and what removed tests mean
(`gate/engine/removed_tests.py`). Check runs and commit statuses are never read as
evidence: anyone's workflow can post one under any name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from fnmatch import fnmatchcase
from pathlib import Path

from gate.claim.change_facts import ChainFileChange
from gate.claim.changed_paths import ChangedPaths
from gate.claim.errors import CouldNotDecide
from gate.claim.facts import Facts, Producer
from gate.claim.fail_to_pass import BaseCodeComparison
from gate.claim.github_facts import (
    MAX_LISTED_FILES,
    Arrival,
    Deployment,
    PullChanges,
    PullObservation,
    PullRequestRef,
    TestSetComparison,
)
from gate.claim.junit_facts import FailingTest
from gate.claim.junit_options import JUnitOptions
from gate.claim.loader import LoadedClaim
from gate.claim.model import Claim
from gate.claim.policy import Policy
from gate.claim.subject import Binding, Subject
from gate.claim.trust_policy import TrustPolicy
from gate.evidence.chain_files import chain_file_change, is_structured, unread
from gate.evidence.change_reach import reading_note
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.arrival import head_arrival
from gate.evidence.github.base_code import collect_base_code
from gate.evidence.github.baseline import (
    MAX_COMPARED_TESTS,
    BaseCommit,
    compare_test_sets,
    read_base_commit,
)
from gate.evidence.github.change_reading import read_pull_change
from gate.evidence.github.ci_evidence import collect_ci_evidence
from gate.evidence.github.deployments import deployment_evidence
from gate.evidence.interface import Collected
from gate.evidence.junit import read_run, required_tests, run_evidence

#: Structured chain files read part by part per PR (two contents calls each).
MAX_CHAIN_READS = 10


@dataclass(frozen=True)
class PullFacts:
    """What is known about the PR before any claim is read (asked of GitHub once)."""

    pull: PullRequestRef
    changes: PullChanges
    deployments: tuple[Deployment, ...]
    trust: TrustPolicy
    ignored: tuple[str, ...] = ()  # checks and statuses under the gate's name: never evidence
    #: The PR's files with its count and claim files: what the claim is held against.
    changed: ChangedPaths | None = None
    #: When its base last changed or it was reopened (its timeline), if ever.
    rebound_at: datetime | None = None


@dataclass(frozen=True)
class Gathered:
    facts: Facts
    notes: tuple[str, ...]
    links: tuple[str, ...]
    failing: tuple[FailingTest, ...]
    inputs: tuple[tuple[str, str], ...]
    arrival: Arrival
    base_code: BaseCodeComparison | None = None  # the head's tests over the base's code


def pull_facts(
    api: GitHubApi, pull: PullRequestRef, trust: TrustPolicy, check_name: str,
    changed: ChangedPaths,
) -> PullFacts:
    """`changed`: the PR's files, read before the claim was looked for (`changed_paths`)."""
    # Complete means as many files as the PR's count (exactly 3,000 is complete).
    # Four reads that need nothing of each other: in flight together (`api.reads`).
    (events, chain), (deployments, ignored) = api.reads.both(
        lambda: api.reads.both(lambda: api.rebinding_events(pull.number),
                               lambda: chain_files(api, pull, changed, trust)),
        lambda: api.reads.both(lambda: api.deployments(pull.head_sha),
                               lambda: ignored_speakers(api, pull.head_sha, check_name)))
    return PullFacts(pull, PullChanges(frozenset(changed.paths), changed.complete, chain),
                     tuple(deployments), trust, tuple(ignored), changed,
                     max((at for _, at in events), default=None))


def chain_files(api: GitHubApi, pull: PullRequestRef, changed: ChangedPaths,
                trust: TrustPolicy) -> tuple[ChainFileChange, ...]:
    """The PR's modified structured chain files, read at the base branch and the head: the
    parts that differ (`gate/evidence/chain_files.py`). The base branch's tip, not the merge
    base: a part main changed since shows as changed too, which only keeps more on the chain.
    Past `MAX_CHAIN_READS` files, and for any read that fails, the file is judged whole."""
    wanted = [f.filename for f in changed.files if f.status == "modified"
              and is_structured(f.filename)
              and any(fnmatchcase(f.filename, g) for g in trust.chain)]
    # The diff is measured from the merge base: the chain file's "before" is read there too,
    # by SHA, never from the base branch's tip (which moves, and is not what the diff shows).
    before = changed.merge_base or pull.base_sha or pull.base_ref

    def read(path: str) -> ChainFileChange:
        try:
            base, head = api.reads.both(lambda: api.file_at(path, before),
                                        lambda: api.file_at(path, pull.head_sha))
        except CouldNotDecide as exc:
            return unread(path, f"it could not be read: {exc}")
        return chain_file_change(path, base, head)

    found = api.reads.each(read, wanted[:MAX_CHAIN_READS])
    found += [unread(path, f"the gate reads at most {MAX_CHAIN_READS} such files")
              for path in wanted[MAX_CHAIN_READS:]]
    return tuple(found)


def changed_paths(api: GitHubApi, pull: PullRequestRef) -> ChangedPaths:
    """The change pinned by SHA: GitHub's comparison of the PR's base commit with the head
    read (never the live `pulls/N/files`, which a push between two calls would change);
    at its 300-file cap the listing counts as cut short. Without a base SHA (an old payload)
    the PR's files, all pages, with its own count asked at GitHub's 3,000-file cap."""
    if pull.base_sha is not None:
        found = api.compare(pull.base_sha, pull.head_sha)
        return replace(ChangedPaths.of(
            found.files, None if found.listed_in_full else len(found.files) + 1,
            f"GitHub's comparison {pull.base_sha[:12]}...{pull.head_sha[:12]}"),
            merge_base=found.merge_base)
    files = api.changed_files(pull.number)
    expected = pull.changed_files
    if len(files) >= MAX_LISTED_FILES:
        expected = api.pull(pull.number).changed_files
    return ChangedPaths.of(files, expected, f"PR #{pull.number}'s files on GitHub")


def ignored_speakers(api: GitHubApi, sha: str, check_name: str) -> list[str]:
    """Say out loud that checks and statuses already on the head, under the gate's name,
    were not read: a green badge posted by another workflow or App is not evidence."""
    try:  # informational only: a token without checks/statuses read must not block the gate
        checks, statuses = api.reads.both(lambda: api.check_runs(sha, check_name),
                                          lambda: api.status_contexts(sha))
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


@dataclass(frozen=True)
class CiSources:
    """Where the Action finds test evidence: artifact names, workspace JUnit, its workflow."""

    artifact_names: tuple[str, ...]
    junit_patterns: tuple[str, ...] = ()
    workspace: Path | None = None
    workflow_path: str | None = None  # the gate's own workflow (for workspace JUnit)
    junit: JUnitOptions = field(default_factory=JUnitOptions)  # the policy's `junit` section
    own_run_id: int | None = None  # the gate's own run (GITHUB_RUN_ID): not waited for
    #: `base-code-artifact-name`: the head's tests over the base's code, in the same runs
    base_code_names: tuple[str, ...] = ()


def gather(
    api: GitHubApi,
    facts: PullFacts,
    claim: Claim,
    requested: Sequence[str],
    sources: CiSources,
) -> Gathered:
    """Observe and record: runs, artifacts, workspace JUnit, deployments, arrival, baseline.
    Nothing is judged here; each CI item names the workflow that produced it."""
    head_sha = facts.pull.head_sha
    workdir = sources.workspace if sources.workspace and sources.workspace.is_dir() else None
    # The head's runs, the head's arrival and the base commit's runs need nothing of each
    # other: read together. (Only artifacts give `ci.junit`, so the base is read exactly when
    # artifact names are given, as it was when it waited for `ci`.)
    ci, (arrival, base_commit) = api.reads.both(
        lambda: collect_ci_evidence(
            api, head_sha, sources.artifact_names, requested, workdir=workdir,
            identities=MAX_COMPARED_TESTS, pull_number=facts.pull.number,
            junit_options=sources.junit, own_run_id=sources.own_run_id,
            gate_workflow=sources.workflow_path, head=(facts.pull.head_repo, facts.pull.head_ref),
            exclude=sources.base_code_names),
        lambda: api.reads.both(lambda: head_arrival(api, facts.pull),
                               lambda: _base_commit(api, facts, sources)))
    over_base = collect_base_code(api, ci, sources.base_code_names, facts.pull.number,
                                  MAX_COMPARED_TESTS, workdir)
    items = list(ci.items)
    skipped_files: list[str] = []
    file_inputs = [*ci.inputs, *over_base.inputs]
    if sources.junit_patterns:
        base = sources.workspace or Path()
        patterns = [p if Path(p).is_absolute() else str(base / p) for p in sources.junit_patterns]
        run = read_run(patterns, requested, options=sources.junit)
        skipped_files = list(run.notes)
        file_inputs += [(f"workspace JUnit {f.path}", f.sha256) for f in run.files]
        # The gate's own run, started for this head: bound to it, not a listed run of its
        # workflow (no event), so the gate-workflow rule leaves it alone.
        items.append(replace(run_evidence(run, head_sha), producer=Producer(sources.workflow_path),
                             binding=Binding(commit=head_sha)))
    items += deployment_evidence(claim, facts.deployments, facts.trust.deployment_creators,
                                 facts.trust.deployment_success_counts)
    comparisons: list[TestSetComparison] = []
    if ci.junit and base_commit is not None:
        comparisons = compare_test_sets(api, ci.junit, base_commit, workdir, MAX_COMPARED_TESTS)
    expected = (base_commit or BaseCommit(None, facts.pull.base_ref)).expected(
        facts.trust.required_workflows)
    notes = [*ci.notes, *over_base.notes, *skipped_files,
             *(c.note for c in comparisons if c.note)]
    notes += facts.ignored
    observed = Facts(tuple(items), PullObservation(facts.changes, arrival, facts.pull.base_ref,
                                                   facts.rebound_at),
                     tuple(comparisons), replace(ci.observation, expected=expected))
    return Gathered(observed, tuple(notes), ci.links, ci.failing, tuple(file_inputs), arrival,
                    over_base.comparison)


def _base_commit(api: GitHubApi, facts: PullFacts, sources: CiSources) -> BaseCommit | None:
    if not sources.artifact_names:
        return None
    return read_base_commit(
        api, [facts.pull.base_sha, facts.changed.merge_base if facts.changed else None],
        facts.pull.base_ref, sources.artifact_names, sources.base_code_names)


@dataclass(frozen=True)
class PullEvidence:
    """GitHub's account of one PR head: the collector the Action runs for each claim."""

    api: GitHubApi
    pull: PullFacts
    sources: CiSources
    subject: Subject | None = None  # what the decision is about (the items record bindings)

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        requested = required_tests(policy, loaded.claim, loaded.source)
        sources = replace(self.sources, junit=policy.junit)
        changed = self.pull.changed
        found, reading = self.api.reads.both(  # the change's files are read beside the CI's
            lambda: gather(self.api, self.pull, loaded.claim, requested, sources),
            lambda: None if changed is None else read_pull_change(
                self.api, changed, self.pull.pull.head_sha))
        notes = found.notes if reading is None else (
            *found.notes, reading_note(reading, policy.trust))
        return Collected(
            items=found.facts.items, pull=found.facts.pull, test_sets=found.facts.test_sets,
            notes=notes, links=found.links, failing=found.failing, inputs=found.inputs,
            ci=found.facts.ci,
            changed=self.pull.changed, change=reading, base_code=found.base_code,
        )
