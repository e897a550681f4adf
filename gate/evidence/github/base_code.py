"""The Action's run of the head's tests over the base's code (`base-code-artifact-name`).

Read from the same runs as the head's JUnit, never from runs of its own: only a run that
`collect_ci_evidence` counted (on the head, this PR's, finished, not the gate's) and whose
JUnit artifact it read in full is asked for artifacts named like the base-code globs, and each
is compared with that same run's JUnit (one checkout, two reports: `compare_runs`). Every such
artifact is recorded as a run item (`run_item`: its workflow, attempt, event, start), so the
engine judges it as it judges any CI item: a workflow the PR changed or the policy does not
trust, a run before the head arrived or for another base, never counts. Which (base, head)
the files say they ran over (`claim-gate.base_code`) is the engine's to hold against the
subject too. An artifact that cannot be read is recorded as a problem, never as "no
fail-to-pass test".
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from gate.claim.facts import EvidenceItem
from gate.claim.fail_to_pass import BaseCodeComparison
from gate.claim.github_facts import WorkflowRun, run_label
from gate.claim.junit_facts import JUnitFile
from gate.evidence.base_code_run import compare_runs
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.ci_evidence import (
    CiEvidence,
    artifacts_named,
    read_artifact_junit,
    run_item,
)


@dataclass(frozen=True)
class BaseCodeRead:
    comparison: BaseCodeComparison | None = None
    notes: tuple[str, ...] = ()
    inputs: tuple[tuple[str, str], ...] = ()  # (what, sha256) for the record


def _head_files(ci: CiEvidence) -> dict[int, tuple[WorkflowRun, list[JUnitFile]]]:
    """Each counted run's JUnit files (a run may upload several JUnit artifacts)."""
    runs: dict[int, tuple[WorkflowRun, list[JUnitFile]]] = {}
    for run, junit in ci.run_junit:
        runs.setdefault(run.id, (run, []))[1].extend(junit.files)
    return runs


def collect_base_code(
    api: GitHubApi, ci: CiEvidence, patterns: Sequence[str], pull_number: int | None,
    identities: int | None, workdir: Path | None = None,
) -> BaseCodeRead:
    """The comparison over every base-code artifact of the counted runs (None: none found)."""
    if not patterns:
        return BaseCodeRead()
    runs: list[tuple[list[JUnitFile], list[JUnitFile]]] = []  # (over the base, the head)
    items: list[EvidenceItem] = []
    problems: list[str] = []
    inputs: list[tuple[str, str]] = []
    listed = dict(ci.listings)  # each run's artifacts, as collect_ci_evidence listed them
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:
        for run, head in _head_files(ci).values():
            before: list[JUnitFile] = []
            listing = listed[run.id] if run.id in listed else tuple(api.artifacts(run.id))
            wanted = artifacts_named(listing, patterns)
            for artifact in wanted:
                label = f"{run_label(run)} artifact {artifact.name!r}"
                files, notes = read_artifact_junit(api, run, [artifact], Path(scratch),
                                                   identities=identities)
                broken = [n.text for n in notes if not n.skipped]
                if broken or not files:
                    problems.append(f"{label} could not be read as the run over the base's"
                                    f" code: {'; '.join(broken) or 'it holds no JUnit XML file'}")
                items.append(run_item(run, artifact, label, pull_number))
                before += files
                inputs += [(f"base-code artifact {artifact.name}: {f.path}", f.sha256)
                           for f in files]
            if wanted:
                runs.append((before, head))
    if not items:
        return BaseCodeRead(notes=(
            f"no run that produced the head's JUnit has an artifact named like"
            f" {', '.join(patterns)} (base-code-artifact-name): fail-to-pass was not observed",))
    source = f"the run over the base's code ({', '.join(i.source for i in items)})"
    found = compare_runs(runs, source)
    problem = "; ".join(problems) or found.problem
    at = min(item.evidence.at for item in items)  # the run's start, GitHub's clock
    return BaseCodeRead(replace(found, problem=problem, runs=tuple(items), at=at), (),
                        tuple(inputs))
