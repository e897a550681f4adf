"""The engine's rules about the claim itself (pure): it matches the diff, and a maintainer's
acceptance counts only when every condition holds. Through the stand-in:
tests/test_claims_in_practice.py."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from gate.claim.agents import AgentRule
from gate.claim.changed_paths import ChangedPaths
from gate.claim.claim_rules import ClaimRules
from gate.claim.errors import InvalidInput
from gate.claim.facts import Facts
from gate.claim.github_facts import ChangedFile
from gate.claim.model import CheckType, VerdictState
from gate.claim.policy import default_policy
from gate.claim.policy_parse import parse_policy_text
from gate.claim.review_facts import Acceptances, ReviewCommand
from gate.engine.decide import decide
from gate.engine.diff_coverage import judge_diff
from gate.engine.override import judge_override
from gate.evidence.github.event import parse_event
from gate.evidence.github.reviews import command_reason, parse_command
from tests.builders import at, claim, evidence, item, mutation
from tests.test_github_event import payload

POLICY = default_policy()
HEAD = "a" * 40


def changed(*names: str, expected: int | None = None, claim_files: tuple[str, ...] = ()
            ) -> ChangedPaths:
    return ChangedPaths.of([ChangedFile(n, "modified") for n in names], expected, "the diff",
                           claim_files)


def unmet_of(targets: list[str], diff: ChangedPaths, policy: object = POLICY
             ) -> list[tuple[str, str | None]]:
    made = claim([mutation(f"m{i}", "file_edit", 0, t) for i, t in enumerate(targets)])
    found = judge_diff(made, diff, policy)  # type: ignore[arg-type]
    return [(j.unmet.code, j.unmet.path or j.unmet.mutation) for j in found if j.unmet]


def test_every_changed_file_needs_a_claimed_code_change() -> None:
    assert unmet_of(["app/a.py"], changed("app/a.py", "app/b.py")) == [
        ("unclaimed_change", "app/b.py")]


def test_globs_have_fnmatch_semantics_star_crosses_slashes() -> None:
    assert unmet_of(["app/*"], changed("app/a.py", "app/sub/b.py")) == []
    assert unmet_of(["app/?.py"], changed("app/ab.py")) == [
        ("unclaimed_change", "app/ab.py"), ("not_in_diff", "m0")]
    assert unmet_of(["App/a.py"], changed("app/a.py")) == [
        ("unclaimed_change", "app/a.py"), ("not_in_diff", "m0")]


def test_a_target_the_diff_does_not_change_is_not_in_diff() -> None:
    assert unmet_of(["app/a.py", "app/gone.py"], changed("app/a.py")) == [
        ("not_in_diff", "m1")]


def test_other_kinds_neither_cover_nor_need_files() -> None:
    made = claim([mutation("m1", "state_write", 0, "accounts/1")])
    found = judge_diff(made, changed("app/a.py"), POLICY)
    assert [j.unmet.code for j in found if j.unmet] == ["unclaimed_change"]


def test_the_claim_file_and_unclaimed_ok_are_exempt() -> None:
    policy = replace(POLICY, claims=ClaimRules(unclaimed_ok=("docs/*",)))
    diff = changed("app/a.py", ".claim.json", "docs/x/y.md", claim_files=(".claim.json",))
    assert unmet_of(["app/a.py"], diff, policy) == []


def test_a_rename_needs_both_paths() -> None:
    diff = ChangedPaths.of([ChangedFile("new.py", "renamed", "old.py")], 1, "the diff")
    assert unmet_of(["new.py"], diff) == [("unclaimed_change", "old.py")]
    assert unmet_of(["new.py", "old.py"], diff) == []


@pytest.mark.parametrize(("listed", "expected", "complete"),
                         [(3000, 3000, True), (3000, 3001, False), (2, None, True)])
def test_the_list_is_complete_unless_shorter_than_the_count(
    listed: int, expected: int | None, complete: bool
) -> None:
    diff = changed(*(f"f{i}" for i in range(listed)), expected=expected)
    assert diff.complete is complete
    codes = [code for code, _ in unmet_of(["*"], diff)]
    assert codes == ([] if complete else ["incomplete_diff"])


def test_decide_applies_the_diff_rule_only_when_the_diff_was_observed() -> None:
    made = claim([mutation("m1", "file_edit", 0, "app/a.py")])
    run = item(evidence(7, covers=(), check_type=CheckType.TEST_RUN))
    now = at(10)
    assert decide(made, Facts((run,)), POLICY, now).state is VerdictState.VERIFIED
    with_diff = Facts((run,), changed=changed("app/a.py", "app/b.py"))
    verdict = decide(made, with_diff, POLICY, now)
    assert verdict.state is VerdictState.UNVERIFIED
    assert [u.code for u in verdict.unmet] == ["unclaimed_change"]


def test_the_policy_sections_are_typed() -> None:
    policy = parse_policy_text("id: p\nunclaimed_ok: ['*.md']\noverride: {refuted: true}\n", "p")
    assert policy.claims == ClaimRules(("*.md",), True)
    for bad in ("unclaimed_ok: docs", "override: {refuted: yes-please}", "override: {x: 1}"):
        with pytest.raises(InvalidInput):
            parse_policy_text(f"id: p\n{bad}\n", "p")


# -- overrides ------------------------------------------------------------------------------

WHEN = datetime(2026, 3, 2, 10, tzinfo=UTC)


CLAIM = "c0ffee" * 10 + "abcd"
AGENTS = AgentRule.parse(("devin-*", "copilot-swe-agent[bot]", "id:4242", "app:my-agent"),
                         ("claude",), ())


def command(**changes: object) -> ReviewCommand:
    base = ReviewCommand(7, "mona", "APPROVED", HEAD, WHEN, "checked by hand", "write",
                         account_id=11, claim_sha256=CLAIM[:16])
    return replace(base, **changes)  # type: ignore[arg-type]


def accepted(state: VerdictState, *commands: ReviewCommand, refuted_ok: bool = False,
             claim_sha256: str = CLAIM) -> bool:
    seen = Acceptances(commands, author="agent[bot]", author_id=99, agents=AGENTS)
    decision = judge_override(state, seen, head_sha=HEAD, claim_sha256=claim_sha256,
                              allow_refuted=refuted_ok)
    assert state is VerdictState.VERIFIED or (decision.override is None) == bool(decision.refused)
    return decision.override is not None


@pytest.mark.parametrize("level", ["admin", "maintain", "write"])
def test_write_maintain_or_admin_may_accept(level: str) -> None:
    assert accepted(VerdictState.UNVERIFIED, command(permission=level))


@pytest.mark.parametrize("named", [CLAIM[:16], CLAIM, CLAIM[:40]])
def test_an_acceptance_names_the_claim_by_a_digest_prefix(named: str) -> None:
    assert accepted(VerdictState.UNVERIFIED, command(claim_sha256=named))


@pytest.mark.parametrize("changes", [
    {"permission": "triage"}, {"permission": "read"}, {"permission": None},
    {"login": "agent[bot]"}, {"login": "renamed", "account_id": 99},
    {"login": "devin-ai"}, {"login": "copilot-swe-agent[bot]"},
    # the same agent rule that gates PRs: an id, an app's bot, a preset's login
    {"login": "someone-else", "account_id": 4242}, {"login": "my-agent[bot]"},
    {"login": "claude[bot]"},
    {"state": "COMMENTED"}, {"state": "CHANGES_REQUESTED"}, {"commit_id": "b" * 40},
    {"reason": " "}, {"latest": False},
    # bound to the claim decided: none named, too short a prefix, another claim's digest
    {"claim_sha256": None}, {"claim_sha256": CLAIM[:12]}, {"claim_sha256": "f" * 16},
])
def test_acceptances_that_do_not_count(changes: dict[str, object]) -> None:
    assert not accepted(VerdictState.UNVERIFIED, command(**changes))


def test_an_edited_claim_voids_the_acceptance_of_the_old_one() -> None:
    """The agent edits a PR-body claim (no push): the digest decided is another one."""
    assert accepted(VerdictState.UNVERIFIED, command(), claim_sha256=CLAIM)
    assert not accepted(VerdictState.UNVERIFIED, command(), claim_sha256="d" * 64)


def test_refuted_needs_the_policy_and_verified_needs_nothing() -> None:
    assert not accepted(VerdictState.REFUTED, command())
    assert accepted(VerdictState.REFUTED, command(), refuted_ok=True)
    assert not accepted(VerdictState.VERIFIED, command())


@pytest.mark.parametrize(("body", "reason"), [
    ("/claim-gate accept flaky CI, checked locally", "flaky CI, checked locally"),
    ("LGTM\n  /claim-gate accept  reason\nmore", "reason"),
    ("/claim-gate accept", ""),
    ("/claim-gate acceptable", None),
    ("please /claim-gate accept x", None),
    ("no command", None),
])
def test_the_command_is_a_line_of_its_own(body: str, reason: str | None) -> None:
    assert command_reason(body) == reason


@pytest.mark.parametrize(("body", "parsed"), [
    ("/claim-gate accept sha256:ABCDEF0123456789 flaky CI", ("abcdef0123456789", "flaky CI")),
    ("/claim-gate accept sha256:abc", ("abc", "")),
    ("/claim-gate accept flaky sha256:abcdef0123456789", (None, "flaky sha256:abcdef0123456789")),
    ("/claim-gate accept sha256:xyz reason", (None, "sha256:xyz reason")),
])
def test_the_command_names_the_claim_it_accepts(
    body: str, parsed: tuple[str | None, str]
) -> None:
    assert parse_command(body) == parsed


def test_a_review_event_names_the_pr_and_its_head() -> None:
    event = payload("pull_request_review.submitted.1")
    trigger = parse_event("pull_request_review", event, "e")
    assert trigger.pull is not None
    assert trigger.head_sha == event["pull_request"]["head"]["sha"]
    assert trigger.pull.changed_files is None  # the review payload's PR is the short form
    assert parse_event("pull_request_review", {**event, "action": "deleted"},
                       "e").ignore_reason is not None


# -- bound targets (issue 20 item 8) ----------------------------------------------------------


@pytest.mark.parametrize(("target", "state", "codes"), [
    ("production", VerdictState.VERIFIED, []),  # control
    (None, VerdictState.UNVERIFIED, ["unnamed_target"]),
    ("  ", VerdictState.UNVERIFIED, ["unnamed_target"]),
])
def test_a_deploy_must_name_its_environment_whatever_covers_it(
    target: str | None, state: VerdictState, codes: list[str]
) -> None:
    """Even an operator's health check naming the mutation cannot bind an unnamed deploy."""
    made = claim([mutation("d1", kind="deploy", target=target)])
    health = item(evidence(7, covers=("d1",), check_type=CheckType.ENDPOINT_HEALTH))
    verdict = decide(made, Facts((health,)), POLICY, at(10))
    assert verdict.state is state
    assert [u.code for u in verdict.unmet] == codes
    if codes:
        assert "name the environment in the claim" in verdict.unmet[0].message
