"""What the gate saw of CI on the head as a whole, beyond the items it read.

`verified` needs a complete picture, so a collector records not only the evidence it read but
also what it could not: runs of the head still queued or running, runs that ended without
success, artifacts of counted runs it could not read. The engine's rules
(`gate/engine/completeness.py`) turn these facts into judgements; nothing here decides.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Conclusions of a finished run that say its work is not done (it cannot support verified).
NOT_SUCCESSFUL = frozenset({"failure", "timed_out", "startup_failure", "cancelled"})
#: Conclusions that mean the run never did its work yet (waiting for approval, too old).
NOT_RUN = frozenset({"action_required", "stale"})


@dataclass(frozen=True)
class HeadRun:
    """One workflow run on the head commit, made for this PR (or for no PR in particular)."""

    label: str  # run_label(run): name, id, attempt and workflow file, for a reviewer
    workflow_path: str
    status: str
    conclusion: str | None

    @property
    def finished(self) -> bool:
        return self.status == "completed" and self.conclusion is not None \
            and self.conclusion not in NOT_RUN

    @property
    def failed(self) -> bool:
        return self.finished and self.conclusion in NOT_SUCCESSFUL


@dataclass(frozen=True)
class UnreadArtifact:
    """An artifact of a counted run that matched the names and could not be read."""

    label: str
    workflow_path: str
    problem: str


@dataclass(frozen=True)
class ExpectedProducer:
    """A workflow the owner expects to report tests on the head: it produced JUnit on the
    base commit, or the policy names it (`required_workflows`). Never the agent's choice."""

    workflow_path: str
    why: str  # "it produced JUnit on the base commit 1a2b3c4d5e6f", "the policy requires it"
    #: Named by the policy's `required_workflows` (else learnt from the base commit, and
    #: expected only if `trusted_workflows`, when set, names it too).
    from_policy: bool = False


@dataclass(frozen=True)
class CiObservation:
    """The head's runs (the gate's own run left out: it is still running by definition) and
    the artifacts that could not be read."""

    runs: tuple[HeadRun, ...] = ()
    unread: tuple[UnreadArtifact, ...] = ()
    #: The producers the head must have (each a finished, successful run with its JUnit).
    expected: tuple[ExpectedProducer, ...] = ()
    #: Why the expected producers could not be learnt in full (None: they were).
    expected_unknown: str | None = None
