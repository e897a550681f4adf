"""The verdict as an in-toto Statement v1 with a SLSA verification summary (VSA v1) predicate.

A deploy job, a release pipeline or an auditor asks "was this exact commit's completion claim
verified, under which policy, by whom?"; the statement answers it in the shape the supply-chain
tools already read. It is a file output beside the `--format` renderers, and as pure as they are:
the decided claims in, a JSON object out. Signing is the face's (a DSSE envelope, or GitHub's
artifact attestations); nothing here reads a key or the clock.

Subjects: the head commit (`gitCommit`) and every claim file (sha256 of its bytes as read).
`verificationResult` is `PASSED` only when every claim was decided and each is `verified`;
anything else (unverified, refuted, a claim that could not be read) is `FAILED`.
`verifiedLevels` is a list, as the SLSA VSA v1 page and `slsa-verifier verify-vsa` read it (the
framework's proto types it as one string): the gate verifies a completion claim, not a SLSA track,
so its levels are custom ones (never starting with `SLSA_`, which names a track):
`CLAIM_GATE_VERIFIED` when the result is PASSED, plus any level the decision earned beyond it
(`CLAIM_GATE_FAIL_TO_PASS` when the policy required fail-to-pass tests and they were found); a
FAILED statement carries `["FAILED"]`, the spec's word for a failed verification.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gate import GATE_ID, __version__
from gate.claim.model import JSON, VerdictState
from gate.claim.timefmt import format_rfc3339
from gate.engine.fail_to_pass import FAIL_TO_PASS_LEVEL as FAIL_TO_PASS_LEVEL

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_PREDICATE_TYPE = "https://slsa.dev/verification_summary/v1"
PASSED = "PASSED"
FAILED = "FAILED"
#: Where the completed claim objects travel inside the predicate (VSA consumers ignore `x-`).
COMPLETED_CLAIMS_KEY = "x-claim-gate-completed-claims"
#: The custom verified levels (a deploy gate asks for one with `--verified-level`).
VERIFIED_LEVEL = "CLAIM_GATE_VERIFIED"
#: What `verifiedLevels` says of a statement that did not pass.
FAILED_LEVELS = ("FAILED",)


@dataclass(frozen=True)
class AttestedClaim:
    """One claim file as the statement names it: its bytes' digest and what was decided."""

    label: str  # how the claim is named (its file, or "PR body")
    sha256: str  # of the file's bytes as read (LoadedClaim.document.sha256)
    state: VerdictState | None  # None: the claim could not be read, so nothing was decided
    record: Mapping[str, JSON] | None  # the completed claim object (report.record)


@dataclass(frozen=True)
class AttestationInput:
    """Everything one statement says; `decided_at` is the decision time (`--now` if given)."""

    head_sha: str
    resource_uri: str
    decided_at: datetime
    policy_uri: str
    policy_sha256: str
    claims: tuple[AttestedClaim, ...]
    inputs: tuple[tuple[str, str], ...] = ()  # (what, sha256) of every evidence file read
    #: False when the run had more to decide than these claims and did not (a PR of the
    #: same head whose claim could not be decided): then nothing here can pass.
    complete: bool = True
    #: Levels earned beyond `CLAIM_GATE_VERIFIED` (only ever stated on a PASSED statement).
    extra_levels: tuple[str, ...] = ()


def result_of(claims: Sequence[AttestedClaim], complete: bool = True) -> str:
    """Fail closed: no claim, an unread claim, any verdict but verified, or a run that left
    something undecided is FAILED."""
    passed = complete and bool(claims) and all(c.state is VerdictState.VERIFIED for c in claims)
    return PASSED if passed else FAILED


def verified_levels(result: str, extra: Sequence[str] = ()) -> list[str]:
    """What the statement says was verified: custom levels on PASSED, `FAILED` otherwise."""
    if result != PASSED:
        return list(FAILED_LEVELS)
    return [VERIFIED_LEVEL, *(level for level in extra if level != VERIFIED_LEVEL)]


def verification_statement(given: AttestationInput) -> dict[str, JSON]:
    """The in-toto Statement v1 for the decided claims."""
    result = result_of(given.claims, given.complete)
    subjects: list[JSON] = [{"name": f"git-commit:{given.head_sha}",
                             "digest": {"gitCommit": given.head_sha}}]
    subjects += [{"name": c.label, "digest": {"sha256": c.sha256}} for c in given.claims]
    predicate: dict[str, Any] = {
        "verifier": {"id": GATE_ID, "version": {"claim-gate": __version__}},
        "timeVerified": format_rfc3339(given.decided_at),
        "resourceUri": given.resource_uri,
        "policy": {"uri": given.policy_uri, "digest": {"sha256": given.policy_sha256}},
        "inputAttestations": [
            {"uri": what, "digest": {"sha256": digest}} for what, digest in given.inputs
        ],
        "verificationResult": result,
        "verifiedLevels": verified_levels(result, given.extra_levels),
        COMPLETED_CLAIMS_KEY: [
            {"claim": c.label, "state": str(c.state) if c.state else "unreadable",
             "completed": dict(c.record) if c.record is not None else None}
            for c in given.claims
        ],
    }
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": VSA_PREDICATE_TYPE,
        "predicate": predicate,
    }


def policy_uri(policy_id: str) -> str:
    """The policy's name as a URI: the id the operator gave it (its digest pins the content)."""
    return f"urn:claim-gate:policy:{policy_id}"
