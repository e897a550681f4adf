"""`verify --attestation FILE [--signing-key KEY.pem]`: the verdict as an in-toto statement.

Written for every verdict (verified, unverified or refuted; the result says which), so a
deploy gate reads a FAILED statement rather than guessing from a missing file. The head
commit is a subject, so --attestation without --head-sha is refused (exit 3) before anything
is decided: a statement that names no commit could be presented for any commit. With
--signing-key the file is a DSSE envelope signed with that key; without, a bare statement.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import TYPE_CHECKING

from gate.claim.errors import CouldNotDecide, UsageError
from gate.pipeline import NoClaimResult, VerifyOptions, VerifyResult, choose_policy

if TYPE_CHECKING:
    from gate.faces.dsse import PrivateKey


def check_attestation_arguments(args: argparse.Namespace) -> PrivateKey | None:
    """Refuse, before deciding, a command line that cannot write a usable attestation; the
    signing key, read once here (a bad key is exit 3 before the decision, not after)."""
    if args.signing_key is not None and args.attestation is None:
        raise UsageError("verify: --signing-key signs the --attestation file; give --attestation")
    if args.attestation is not None and args.head_sha is None:
        raise UsageError("verify: --attestation needs --head-sha: the statement's subject is the"
                         " commit under review, and one naming no commit proves nothing")
    if args.signing_key is None:
        return None
    # cryptography is imported only to sign: not for every verify (issue 23).
    from gate.faces.dsse import load_private_key

    return load_private_key(args.signing_key)


def attestation_text(
    args: argparse.Namespace, result: VerifyResult | NoClaimResult, options: VerifyOptions,
    now: datetime, key: PrivateKey | None = None,
) -> str:
    """The statement (or envelope) for this run. A required claim that is missing decides
    nothing: the statement names the commit alone, under the policy that required the claim,
    and says FAILED (a deploy gate must not read "no file" as anything but a refusal)."""
    # Imported here: only --attestation writes a statement, not every verify (issue 23).
    from gate.engine.fail_to_pass import earned_levels
    from gate.report.attestation import (
        AttestationInput,
        AttestedClaim,
        policy_uri,
        verification_statement,
    )
    from gate.report.record import completed_record

    if isinstance(result, VerifyResult):
        document, verdict = result.loaded.document, result.verdict
        decided_at, policy = verdict.decided_at, verdict.policy
        claims: tuple[AttestedClaim, ...] = (AttestedClaim(
            document.source, document.sha256, verdict.state,
            completed_record(document.raw, verdict)),)
        inputs = result.inputs
    else:
        decided_at = options.now or now
        policy = choose_policy(options.policy, options.trusted_verifiers)
        claims, inputs = (), ()
    given = AttestationInput(
        head_sha=args.head_sha,
        resource_uri=args.resource_uri or f"urn:claim-gate:commit:{args.head_sha}",
        decided_at=decided_at,
        policy_uri=policy_uri(policy.id),
        policy_sha256=policy.digest,
        claims=claims,
        inputs=inputs,
        extra_levels=earned_levels([result.verdict] if isinstance(result, VerifyResult) else []),
    )
    statement = json.dumps(verification_statement(given), indent=2, ensure_ascii=False) + "\n"
    if key is None:
        return statement
    from gate.faces.dsse import sign_envelope  # only to sign (see check_attestation_arguments)

    envelope = sign_envelope(statement.encode("utf-8"), key)
    return json.dumps(envelope, indent=2) + "\n"


def write_attestation(
    args: argparse.Namespace, result: VerifyResult | NoClaimResult, options: VerifyOptions,
    now: datetime, key: PrivateKey | None,
) -> None:
    if args.attestation is None:
        return
    text = attestation_text(args, result, options, now, key)
    try:
        args.attestation.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CouldNotDecide(f"{args.attestation}: cannot write the attestation:"
                             f" {exc.strerror}") from None
