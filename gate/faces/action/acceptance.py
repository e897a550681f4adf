"""Showing a maintainer's acceptance on the check (the engine's rule decided it, in the
pipeline: `gate/engine/override.py`).

The engine's verdict stays as decided; the acceptance is a second value beside it
(`Override`), which the check run and the record show together, with the digest of the claim
decided and the command that would accept it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gate.claim.model import VerdictState
from gate.engine.override import OverrideDecision
from gate.report.check_run import CheckRunReport, Mode
from gate.report.override import accepted_check_run, override_section


def with_override(
    decision: OverrideDecision, report: CheckRunReport, record: dict[str, Any], summary: str,
    mode: Mode, claim_sha256: str, state: VerdictState,
) -> tuple[CheckRunReport, str]:
    """The check and summary with the acceptance (and the refused ones) beside the verdict;
    the record gains `x-override` / `x-override-refused`."""
    if decision.refused:
        record["x-override-refused"] = list(decision.refused)
    if decision.override is None:
        section = override_section(None, decision.refused, claim_sha256,
                                   acceptable=state is not VerdictState.VERIFIED)
        if not section:
            return report, summary
        return replace(report, summary=report.summary + "\n" + section), summary + "\n" + section
    record["x-override"] = decision.override.as_json()
    section = override_section(decision.override, decision.refused, claim_sha256)
    return accepted_check_run(report, decision.override, record, mode), section + summary
