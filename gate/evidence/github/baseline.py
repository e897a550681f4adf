"""The base commit's test set, read to compare with the head's (removed or skipped tests), and
the producers the owner expects on the head.

A baseline counts only when it is bound to the PR's base: a finished run (success or failure:
a red base is exactly when deleting the failing test is tempting) of the same workflow file on
the PR's base commit itself (`base.sha`, else the merge base the comparison names), made by a
`push` to the base branch (never a pull request's run, whose workflow the PR could have
changed). "The newest run listed for branch=main" is not that: a tag named `main` lists under
the same branch name, and deleting the newest run would promote an older one that predates
the failing test. The gate asks GitHub for the runs ON that exact commit (one listing, bounded)
and never searches back: a baseline that cannot be read is recorded as not comparable, which
the engine makes unverified (`gate/engine/removed_tests.py`), never "nothing removed".

The same runs say which workflows produced JUnit on the base commit: each is an expected
producer on the head (`ExpectedProducer`), with the policy's `required_workflows`; the engine
makes a missing one unverified (`gate/engine/completeness.py`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gate.claim.ci_facts import ExpectedProducer
from gate.claim.github_facts import Artifact, TestSetComparison, WorkflowRun, run_label
from gate.claim.junit_facts import JUnitFile, JUnitRun
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.ci_evidence import artifacts_named, read_artifact_junit
from gate.evidence.test_sets import MAX_COMPARED_TESTS, compare

__all__ = ["MAX_COMPARED_TESTS", "BaseCommit", "compare_test_sets", "read_base_commit"]

_BASELINE_CONCLUSIONS = frozenset({"success", "failure"})


@dataclass(frozen=True)
class BaseCommit:
    """The owner's finished push runs on the base commit, one per workflow file, with the
    artifacts each holds that are named like JUnit."""

    sha: str | None
    branch: str
    runs: dict[str, WorkflowRun] = field(default_factory=dict)
    artifacts: dict[int, tuple[Artifact, ...]] = field(default_factory=dict)

    def where(self) -> str:
        return f"the base commit {self.sha[:12] if self.sha else '(unknown)'} (refs/heads/" \
            f"{self.branch})"

    def expected(self, required: Sequence[str]) -> tuple[ExpectedProducer, ...]:
        produced = [ExpectedProducer(path, f"it produced JUnit on {self.where()}")
                    for path, run in sorted(self.runs.items()) if self.artifacts.get(run.id)]
        named = {p.workflow_path for p in produced}
        return tuple(produced) + tuple(
            ExpectedProducer(path, "the policy's required_workflows names it", from_policy=True)
            for path in dict.fromkeys(required) if path not in named)


def _bound(run: WorkflowRun, sha: str, branch: str) -> bool:
    """A push to the base branch on that very commit, finished with a test result."""
    return (run.head_sha.lower() == sha.lower() and run.event == "push"
            and run.head_branch == branch and run.status == "completed"
            and run.conclusion in _BASELINE_CONCLUSIONS)


def read_base_commit(api: GitHubApi, candidates: Sequence[str | None], branch: str,
                     patterns: Sequence[str], exclude: Sequence[str] = ()) -> BaseCommit:
    """The first candidate commit (the base SHA, then the merge base) with a bound push run;
    one listing per candidate asked, and the artifact list of each bound run. An artifact
    named like `exclude` (the run over the base's code, `base-code-artifact-name`) is never
    the base's JUnit, however like the patterns it is named."""
    for sha in dict.fromkeys(c for c in candidates if c):
        runs: dict[str, WorkflowRun] = {}
        for run in sorted(api.workflow_runs(sha), key=lambda r: (r.created_at, r.id),
                          reverse=True):
            if _bound(run, sha, branch):
                runs.setdefault(run.path, run)
        if runs:
            bound = list(runs.values()) if patterns else []
            artifacts = {run.id: tuple(artifacts_named(listed, patterns, exclude))
                         for run, listed in zip(bound, api.reads.each(
                             lambda run: api.artifacts(run.id), bound), strict=True)}
            return BaseCommit(sha, branch, runs, artifacts)
    return BaseCommit(next((c for c in candidates if c), None), branch)


def compare_test_sets(
    api: GitHubApi,
    head_runs: Sequence[tuple[str, JUnitRun]],
    base: BaseCommit,
    workdir: Path | None = None,
    cap: int = MAX_COMPARED_TESTS,
) -> list[TestSetComparison]:
    by_workflow: dict[str, list[JUnitFile]] = {}
    for workflow, run in head_runs:
        by_workflow.setdefault(workflow, []).extend(run.files)
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:

        def one(workflow: str) -> TestSetComparison:
            baseline = base.runs.get(workflow)
            if baseline is None:
                return TestSetComparison(
                    workflow, None, note=f"no finished push run of {workflow} on"
                    f" {base.where()} to compare the head's tests with: removed tests cannot"
                    " be listed")
            base_files, notes = read_artifact_junit(api, baseline, base.artifacts.get(
                baseline.id, ()), Path(scratch), identities=cap)
            if not base_files:
                why = "; ".join(n.text for n in notes) or "it has no JUnit artifact"
                return TestSetComparison(
                    workflow, baseline, comparable=False, note=f"the base branch's"
                    f" {run_label(baseline)} cannot be compared: {why}")
            return compare(workflow, base_files, by_workflow[workflow], baseline=baseline,
                           cap=cap)

        # Each workflow's baseline is downloaded and compared beside the others', in order.
        return api.reads.each(one, list(by_workflow))
