"""test_run evidence from JUnit XML files the operator names (`--junit PATH_OR_GLOB`).

The counting rule (docs/junit.md, with an example of each dialect): each `<testcase>` is one
run of a test, counted once by its most severe result (error > failure > skipped > passed),
as the frameworks' own `tests` attributes and the common report actions count. A
`<failure>`/`<error>` directly under a suite fails the run without being a test
(`suite_errors`).
Cases sharing an identity are attempts of one test only when the report marks reruns
(Surefire's `flakyFailure`/`rerunFailure`... inside the case) or the policy says so
(`junit.reruns: repeated-cases`, merged within one `<testsuite>` element, last attempt
wins); otherwise a failure stands whatever another case of that name says, so an added
test reusing a failing test's classname/name can neither hide it nor pass for it. The
`tests`/`failures`/`errors` attributes are never counted; a suite stating more failures
and errors than were counted disqualifies a run that shows none (`count_mismatch`); a run
that shows failures is refuted by them whatever its attributes say. Files whose root is
not JUnit (coverage.xml...) are skipped with a note; malformed XML is refused.

What counts as evidence: everything named by `--junit` in one `verify` is one test run and
one evidence item (a test a policy names may live in any shard). Its time (`at`) is the
earliest of its files' times: the plugin's `claim-gate.started_at` property, else a suite
`timestamp` with a zone, else the file's modification
time on the gate's machine (`x-junit.files[].time_source` says which; a timestamp without a
zone is never read as UTC). A run with no executed test, or only skipped tests, is not
evidence (absence, never a pass); nor is a file made on another commit (`other_commit`) or
from a dirty tree (`dirty_tree`), as its `claim-gate.commit` / `git.commit` / `vcs.revision`
and `claim-gate.tree_clean` properties say.

Expected is `{"failures": 0, "errors": 0}`, plus `"failed_named_tests": []` and
`"missing_named_tests": []` when a policy (`required_tests: [...]`) or the claim
(`"x-required-tests": [...]`, which can only add) names tests. The observed value carries
the same keys, so the engine's generic contradiction rule refutes a claim whose covered
change fails a test, or whose named test failed, did not run, or was only skipped.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace

from gate import __version__
from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.fail_to_pass import BaseCodeComparison
from gate.claim.github_facts import TestSetComparison
from gate.claim.junit_facts import JUnitFile, JUnitRun
from gate.claim.loader import LoadedClaim
from gate.claim.model import JSON, CheckType, Claim, Evidence, Verifier, VerifierKind
from gate.claim.policy import Policy
from gate.claim.policy_parse import test_names
from gate.claim.subject import Binding
from gate.claim.test_job import INTERRUPTED_FIELD
from gate.claim.timefmt import format_rfc3339
from gate.claim.wording import plural
from gate.evidence.base_code_run import compare_base_code
from gate.evidence.commit_binding import UNBOUND_COMMIT
from gate.evidence.interface import Collected
from gate.evidence.junit_reader import (
    CLEAN,
    COMMIT_PROPERTIES,
    DEFAULT_MAX_JUNIT_BYTES,
    read_junit_file,
)
from gate.evidence.junit_run import expand_paths, read_run
from gate.evidence.test_sets import MAX_COMPARED_TESTS, compare

VERIFIER_ID = f"claim-gate/junit@{__version__}"
CLAIM_FIELD = "x-required-tests"
#: Failing tests listed by name in an evidence record (all are counted; the list is capped).
MAX_LISTED_FAILURES = 50
_HEX = re.compile(r"[0-9a-f]+")

__all__ = [
    "DEFAULT_MAX_JUNIT_BYTES",
    "expand_paths",
    "read_run",
    "required_tests",
    "run_evidence",
]


def required_tests(policy: Policy, claim: Claim, claim_source: str) -> tuple[str, ...]:
    """Named tests: the policy's `required_tests` plus the claim's `x-required-tests`."""
    names = dict.fromkeys(policy.required_tests)
    if CLAIM_FIELD in claim.extensions:
        extra = test_names(claim.extensions[CLAIM_FIELD], claim_source, f"/{CLAIM_FIELD}")
        names.update(dict.fromkeys(extra))
    return tuple(names)


def _same_commit(found: str, head: str) -> bool:
    """The same commit, abbreviated or not; `<sha>-dirty` and the like are not a commit id."""
    found, head = found.strip().lower(), head.strip().lower()
    if _HEX.fullmatch(found) is None:
        return False
    shorter = min(len(found), len(head))
    return shorter >= 7 and found[:shorter] == head[:shorter]


def _disqualification(
    run: JUnitRun, head_sha: str | None, also_bound: Collection[str] = (),
    require_binding: bool = False,
) -> Disqualification | None:
    for file in run.files:
        if head_sha and require_binding and not file.commits:
            return Disqualification(
                UNBOUND_COMMIT,
                f"{file.path} records no commit (no {', '.join(COMMIT_PROPERTIES)} property),"
                f" so it cannot show it tested {head_sha[:12]}; write it with the claim-gate"
                " pytest plugin active, or add the property",
            )
        if head_sha:
            for prop, commit in file.commits:
                bound = [head_sha, *also_bound]
                if not any(_same_commit(commit, sha) for sha in bound):
                    return Disqualification(
                        "other_commit",
                        f"{file.path} says it tested commit {commit[:80]!r} ({prop}), not the head"
                        f" {head_sha}: it is about other code",
                    )
        if file.tree_clean is not None and file.tree_clean.strip().lower() not in CLEAN:
            return Disqualification(
                "dirty_tree",
                f"{file.path} does not say its working tree was clean"
                f" (claim-gate.tree_clean={file.tree_clean!r}): tests of uncommitted changes are"
                " not about the committed code",
            )
    for file in run.files:
        if (file.plugin_modified or "false").strip().lower() != "false" or file.plugin_findings:
            said = "; ".join(file.plugin_findings[:3]) or f"{file.plugin_modified!r}"
            return Disqualification(
                "producer_modified",
                f"{file.path} says the claim-gate plugin saw its own run modified"
                f" (claim-gate.producer_modified: {said}): the run that wrote it is the"
                " agent's account, so no report of that run counts",
            )
    visible = run.totals.failures + run.totals.errors
    for file in run.files if not visible else ():  # failures shown: it refutes as it is
        hiding = next((m for m in file.mismatches if m.hides_failures), None)
        if hiding is not None:
            return Disqualification(
                "count_mismatch",
                f"{file.path}: suite {hiding.suite!r} says it had"
                f" {plural(hiding.stated_failing or 0, 'failure or error', 'failures and errors')},"
                f" but {plural(hiding.counted_failing, 'failing test')}"
                f" {'was' if hiding.counted_failing == 1 else 'were'} counted in it: a report"
                " that hides failures is never a pass",
            )
    totals = run.totals
    if visible:
        return None  # a suite's own error with no case is still a failing run
    if totals.tests == 0:
        return Disqualification(
            "no_tests",
            "the JUnit files hold no test case: a run that executed nothing is absence of"
            " evidence, never a pass",
        )
    if totals.executed == 0:
        return Disqualification(
            "all_skipped",
            f"all {plural(totals.tests, 'test')} in the JUnit files were skipped: nothing was"
            " executed, which is absence of evidence, never a pass",
        )
    return None


def observed_value(run: JUnitRun) -> dict[str, JSON]:
    totals = run.totals
    failing = run.failing
    value: dict[str, JSON] = {
        **totals.as_json(),
        "failing_tests": [test.identity for test in failing[:MAX_LISTED_FAILURES]],
    }
    if len(failing) > MAX_LISTED_FAILURES:
        value["failing_tests_not_listed"] = len(failing) - MAX_LISTED_FAILURES
    flaky = [name for file in run.files for name in file.flaky]
    value["flaky_tests"] = flaky[:MAX_LISTED_FAILURES]
    if run.requested:
        status = run.named_status()
        value["failed_named_tests"] = list(status.failed)
        value["missing_named_tests"] = list(status.missing)
    mismatches = [f"{file.path}: {m.describe()}" for file in run.files for m in file.mismatches]
    if mismatches:
        value["suite_count_mismatches"] = mismatches[:MAX_LISTED_FAILURES]
    # The plugin's word that its run did not finish: the engine's rule for unfinished runs
    # judges it as it judges the plugin's record (`gate/engine/test_counts.py`).
    unfinished = sum(file.plugin_unfinished for file in run.files)
    if unfinished:
        value["unfinished"] = unfinished
    if any(file.plugin_interrupted for file in run.files):
        value["interrupted"] = True
    return value


def _interrupted_by(run: JUnitRun) -> dict[str, JSON]:
    said = [f"{file.path}: {file.plugin_interrupted}" for file in run.files
            if file.plugin_interrupted]
    return {INTERRUPTED_FIELD: "; ".join(said[:3])} if said else {}


def _file_json(file: JUnitFile) -> dict[str, JSON]:
    return {
        "path": file.path,
        "sha256": file.sha256,
        "at": format_rfc3339(file.time.at),
        "time_source": file.time.source,
        "time_note": file.time.note,
        **file.totals.as_json(),
        "reruns": file.reruns,
        **({"suite_count_mismatches": [m.as_json() for m in file.mismatches]}
           if file.mismatches else {}),
        **({"commits": [list(pair) for pair in file.commits]} if file.commits else {}),
        **({"tree_clean": file.tree_clean} if file.tree_clean is not None else {}),
        **({"plugin_run": True} if file.plugin_modified is not None else {}),
    }


def run_evidence(
    run: JUnitRun, head_sha: str | None = None, also_bound: Collection[str] = (),
    *, require_binding: bool = False,
) -> EvidenceItem:
    """The run as one `test_run` evidence item observed by the gate itself. `also_bound`:
    commits that stand for the head (a PR's test merge commit whose parent is the head).
    `require_binding`: a file naming no commit is `unbound_commit` under `head_sha`, as an
    evidence record is (the command line; the Action binds CI artifacts by their run)."""
    if not run.files:
        raise ValueError("a JUnit run needs at least one file")
    expected: dict[str, JSON] = {"failures": 0, "errors": 0}
    if run.requested:
        expected["failed_named_tests"] = []
        expected["missing_named_tests"] = []
    sources = sorted({file.time.source for file in run.files})
    paths = [file.path for file in run.files]
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    evidence = Evidence(
        check_type=CheckType.TEST_RUN,
        at=min(file.time.at for file in run.files),
        verifier=Verifier(VERIFIER_ID, VerifierKind.INDEPENDENT),
        covers=(),
        target=f"junit: {shown}",
        expected=expected,
        observed_value=observed_value(run),
        has_observed_value=True,
        extensions={
            "x-junit": {
                "time_source": sources[0] if len(sources) == 1 else "mixed",
                "at_rule": "the earliest time among the run's files",
                "head_sha": head_sha,
                "requested_tests": list(run.requested),
                "files": [_file_json(file) for file in run.files],
                **({"skipped_files": list(run.notes)} if run.notes else {}),
            },
            **_interrupted_by(run),
        },
    )
    disqualified = _disqualification(run, head_sha, also_bound, require_binding)
    return EvidenceItem(evidence, Origin.GATE, shown, disqualified,
                        binding=_head_binding(run, head_sha, require_binding, disqualified))


def _head_binding(run: JUnitRun, head_sha: str | None, require_binding: bool,
                  disqualified: Disqualification | None) -> Binding | None:
    """Bound to the head on a clean tree: every file names the head and says its tree was
    clean (what `_disqualification` let through, with the cleanliness stated, not assumed)."""
    if head_sha is None or not require_binding or disqualified is not None:
        return None
    clean = all(f.tree_clean is not None and f.tree_clean.strip().lower() in CLEAN
                for f in run.files)
    return Binding(commit=head_sha, tree_clean=clean)


def with_exit_status(item: EvidenceItem, status: int) -> EvidenceItem:
    """The run with the test job's exit status beside its counts (the engine reads both)."""
    observed = item.evidence.observed_value
    value = {**observed, "exit_status": status} if isinstance(observed, dict) else observed
    return replace(item, evidence=replace(item.evidence, observed_value=value))


@dataclass(frozen=True)
class JUnitFiles:
    """The JUnit files the operator named (`--junit`): one test run, one evidence item.

    With `base` (`--base-junit`), the base branch's report too: every test that ran there
    and is missing or only skipped here is listed (the same comparison as the Action's,
    `test_sets.compare`) for the engine's removed_tests rule. The head's files are read
    once, keeping each test's outcome. The base report is the operator's input: fetched
    from the base branch's own pipeline, never from the change under review."""

    patterns: tuple[str, ...]
    head_sha: str | None = None
    max_bytes: int = DEFAULT_MAX_JUNIT_BYTES
    base: tuple[str, ...] = ()
    #: `--base-code-junit`: the head's tests run over the base's code (fail-to-pass).
    base_code: tuple[str, ...] = ()
    #: The test job's own exit status (`--test-exit-status`), recorded with the run.
    exit_status: int | None = None

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        named = required_tests(policy, loaded.claim, loaded.source)
        kept = MAX_COMPARED_TESTS if self.base or self.base_code else None
        run = read_run(self.patterns, named, self.max_bytes, policy.junit, kept,
                       read=read_junit_file)
        inputs = tuple((f"JUnit {f.path}", f.sha256) for f in run.files)
        test_sets: tuple[TestSetComparison, ...] = ()
        if self.base:
            base = read_run(self.base, (), self.max_bytes, policy.junit, kept, "--base-junit",
                            read_junit_file)
            comparison = compare(
                f"the head's JUnit ({', '.join(self.patterns)})", base.files, run.files,
                base_label=f"the base report {', '.join(self.base)}",
            )
            test_sets, inputs = (comparison,), inputs + comparison.inputs
        base_code = self._over_base_code(run, policy, kept)
        if base_code is not None:
            inputs += base_code[1]
        item = run_evidence(run, self.head_sha, require_binding=True)
        if self.exit_status is not None:
            item = with_exit_status(item, self.exit_status)
        return Collected(
            items=(item,), junit=(run,),
            failing=run.failing, inputs=inputs, test_sets=test_sets,
            base_code=base_code[0] if base_code is not None else None,
        )

    def _over_base_code(
        self, run: JUnitRun, policy: Policy, kept: int | None
    ) -> tuple[BaseCodeComparison, tuple[tuple[str, str], ...]] | None:
        """The head's run against `--base-code-junit`, and the files read for the record."""
        if not self.base_code:
            return None
        over = read_run(self.base_code, (), self.max_bytes, policy.junit, kept,
                        "--base-code-junit", read_junit_file)
        source = f"the run over the base's code ({', '.join(self.base_code)})"
        read = tuple((f"base-code JUnit {f.path}", f.sha256) for f in over.files)
        return compare_base_code(over.files, run.files, source), read
