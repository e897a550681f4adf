"""Events as the runner hands them to the action, from GitHub's own example payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.claim.errors import InvalidInput
from gate.evidence.github.event import UnsupportedEvent, parse_event

HOOKS = Path(__file__).parent / "data" / "webhooks"


def payload(name: str) -> Any:
    return json.loads((HOOKS / f"{name}.json").read_text("utf-8"))


@pytest.mark.parametrize(
    "name",
    ["pull_request.opened.1", "pull_request.synchronize.1", "pull_request.reopened.1",
     "pull_request.ready_for_review.1"],
)
def test_pull_request_events_name_the_pr_and_head(name: str) -> None:
    event = payload(name)
    trigger = parse_event("pull_request", event, name)
    assert trigger.pull is not None
    assert trigger.pull.number == event["pull_request"]["number"]
    assert trigger.head_sha == event["pull_request"]["head"]["sha"]
    assert trigger.pull.author == event["pull_request"]["user"]["login"]
    assert trigger.ignore_reason is None


def test_pull_request_target_reads_the_same_fields() -> None:
    trigger = parse_event("pull_request_target", payload("pull_request.opened.1"), "e")
    assert trigger.pull is not None
    assert trigger.event == "pull_request_target"


def test_a_closed_pull_request_is_nothing_to_decide() -> None:
    trigger = parse_event("pull_request", payload("pull_request.closed.1"), "e")
    assert trigger.ignore_reason == "nothing to decide for pull_request.closed"


def test_workflow_run_completed_gives_the_head_sha() -> None:
    event = payload("workflow_run.completed.1")
    trigger = parse_event("workflow_run", event, "e")
    assert trigger.head_sha == event["workflow_run"]["head_sha"]
    assert trigger.pull_number is None  # example run has no PR: looked up by commit later


def test_workflow_run_requested_waits_for_completion() -> None:
    trigger = parse_event("workflow_run", payload("workflow_run.requested.1"), "e")
    assert trigger.ignore_reason is not None


def test_merge_group_names_the_group_sha_and_queued_pr() -> None:
    event = payload("merge_group.checks_requested.1")
    trigger = parse_event("merge_group", event, "e")
    assert trigger.merge_group_sha == event["merge_group"]["head_sha"]
    assert trigger.pull_number == 104


def test_workflow_dispatch_needs_a_pr_number() -> None:
    base = {"repository": {"full_name": "o/r"}, "inputs": {}}
    with pytest.raises(InvalidInput, match="pull request number"):
        parse_event("workflow_dispatch", base, "e")
    assert parse_event("workflow_dispatch", base, "e", dispatch_pr=7).pull_number == 7
    base["inputs"] = {"pr": "12"}
    assert parse_event("workflow_dispatch", base, "e").pull_number == 12


def test_other_events_are_refused_clearly() -> None:
    with pytest.raises(UnsupportedEvent, match="does not run on 'push' events"):
        parse_event("push", payload("push.none.1"), "e")


def test_a_forged_sha_is_refused() -> None:
    event = payload("pull_request.opened.1")
    event["pull_request"]["head"]["sha"] = "HEAD~1"
    with pytest.raises(InvalidInput, match="is not a full commit id: 40 hexadecimal digits"):
        parse_event("pull_request", event, "e")


@pytest.mark.parametrize("bad", [[], {"repository": {}}, {"repository": {"full_name": "o/r"},
                                                          "action": "opened"}])
def test_malformed_payloads_are_invalid_input(bad: Any) -> None:
    with pytest.raises(InvalidInput):
        parse_event("pull_request", bad, "event.json")


@pytest.mark.parametrize(
    ("example", "event", "where", "value"),
    [
        ("pull_request.opened.1", "pull_request", ("pull_request", "number"), "abc"),
        ("pull_request.opened.1", "pull_request", ("pull_request", "number"), None),
        ("pull_request.opened.1", "pull_request", ("pull_request", "number"), 0),
        ("workflow_run.completed.1", "workflow_run", ("workflow_run", "pull_requests"), 5),
        ("workflow_run.completed.1", "workflow_run", ("workflow_run", "pull_requests"),
         [{"number": "x"}]),
        ("workflow_run.completed.1", "workflow_run", ("workflow_run", "pull_requests"),
         [{"id": 1}]),
        ("workflow_run.completed.1", "workflow_run", ("workflow_run", "pull_requests"), [None]),
        ("push.none.1", "workflow_dispatch", ("inputs",), ["7"]),
    ],
)
def test_malformed_fields_of_real_payloads_are_invalid_input_not_a_crash(
    example: str, event: str, where: tuple[str, ...], value: Any
) -> None:
    """A payload is input: a wrong type anywhere the gate reads is exit 3 with the field named,
    never a traceback (which the runner would report as exit 1, the code for unverified)."""
    bad = payload(example)
    target = bad
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with pytest.raises(InvalidInput):
        parse_event(event, bad, "event.json")
