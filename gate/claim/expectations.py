"""What the gate will ask of a claim under a policy, in words, before any evidence exists.

`claim-gate claim check` prints this so an agent (or a person) sees, per mutation, which
check type must cover it and from when, without running the gate. It restates the engine's
rules (gate/verdict.py) from the claim's side; it decides nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from gate.claim.model import DEPLOY_KIND, STATE_WRITE_KIND, CheckType, Claim, Mutation
from gate.claim.model import INTENDED_EXTENSION as INTENDED_FIELD
from gate.claim.policy import Policy
from gate.claim.probe_settings import ProbeSettings
from gate.claim.timefmt import format_rfc3339


@dataclass(frozen=True)
class Need:
    """One line of what the gate requires; `mutation` is None for a policy-wide one."""

    mutation: str | None
    text: str


def _age(policy: Policy, check: CheckType) -> str:
    return f"at most {policy.max_age_for(check)}s old when the gate decides"


def _target(mutation: Mutation) -> str:
    if mutation.target is None:
        return ""
    text = json.dumps(mutation.target, ensure_ascii=False)
    return " " + (mutation.target if text[1:-1] == mutation.target else text)


def _for_mutation(mutation: Mutation, policy: Policy, probes: ProbeSettings | None) -> str:
    after = format_rfc3339(mutation.at)
    label = f"{mutation.id} {mutation.kind}{_target(mutation)}"
    if mutation.kind in policy.code_change_kinds:
        return (
            f"{label}: needs a test_run written by CI after {after}"
            f" (independent, {_age(policy, CheckType.TEST_RUN)}, and run on the head commit"
            " when the gate is given one);"
            " a test_run without `covers` covers every code change"
        )
    if mutation.kind == DEPLOY_KIND:
        text = (
            f"{label}: needs an endpoint_health check of the deployed thing after {after}"
            f" ({_age(policy, CheckType.ENDPOINT_HEALTH)})"
        )
        if probes and any(p.environment == mutation.target for p in probes.endpoint_health):
            text += "; the policy probes this environment itself (`verify --probe`)"
        return text
    if mutation.kind == STATE_WRITE_KIND:
        text = (
            f"{label}: needs a state_readback from the system of record after {after}"
            f" ({_age(policy, CheckType.STATE_READBACK)})"
        )
        if probes and mutation.target is not None and any(
            p.match(mutation.target) is not None for p in probes.state_readback
        ):
            text += "; the policy reads it back itself (`verify --probe`)"
            if not isinstance(mutation.extensions.get(INTENDED_FIELD), dict):
                text += (
                    f", but the mutation states no {INTENDED_FIELD}, so the readback has"
                    " nothing to compare (add it with `claim add ... --expected JSON`)"
                )
        return text
    return (
        f"{label}: needs independent evidence whose `covers` names {mutation.id}, observed"
        f" after {after} (the policy's code-change kinds are"
        f" {', '.join(policy.code_change_kinds)}; this kind is not one of them)"
    )


def needs(
    claim: Claim, policy: Policy, required_tests: Sequence[str] = (),
    probes: ProbeSettings | None = None, now: datetime | None = None,
) -> list[Need]:
    """Per mutation, then per required check type: what must be observed, and when. With
    `now`, a mutation dated in the future is pointed out: nothing observed before it counts."""
    effective = policy.tightened_by(claim.policy)
    found: list[Need] = []
    for mutation in claim.mutations:
        text = _for_mutation(mutation, effective, probes)
        if now is not None and mutation.at > now:
            text += (
                f"; note: it is dated after now ({format_rfc3339(now)}), so evidence observed"
                " before that time will not count (is a clock wrong?)"
            )
        found.append(Need(mutation.id, text))
    for check in effective.requires:
        found.append(Need(None, (
            f"the policy requires a {check}: independent, observed after every mutation it"
            f" covers, {_age(effective, check)}"
        )))
    if required_tests:
        found.append(Need(None, (
            "named tests must pass in the test_run: " + ", ".join(required_tests)
        )))
    if not found:
        found.append(Need(None, (
            "nothing to observe: a claim with no mutation under a policy that requires no"
            " check type is unverified, never verified; add the mutations you made"
        )))
    return found
