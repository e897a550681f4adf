"""Read the claim's history on its PR from the gate's own earlier check runs.

Only a check run the gate provably posted is history: its configured name, posted by the
gate's own GitHub App (the `app-id` the Action signs in as), decided for this PR and base
(`external_id`), on the head it names. With `GITHUB_TOKEN` the gate posts as "GitHub
Actions", the app every workflow posts as, including one a PR adds: such a check cannot be
told from a fake, so nothing is read and the summary says why.

The newest earlier check of ours carries its record in `output.text`, and that record's
`x-verification.history` the heads before it (written by the gate: run.py replaces the whole
`x-verification` the claim could have held), so one check run gives the whole chain. Calls:
at most 3 (MAX_LOOKUPS check-run lists, the head branch's activity only when the event's
`before` is unknown or has no check of ours). A failed or malformed answer is "could not be
read", never "no history"; and whatever is read never reaches the engine.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from gate.claim.commit import normalise_sha
from gate.claim.errors import CouldNotDecide
from gate.claim.github_facts import CheckRunInfo, PullRequestRef
from gate.claim.history_facts import (
    MAX_KEPT_HEADS,
    FirstVerified,
    HeadVerdict,
    HistoryStatus,
    PriorHistory,
)
from gate.claim.timefmt import TimestampError, parse_rfc3339
from gate.evidence.github.api import PER_PAGE, GitHubApi

#: Check-run lists asked for; with the activity page, the history costs at most 3 calls.
MAX_LOOKUPS = 2
_ZERO = "0" * 40
_RESULTS = ("verified", "unverified", "refuted")


class MalformedHistoryError(ValueError):
    """A check of ours whose record's history is not shaped as the gate writes it."""


def read_history(
    api: GitHubApi, pull: PullRequestRef, *, check_name: str, app_id: int | None,
    decided_for: str, before: str | None,
) -> PriorHistory:
    """The gate's verdicts on this PR's earlier heads, or why there are none to show."""
    if app_id is None:
        return PriorHistory(HistoryStatus.NOT_READ, note=(
            "the gate posts with GITHUB_TOKEN as GitHub Actions, the app every workflow posts"
            " as (a PR's own workflow too), so an earlier check of this name cannot be told"
            " from a fake; give the action its own GitHub App (the app-id input) to see the"
            " history"))
    source = (f"check runs named {check_name!r} posted by GitHub App {app_id} for"
              f" PR #{pull.number}")
    skipped: list[str] = []
    running = False  # a check of ours on a skipped head is not finished: the chain has a gap
    try:
        heads = _earlier_heads(api, pull, before)
        for sha in itertools.islice(heads, MAX_LOOKUPS):
            checks = api.check_runs(sha, check_name, latest=False)
            ours = own_check(checks, sha, check_name, app_id, decided_for)
            if ours is None:
                unfinished = own_check(checks, sha, check_name, app_id, decided_for,
                                       finished=False)
                running = running or unfinished is not None
                skipped.append(sha[:12] + (" (still being decided)" if unfinished else ""))
                continue
            prior = from_check(ours, pull.number)
            note = "; ".join(n for n in (_skipped_note(skipped), prior.note) if n) or None
            return replace(prior, note=note, source=source,
                           complete=prior.complete and not running)
        exhausted = next(heads, None) is None  # no earlier head left unasked
    except (CouldNotDecide, MalformedHistoryError) as exc:
        return PriorHistory(HistoryStatus.UNREADABLE, note=str(exc), source=source)
    note = (f"no earlier check of ours on {', '.join(skipped)}" if skipped
            else "no earlier head of this PR is known")
    if not exhausted:
        note += f" (only the {MAX_LOOKUPS} newest earlier heads are asked about)"
    return PriorHistory(HistoryStatus.READ, note=note, source=source,
                        complete=exhausted and not running)


def _skipped_note(skipped: list[str]) -> str | None:
    return f"no check of ours on {', '.join(skipped)}" if skipped else None


def _earlier_heads(api: GitHubApi, pull: PullRequestRef, before: str | None) -> Iterator[str]:
    """The event's `before` first, then the head branch's earlier pushes (newest first, one
    page of activity, read only if asked for)."""
    seen = {pull.head_sha, _ZERO}
    if before is not None and before not in seen:
        seen.add(before)
        yield before
    if pull.head_repo == "(deleted)":
        return
    repository = pull.head_repo if pull.from_fork else pull.base_repo
    past_head = False  # pushes newer than the head under decision are not earlier heads
    for entry in itertools.islice(api.activity(repository, pull.head_ref), PER_PAGE):
        if entry.after == pull.head_sha:
            past_head, sha = True, entry.before
        elif past_head:
            sha = entry.after
        else:
            continue
        if normalise_sha(sha) == sha and sha not in seen:
            seen.add(sha)
            yield sha


