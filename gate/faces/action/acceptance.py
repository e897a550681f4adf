"""Asking whether a maintainer accepted an unverified claim, and showing it on the check.

The engine's verdict stays as decided; the acceptance is a second value beside it
(`Override`), which the check run and the record show together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from gate.claim.github_facts import PullRequestRef
from gate.claim.model import VerdictState
from gate.claim.policy import Policy
from gate.engine.override import OverrideDecision, judge_override
from gate.engine.results import Verdict
from gate.evidence.github.api import GitHubApi
from gate.evidence.github.reviews import review_commands
from gate.report.check_run import CheckRunReport, Mode
from gate.report.override import accepted_check_run, override_section


def review_override(api: GitHubApi, pull: PullRequestRef, verdict: Verdict, policy: Policy,
                    agents: Sequence[str]) -> OverrideDecision:
    """Reviews are read only for a verdict short of verified (no calls on a green PR)."""
    if verdict.state is VerdictState.VERIFIED:
        return OverrideDecision(None, ())
    return judge_override(
        verdict.state, review_commands(api, pull.number, pull.head_sha), head_sha=pull.head_sha,
        author=pull.author, agents=agents, allow_refuted=policy.claims.override_refuted)


def with_override(
    decision: OverrideDecision, report: CheckRunReport, record: dict[str, Any], summary: str,
    mode: Mode,
) -> tuple[CheckRunReport, str]:
    """The check and summary with the acceptance (and the refused ones) beside the verdict;
    the record gains `x-override` / `x-override-refused`."""
    if decision.refused:
        record["x-override-refused"] = list(decision.refused)
    section = override_section(decision.override, decision.refused)
    if decision.override is None:
        if not section:
            return report, summary
        return replace(report, summary=report.summary + "\n" + section), summary + "\n" + section
    record["x-override"] = decision.override.as_json()
    return accepted_check_run(report, decision.override, record, mode), section + summary
