"""The claim's history on its PR: the gate's own verdicts on earlier heads (issue 15 item 3).

Information for the reviewer, never evidence: nothing here is an input to the engine, and a
verdict is the same with any history or none. The earlier verdicts come only from check runs
the gate provably posted (its own GitHub App, its check name, this PR), read by
`gate/evidence/github/history.py`; `gate/report/history.py` writes them into the record and
the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

#: Earlier heads kept in a record (oldest dropped first); the counts go on beyond it.
MAX_KEPT_HEADS = 20


class HistoryStatus(StrEnum):
    READ = "read"  # the gate's own earlier checks were read (there may be none)
    NOT_READ = "not read"  # nothing could prove a check ours (no App): not looked at
    UNREADABLE = "could not be read"  # asked, and the answer could not be used


@dataclass(frozen=True)
class HeadVerdict:
    """One head of the PR as the gate decided it: `result` is verified / unverified /
    refuted, or "not decided" for a check of ours that carries no verdict."""

    head_sha: str
    result: str
    decided_at: datetime | None


@dataclass(frozen=True)
class FirstVerified:
    head_sha: str
    decided_at: datetime | None
    push: int  # the ordinal of that head among the PR's decided heads, from 1


@dataclass(frozen=True)
class PriorHistory:
    """What the gate's earlier checks say, oldest first, before this decision.

    `decided_heads`: how many heads were decided before (may exceed `heads`, which is capped);
    `complete`: every earlier decided head is counted (False: the chain broke somewhere, so
    the counts are lower bounds); `note`: why the history is partial, not read or unreadable.
    """

    status: HistoryStatus
    heads: tuple[HeadVerdict, ...] = ()
    decided_heads: int = 0
    first_verified: FirstVerified | None = None
    note: str | None = None
    source: str | None = None  # which checks count as ours, in words
    complete: bool = False