def own_check(checks: list[CheckRunInfo], sha: str, check_name: str, app_id: int,
              decided_for: str, finished: bool = True) -> CheckRunInfo | None:
    """The newest completed check on `sha` that is provably the gate's for this PR (with
    `finished` False: the newest one not completed yet)."""
    ours = [c for c in checks if c.app_id == app_id and c.name == check_name
            and c.external_id == decided_for and c.head_sha == sha
            and (c.status == "completed") is finished]
    return max(ours, key=lambda c: (c.completed_at is not None, c.completed_at, c.id),
               default=None)


def from_check(check: CheckRunInfo, number: int) -> PriorHistory:
    """The history as of `check` (its own head last). A check with no record (the gate
    could not decide there) ends the chain: earlier heads are not known from it."""
    record = _record(check.text)
    verification = record.get("x-verification") if record is not None else None
    if not isinstance(verification, Mapping):  # several claim files' check, or a failure
        head = HeadVerdict(check.head_sha, _titled(check.title), check.completed_at)
        first = FirstVerified(head.head_sha, head.decided_at, 1) \
            if head.result == "verified" else None
        return PriorHistory(HistoryStatus.READ, (head,), 1, first,
                            f"the check on {check.head_sha[:12]} holds no record, so heads"
                            " before it are not known", complete=False)
    resource = verification.get("resource")
    if (not isinstance(resource, Mapping) or resource.get("head_sha") != check.head_sha
            or resource.get("pull_request") != number):
        raise MalformedHistoryError(f"check run {check.id}'s record names another head or PR")
    head = HeadVerdict(check.head_sha, _result(verification.get("result"), check.id),
                       _time(verification.get("decided_at"), check.id))
    earlier = verification.get("history")
    if earlier is None:  # written before the gate kept history: this head only
        first = FirstVerified(head.head_sha, head.decided_at, 1) \
            if head.result == "verified" else None
        return PriorHistory(HistoryStatus.READ, (head,), 1, first,
                            f"the check on {head.head_sha[:12]} predates the history, so heads"
                            " before it are not known", complete=False)
    return _chained(earlier, head, check.id)


def _titled(title: str | None) -> str:
    """The verdict a check of ours leads its title with ("refuted: ...", "verified (observe
    mode: not blocking): ..."); "not decided" for anything else (could not decide)."""
    word = (title or "").split(":", 1)[0].split(" (", 1)[0]
    return word if word in _RESULTS else "not decided"


def _record(text: str | None) -> Mapping[str, Any] | None:
    try:
        record = json.loads(text or "")
    except ValueError:
        return None  # "too large" or a failure's text: not a record
    return record if isinstance(record, Mapping) else None


def _chained(earlier: Any, head: HeadVerdict, check_id: int) -> PriorHistory:
    """`earlier` is the record's history object, whose last head is `head` itself."""
    if not isinstance(earlier, Mapping) or not isinstance(earlier.get("heads"), list):
        raise MalformedHistoryError(f"check run {check_id}'s record has a malformed history")
    heads = tuple(_head(raw, check_id) for raw in earlier["heads"])
    count = earlier.get("decided_heads")
    if (not heads or heads[-1] != head or not isinstance(count, int) or isinstance(count, bool)
            or count < len(heads)):
        raise MalformedHistoryError(f"check run {check_id}'s record has a malformed history")
    first_raw = earlier.get("first_verified")
    first = None
    if first_raw is not None:
        if not isinstance(first_raw, Mapping) or not isinstance(first_raw.get("push"), int):
            raise MalformedHistoryError(f"check run {check_id}'s record has a malformed history")
        found = _head({**first_raw, "result": "verified"}, check_id)
        first = FirstVerified(found.head_sha, found.decided_at, int(first_raw["push"]))
    # The earlier run's note was about its own reading; `complete` carries what matters.
    return PriorHistory(HistoryStatus.READ, heads[-MAX_KEPT_HEADS:], count, first,
                        complete=earlier.get("complete") is True)


def _head(raw: Any, check_id: int) -> HeadVerdict:
    if not isinstance(raw, Mapping) or normalise_sha(raw.get("head_sha")) != raw.get("head_sha"):
        raise MalformedHistoryError(f"check run {check_id}'s record has a malformed history head")
    result = raw.get("result")
    if result not in (*_RESULTS, "not decided"):
        raise MalformedHistoryError(f"check run {check_id}'s record has a malformed history head")
    return HeadVerdict(str(raw["head_sha"]), str(result), _time(raw.get("decided_at"), check_id))


def _result(value: Any, check_id: int) -> str:
    if value not in _RESULTS:
        raise MalformedHistoryError(f"check run {check_id}'s record has no verdict ({value!r})")
    return str(value)


def _time(value: Any, check_id: int) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_rfc3339(str(value))
    except TimestampError:
        raise MalformedHistoryError(
            f"check run {check_id}'s record has an unreadable time") from None
