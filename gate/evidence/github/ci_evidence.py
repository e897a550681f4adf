"""Evidence from CI on GitHub: JUnit files in artifacts of the head commit's workflow runs.

A run counts only when it is about the head commit and finished: a run on another commit,
still in progress, cancelled, skipped or neutral is absence (noted, never a pass). Besides
the items, the collector records what it could not see (`CiObservation`): every run of the
head made for this PR, with its status and conclusion (the gate's own run left out), and
each artifact of a counted run it could not read; the engine judges them
(`gate/engine/completeness.py`). The time
of the evidence is the run's `run_started_at`, written by GitHub, never a clock in a file
the PR's workflow produced. Every item records which run, attempt and workflow file it
came from, so a reviewer (and the trust checks) can trace it.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path

from gate.claim.ci_facts import CiObservation, HeadRun, UnreadArtifact
from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.facts import Disqualification, EvidenceItem, Origin, Producer
from gate.claim.github_facts import Artifact, WorkflowRun, run_label
from gate.claim.junit_facts import FailingTest, JUnitFile, JUnitRun
from gate.claim.junit_options import JUnitOptions
from gate.claim.model import CheckType, Evidence, Verifier, VerifierKind
from gate.claim.subject import Binding
from gate.claim.timefmt import format_rfc3339
from gate.evidence.artifact_zip import ExtractedMember, extract_members
from gate.evidence.github.api import ArtifactGone, GitHubApi
from gate.evidence.junit import VERIFIER_ID, run_evidence
from gate.evidence.junit_reader import DEFAULT_OPTIONS, NotJUnit, read_junit_file

MAX_ARTIFACT_BYTES = 512 << 20
_ABSENT = {"cancelled", "skipped", "neutral", "stale", "action_required"}


@dataclass(frozen=True)
class CiEvidence:
    items: tuple[EvidenceItem, ...] = ()
    notes: tuple[str, ...] = ()
    links: tuple[str, ...] = ()
    failing: tuple[FailingTest, ...] = field(default_factory=tuple)
    inputs: tuple[tuple[str, str], ...] = ()  # (what, sha256) for the record
    runs: tuple[WorkflowRun, ...] = ()  # every run listed on the head SHA
    #: (workflow path, JUnit read) of each artifact that became an item, for test-set checks
    junit: tuple[tuple[str, JUnitRun], ...] = ()
    observation: CiObservation = field(default_factory=CiObservation)
    #: (run, JUnit read) of each artifact that became a fully read item: what a run's other
    #: artifacts (the head's tests over the base's code) are compared with
    run_junit: tuple[tuple[WorkflowRun, JUnitRun], ...] = ()
    #: (run id, its artifacts as listed) of each run whose artifacts were read: the run over
    #: the base's code is looked for in the same listing, not asked for again
    listings: tuple[tuple[int, tuple[Artifact, ...]], ...] = ()




def _run_extension(run: WorkflowRun, artifact: Artifact) -> dict[str, object]:
    return {
        "id": run.id,
        "attempt": run.run_attempt,
        "workflow_path": run.path,
        "event": run.event,
        "head_sha": run.head_sha,
        "conclusion": run.conclusion,
        "run_started_at": format_rfc3339(run.run_started_at) if run.run_started_at else None,
        "updated_at": format_rfc3339(run.updated_at),
        "html_url": run.html_url,
        "artifact": {"id": artifact.id, "name": artifact.name},
    }


_PULL_EVENTS = frozenset({"pull_request", "pull_request_target"})


def _other_pulls(
    api: GitHubApi, runs: Sequence[WorkflowRun], head_sha: str, pull_number: int | None,
    head: tuple[str, str] | None = None,
) -> frozenset[int] | None:
    """Every PR other than ours, open, closed or merged, whose commits hold the head and whose
    head is the same repository and branch as ours (`head`; all of them without it): its
    `pull_request` runs look exactly like ours. Asked when a pull_request run is on the head;
    None when that could not be learnt. A PR from another repository or branch (an
    outsider's fork holding the same commit) makes runs that name its own head instead."""
    if pull_number is None or not any(run.event in _PULL_EVENTS for run in runs):
        return frozenset()
    try:
        found = api.pulls_with_commit(head_sha)
    except CouldNotDecide:
        return None
    return frozenset(n for n, repo, ref in found if n != pull_number and (
        head is None or (repo.lower() == head[0].lower() and ref == head[1])))


def _other_head(run: WorkflowRun, head: tuple[str, str] | None) -> str | None:
    """A pull_request run is made for a PR whose head is the run's head repository and
    branch; another head is another PR's."""
    if head is None:
        return None
    repo, ref = head
    if run.head_repo is not None and run.head_repo.lower() != repo.lower():
        return f"the fork {run.head_repo}"
    if run.head_branch is not None and run.head_branch != ref:
        return f"the branch {run.head_branch!r}"
    return None


def _for_another_pull(
    run: WorkflowRun, pull_number: int | None, others: frozenset[int] | None,
    head: tuple[str, str] | None = None,
) -> str | None:
    """Runs belong to a commit, not a PR, and `run.pull_requests` names only the open PRs
    whose head matches now: a second PR with the same head (into a base the agent controls,
    with its own workflow), even one closed before the gate looks, must not lend its run."""
    if pull_number is None or run.event not in _PULL_EVENTS:
        return None
    if run.pull_numbers and pull_number not in run.pull_numbers:
        listed = ", ".join(f"#{n}" for n in run.pull_numbers)
        return (f"{run_label(run)} ran for pull request {listed}, not #{pull_number}: its"
                " workflow came from that PR's base branch, so it is not this PR's evidence")
    elsewhere = _other_head(run, head)
    if elsewhere:
        return (f"{run_label(run)} was made for a pull request from {elsewhere}, not"
                f" #{pull_number}'s head: not counted")
    if others is None:
        return (f"{run_label(run)} cannot be tied to #{pull_number}: the pull requests that"
                " hold this commit could not be listed; not counted")
    if others:
        listed = ", ".join(f"#{n}" for n in sorted(others))
        return (f"{run_label(run)} cannot be tied to #{pull_number}: {listed} (open, closed"
                " or merged) also hold this head commit from the same branch, and GitHub does"
                " not say which pull request a run was made for; not counted")
    return None


def _not_this_pulls(
    run: WorkflowRun, head_sha: str, pull_number: int | None,
    others: frozenset[int] | None, own_run_id: int | None,
    head: tuple[str, str] | None = None,
) -> str | None:
    """Why a listed run is not one of this PR head's runs (nor waited for), if it is not."""
    if run.head_sha != head_sha:
        return f"{run_label(run)} is on {run.head_sha[:12]}, not the head: ignored"
    foreign = _for_another_pull(run, pull_number, others, head)
    if foreign:
        return foreign
    if run.id == own_run_id:
        return (f"{run_label(run)} is the gate's own run: its results are the workspace"
                " files it was given")
    return None


def run_binding(run: WorkflowRun, pull_number: int | None) -> Binding:
    """What GitHub says a run is bound to: its commit, event, workflow file, attempt, actor
    and start, and the PR it was made for when it is a PR's run (`_for_another_pull` let
    through only runs no other PR can claim; one that names another PR is bound to that)."""
    made_for = None
    if run.event in _PULL_EVENTS and pull_number is not None:
        made_for = pull_number if not run.pull_numbers or pull_number in run.pull_numbers \
            else run.pull_numbers[0]
    return Binding(commit=run.head_sha, pull_number=made_for, event=run.event,
                   workflow_path=run.path, run_attempt=run.run_attempt, actor=run.actor,
                   observed_at=run.run_started_at)


def _the_gates(run: WorkflowRun, gate_workflow: str | None) -> str | None:
    if gate_workflow is None or run.path != gate_workflow:
        return None
    return (f"{run_label(run)} is a run of the gate's own workflow: never CI evidence, its"
            " artifacts are not read")


def _absence(run: WorkflowRun) -> str | None:
    if run.status != "completed":
        return f"{run_label(run)} is still {run.status}: not evidence yet"
    if run.conclusion is None or run.conclusion in _ABSENT:
        return f"{run_label(run)} ended {run.conclusion or 'without a conclusion'}: that is absence"
    if run.run_started_at is None:
        return f"{run_label(run)} has no run_started_at: its time cannot be bound"
    return None


def artifacts_named(listed: Iterable[Artifact], patterns: Sequence[str],
                    exclude: Sequence[str] = ()) -> list[Artifact]:
    """The artifacts named like one of `patterns` and like none of `exclude` (the head's
    JUnit, the base's baseline and the run over the base's code are told apart by name)."""
    return [a for a in listed if any(fnmatchcase(a.name, p) for p in patterns)
            and not any(fnmatchcase(a.name, p) for p in exclude)]


def _wanted_artifacts(listed: Sequence[Artifact], run: WorkflowRun, patterns: Sequence[str],
                      notes: list[str], exclude: Sequence[str] = ()) -> list[Artifact]:
    """The run's artifacts named like the patterns and not like `exclude` (a note says when
    there is none)."""
    wanted = artifacts_named(listed, patterns, exclude)
    if not wanted:
        notes.append(f"{run_label(run)} has no artifact named like {', '.join(patterns)}")
    return wanted


def collect_ci_evidence(
    api: GitHubApi,
    head_sha: str,
    artifact_patterns: Sequence[str],
    requested: Sequence[str] = (),
    workdir: Path | None = None,
    max_artifact_bytes: int = MAX_ARTIFACT_BYTES,
    identities: int | None = None,
    pull_number: int | None = None,
    junit_options: JUnitOptions = DEFAULT_OPTIONS,
    own_run_id: int | None = None,
    gate_workflow: str | None = None,
    head: tuple[str, str] | None = None,
    exclude: Sequence[str] = (),
) -> CiEvidence:
    """Read the JUnit artifacts of every finished run on `head_sha` (all pages).

    `identities`: also keep each test's identity (up to that many per file), to compare
    the head's test set with the base branch's. `pull_number`: the PR being decided; a
    pull_request run made for another PR with the same head is not its evidence.
    `own_run_id`: the gate's own run (GITHUB_RUN_ID), still running by definition;
    `gate_workflow`: the gate's own workflow file, whose runs are listed (the engine leaves
    them out of CI) but whose artifacts are never read as evidence; `head`: the PR's head
    repository and branch, which its own pull_request runs name; `exclude`: artifact names
    never read as the head's JUnit (the run over the base's code, `base-code-artifact-name`)."""
    runs = api.workflow_runs(head_sha)
    found = _Found()
    if not runs:
        found.notes.append(f"no workflow run on the head commit {head_sha[:12]}: runs on"
                           " earlier commits of the PR say nothing about the code as it is now")
    others = _other_pulls(api, runs, head_sha, pull_number, head)
    head_runs: list[HeadRun] = []
    # Per run, in the listing's order: why it is not read, or None (its artifacts are read).
    plan: list[tuple[WorkflowRun, str | None]] = []
    for run in runs:
        elsewhere = _not_this_pulls(run, head_sha, pull_number, others, own_run_id, head)
        if not elsewhere:
            head_runs.append(HeadRun(run_label(run), run.path, run.status, run.conclusion))
        why = elsewhere or _absence(run) or _the_gates(run, gate_workflow)
        if why or artifact_patterns:  # without patterns the runs are listed for completeness
            plan.append((run, why))
    with tempfile.TemporaryDirectory(dir=workdir) as scratch:

        def read(run: WorkflowRun) -> tuple[tuple[Artifact, ...], list[str],
                                            list[tuple[Artifact, _ArtifactResult]]]:
            said: list[str] = []
            listed = tuple(api.artifacts(run.id))
            wanted = _wanted_artifacts(listed, run, artifact_patterns, said, exclude)
            results = api.reads.each(lambda artifact: _artifact_evidence(
                api, run, artifact, head_sha, requested, Path(scratch), max_artifact_bytes,
                identities, pull_number, junit_options), wanted)
            return listed, said, list(zip(wanted, results, strict=True))

        # The runs' artifacts are listed and read together, then taken in the runs' order.
        read_runs = iter(api.reads.each(read, [run for run, why in plan if why is None]))
        listings: list[tuple[int, tuple[Artifact, ...]]] = []
        for run, why in plan:
            if why is not None:
                found.notes.append(why)
                continue
            listed, said, results = next(read_runs)
            listings.append((run.id, listed))
            found.notes.extend(said)
            for artifact, result in results:
                found.add(run, artifact, result)
    return CiEvidence(tuple(found.items), tuple(n for n in found.notes if n),
                      tuple(found.links), tuple(found.failing), tuple(found.inputs),
                      tuple(runs), tuple((r.path, j) for r, j in found.by_run),
                      CiObservation(tuple(head_runs), tuple(found.unread)), tuple(found.by_run),
                      tuple(listings))


@dataclass
class _Found:
    """What the counted runs' artifacts gave, gathered in the runs' order (one run's lists)."""

    notes: list[str] = field(default_factory=list)
    items: list[EvidenceItem] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    failing: list[FailingTest] = field(default_factory=list)
    inputs: list[tuple[str, str]] = field(default_factory=list)
    by_run: list[tuple[WorkflowRun, JUnitRun]] = field(default_factory=list)  # fully read JUnit
    unread: list[UnreadArtifact] = field(default_factory=list)

    def add(self, run: WorkflowRun, artifact: Artifact, result: _ArtifactResult) -> None:
        if result.note:
            self.notes.append(result.note)
        if result.unread is not None:
            self.unread.append(UnreadArtifact(result.unread[0], run.path, result.unread[1]))
        if result.item is None:
            return
        self.items.append(result.item)
        self.links.append(f"[{run.name} #{run.id} attempt {run.run_attempt}]({run.html_url})"
                          f" artifact `{artifact.name}`")
        if result.zip_sha256 is not None:
            self.inputs.append((f"artifact {artifact.name} of run {run.id} (zip)",
                                result.zip_sha256))
        if result.junit is not None:
            if result.unread is None:  # a partial test set is never compared
                self.by_run.append((run, result.junit))
            self.failing.extend(result.junit.failing)
            self.inputs.extend((f"artifact {artifact.name}: {f.path}", f.sha256)
                               for f in result.junit.files)


@dataclass(frozen=True)
class ReadNote:
    """Why part of an artifact gave no JUnit file: `skipped`, a file that is no JUnit report
    (coverage.xml beside the reports), is not a failure to read the artifact."""

    text: str
    skipped: bool = False


def read_artifact_junit(
    api: GitHubApi,
    run: WorkflowRun,
    artifacts: Sequence[Artifact],
    scratch: Path,
    max_bytes: int = MAX_ARTIFACT_BYTES,
    identities: int | None = None,
) -> tuple[list[JUnitFile], list[ReadNote]]:
    """The JUnit files of one run's JUnit artifacts (a baseline; already listed and matched
    by name), and why any are missing."""
    files: list[JUnitFile] = []
    notes: list[ReadNote] = []
    for artifact in artifacts:
        label = f"{run_label(run)} artifact {artifact.name!r}"
        if artifact.expired:
            notes.append(ReadNote(f"{label} has expired"))
            continue
        try:
            data = api.download_artifact(artifact, max_bytes)
            members = extract_members(data, label, scratch / f"base-{run.id}-{artifact.id}")
            for member in members:
                try:
                    files.append(read_junit_file(member.path, (), source=f"{label}: {member.name}",
                                                 identities=identities))
                except NotJUnit as exc:  # coverage.xml beside the reports: not a test file
                    notes.append(ReadNote(f"skipped, not a JUnit report: {exc}", skipped=True))
        except (CouldNotDecide, InvalidInput) as exc:  # a baseline never blocks: it is noted
            notes.append(ReadNote(f"{label}: {exc}"))
    return files, notes


@dataclass(frozen=True)
class _ArtifactResult:
    item: EvidenceItem | None = None
    junit: JUnitRun | None = None
    note: str | None = None
    zip_sha256: str | None = None
    unread: tuple[str, str] | None = None  # (label, problem): an artifact not read


def _producer(run: WorkflowRun, pull_number: int | None) -> Producer:
    """The run as a producer: its file, how it ended, the base it was made for."""
    base = run.base_for(pull_number) if pull_number is not None else None
    return Producer(run.path, run.conclusion, base)


def _artifact_evidence(
    api: GitHubApi,
    run: WorkflowRun,
    artifact: Artifact,
    head_sha: str,
    requested: Sequence[str],
    scratch: Path,
    max_bytes: int,
    identities: int | None = None,
    pull_number: int | None = None,
    options: JUnitOptions = DEFAULT_OPTIONS,
) -> _ArtifactResult:
    label = f"{run_label(run)} artifact {artifact.name!r}"
    if artifact.expired:
        return _ArtifactResult(note=f"{label} has expired: it could not be read",
                               unread=(label, "it has expired"))
    try:
        data = api.download_artifact(artifact, max_bytes)
    except ArtifactGone as exc:
        return _ArtifactResult(note=f"{label}: {exc}: it could not be read",
                               unread=(label, str(exc)))
    destination = scratch / f"run-{run.id}-artifact-{artifact.id}"
    try:
        members = extract_members(data, label, destination)
        files, skipped, broken = _read_members(members, label, requested, identities, options)
    except InvalidInput as exc:
        # A broken or hostile artifact is not evidence; the reason is shown, never a pass,
        # and it is recorded as not read, so another passing artifact cannot outvote it.
        return _ArtifactResult(item=_broken(run, artifact, label, str(exc), pull_number),
                               zip_sha256=hashlib.sha256(data).hexdigest(),
                               unread=(label, str(exc)))
    unread = (label, "; ".join(broken)) if broken else None
    if not files and unread is not None:
        return _ArtifactResult(item=_broken(run, artifact, label, unread[1], pull_number),
                               zip_sha256=hashlib.sha256(data).hexdigest(), unread=unread)
    if not files:
        return _ArtifactResult(note=f"{label} holds no JUnit XML file"
                               + "".join(f"; {note}" for note in skipped))
    junit = JUnitRun(files, tuple(requested), skipped)
    item = run_evidence(junit, head_sha, _merge_commits_of(api, junit, head_sha))
    assert run.run_started_at is not None  # _absence() let only bound runs through
    evidence = replace(
        item.evidence,
        at=run.run_started_at,
        extensions={**item.evidence.extensions, "x-run": _run_extension(run, artifact),
                    "x-time-source": "run_started_at (GitHub's clock)"},
    )
    return _ArtifactResult(item=replace(item, evidence=evidence, source=label,
                                       producer=_producer(run, pull_number),
                                       binding=run_binding(run, pull_number)), junit=junit,
                           note="; ".join(skipped) or None,
                           zip_sha256=hashlib.sha256(data).hexdigest(), unread=unread)


def _read_members(
    members: Sequence[ExtractedMember], label: str, requested: Sequence[str],
    identities: int | None, options: JUnitOptions,
) -> tuple[tuple[JUnitFile, ...], tuple[str, ...], tuple[str, ...]]:
    """(files read, notes of members skipped as not JUnit, problems of members that could not
    be read). Each member is read on its own: a malformed sibling is recorded as not read
    (the artifact then never supports verified) and never hides what the readable files say,
    so a failing test in one of them still refutes."""
    files: list[JUnitFile] = []
    skipped: list[str] = []
    broken: list[str] = []
    for member in members:
        try:
            files.append(read_junit_file(member.path, requested, source=f"{label}: {member.name}",
                                         identities=identities, options=options))
        except NotJUnit as exc:
            skipped.append(f"skipped, not a JUnit report: {exc}")
        except InvalidInput as exc:
            broken.append(f"{member.name} could not be read: {exc}")
    return tuple(files), tuple(skipped), tuple(broken)


MAX_COMMIT_LOOKUPS = 3


def _merge_commits_of(api: GitHubApi, junit: JUnitRun, head_sha: str) -> set[str]:
    """A `pull_request` workflow tests GitHub's merge commit of the PR (parents: base, head),
    so a file naming that commit is about the head too. Checked through the API, never
    assumed: any other commit stays `other_commit`."""
    named = {commit.lower() for file in junit.files for _, commit in file.commits
             if not head_sha.lower().startswith(commit.lower()[:40])}
    bound = set()
    for commit in sorted(named)[:MAX_COMMIT_LOOKUPS]:
        try:
            parents = api.commit_parents(commit)
        except CouldNotDecide:
            continue
        if len(parents) == 2 and head_sha in parents:
            bound.add(commit)
    return bound


def run_item(run: WorkflowRun, artifact: Artifact, label: str, pull_number: int | None = None,
             disqualified: Disqualification | None = None) -> EvidenceItem:
    """One artifact of a run as an item that says only which run made it (producer, binding,
    `x-run`, GitHub's start time), for the engine's provenance and binding rules."""
    if run.run_started_at is None:
        raise CouldNotDecide(f"{label}: no run_started_at")
    evidence = Evidence(
        check_type=CheckType.TEST_RUN,
        at=run.run_started_at,
        verifier=Verifier(VERIFIER_ID, VerifierKind.INDEPENDENT),
        extensions={"x-run": _run_extension(run, artifact)},
    )
    return EvidenceItem(evidence, Origin.GATE, label, disqualified,
                        _producer(run, pull_number), run_binding(run, pull_number))


def _broken(run: WorkflowRun, artifact: Artifact, label: str, problem: str,
            pull_number: int | None = None) -> EvidenceItem:
    """An unreadable artifact becomes a disqualified item, so the reason reaches the summary."""
    return run_item(run, artifact, label, pull_number,
                    Disqualification("unreadable_artifact", problem))
