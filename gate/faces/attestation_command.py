"""`claim-gate attestation verify`: may this commit be deployed on the gate's word?

What it checks and its exit codes are its `--help` text, `DESCRIPTION` in
gate/faces/attestation_check_arguments.py (one place, so the two cannot drift).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TextIO

from gate.claim.commit import normalise_sha
from gate.claim.errors import InvalidInput, UsageError
from gate.claim.jsondoc import decode_utf8, parse_json, read_capped
from gate.claim.timefmt import TimestampError, format_rfc3339, parse_rfc3339
from gate.claim.wording import duration
from gate.faces.attestation_check_arguments import HEX64
from gate.report.attestation import PASSED, STATEMENT_TYPE, VSA_PREDICATE_TYPE

SUPPORTS = 0
DOES_NOT_SUPPORT = 1
UNUSABLE = 3
#: How far ahead of this machine's clock a decision time may be (clocks drift).
CLOCK_SKEW = timedelta(minutes=5)
MAX_ATTESTATION_BYTES = 16 << 20


@dataclass(frozen=True)
class StatementView:
    """What the checks read from a statement, parsed once at the boundary."""

    commits: tuple[str, ...]
    predicate_type: str
    result: str
    time_verified: datetime
    policy_sha256: str


def _field(mapping: object, key: str, kind: type, source: str, where: str) -> Any:
    value = mapping.get(key) if isinstance(mapping, dict) else None
    if not isinstance(value, kind):
        raise InvalidInput(source, None, f"the statement's {where} is missing or not a"
                           f" {kind.__name__}", "was this file written by `verify --attestation`?")
    return value


def parse_statement(document: object, source: str) -> StatementView:
    """The fields the checks need; InvalidInput when the statement is not an in-toto v1 one."""
    if _field(document, "_type", str, source, "_type") != STATEMENT_TYPE:
        raise InvalidInput(source, None, f"_type is not {STATEMENT_TYPE}")
    subjects = _field(document, "subject", list, source, "subject")
    commits = tuple(
        sha for s in subjects if isinstance(s, dict) and isinstance(s.get("digest"), dict)
        if (sha := normalise_sha(s["digest"].get("gitCommit"))) is not None
    )
    predicate = _field(document, "predicate", dict, source, "predicate")
    text = _field(predicate, "timeVerified", str, source, "predicate.timeVerified")
    try:
        verified_at = parse_rfc3339(text)
    except TimestampError as exc:
        raise InvalidInput(source, None, f"predicate.timeVerified: {exc}") from None
    policy = _field(predicate, "policy", dict, source, "predicate.policy")
    digest = _field(policy, "digest", dict, source, "predicate.policy.digest")
    policy_sha256 = _field(digest, "sha256", str, source, "predicate.policy.digest.sha256")
    if not HEX64.match(policy_sha256.lower()):
        raise InvalidInput(source, None, "predicate.policy.digest.sha256 is not 64 hex digits")
    return StatementView(
        commits=commits,
        predicate_type=_field(document, "predicateType", str, source, "predicateType"),
        result=_field(predicate, "verificationResult", str, source,
                      "predicate.verificationResult"),
        time_verified=verified_at,
        policy_sha256=policy_sha256.lower(),
    )


@dataclass(frozen=True)
class Requirements:
    commit: str
    policy_sha256: str | None = None
    max_age_s: int | None = None


def statement_problems(view: StatementView, wanted: Requirements, now: datetime) -> list[str]:
    """Every reason the statement does not support deploying `wanted.commit` (empty: it does)."""
    problems = []
    if view.predicate_type != VSA_PREDICATE_TYPE:
        problems.append(f"the predicate type is {view.predicate_type!r}, not a verification"
                        f" summary ({VSA_PREDICATE_TYPE})")
    if wanted.commit not in view.commits:
        named = ", ".join(c[:12] for c in view.commits) or "no commit"
        problems.append(f"wrong commit: the statement is about {named}, not {wanted.commit}")
    if view.result != PASSED:
        problems.append(f"the verdict was not verified: verificationResult is {view.result!r}")
    if wanted.policy_sha256 is not None and view.policy_sha256 != wanted.policy_sha256:
        problems.append(f"policy digest mismatch: decided under sha256:{view.policy_sha256},"
                        f" required sha256:{wanted.policy_sha256}")
    age = now - view.time_verified
    if wanted.max_age_s is not None and age > timedelta(seconds=wanted.max_age_s):
        problems.append(f"expired: decided at {format_rfc3339(view.time_verified)},"
                        f" {duration(age.total_seconds())} ago, over --max-age"
                        f" {duration(wanted.max_age_s)}")
    if -age > CLOCK_SKEW:
        problems.append(f"decided in the future: timeVerified"
                        f" {format_rfc3339(view.time_verified)} is after this machine's clock"
                        f" ({format_rfc3339(now)}) by more than"
                        f" {duration(CLOCK_SKEW.total_seconds())}")
    return problems


def _json(data: bytes, source: str, what: str) -> object:
    """Strictly, as every document the gate reads: a duplicate key (`"FAILED"` then
    `"PASSED"`) is refused, not read as the last one."""
    return parse_json(decode_utf8(data, source, what), source, what)


def _open(args: argparse.Namespace) -> tuple[object, list[str]]:
    """The statement inside FILE, and the signature problems (empty: the signature holds)."""
    # cryptography is imported only when an attestation is checked, not at every start
    # (issue 23): `attestation verify`'s options are part of every command's parser.
    from gate.faces.dsse import IN_TOTO_PAYLOAD_TYPE, is_envelope, load_public_key, parse_envelope

    source = str(args.file)
    document = _json(read_capped(args.file, MAX_ATTESTATION_BYTES, "attestation"), source,
                     "attestation")
    if not is_envelope(document):
        if args.allow_unsigned:
            return document, []
        return document, ["unsigned: the file is a bare statement, not a DSSE envelope"
                          " (sign it with `verify --signing-key`, or pass --allow-unsigned"
                          " when its signature is checked elsewhere)"]
    assert isinstance(document, dict)
    envelope = parse_envelope(document, source)
    if args.key is None:
        raise UsageError(f"{source} is a signed envelope: give the signer's public key with"
                         " --key PUB.pem to check it")
    if envelope.payload_type != IN_TOTO_PAYLOAD_TYPE:
        raise InvalidInput(source, None, f"the envelope's payloadType is"
                           f" {envelope.payload_type!r}, not {IN_TOTO_PAYLOAD_TYPE}")
    key = load_public_key(args.key)
    statement = _json(envelope.payload, source, "envelope's payload")
    if envelope.signed_by(key):
        return statement, []
    return statement, [f"bad signature: no signature in the envelope holds with {args.key}"
                       " over its payload (tampered, or signed with another key)"]


def run_attestation_command(
    args: argparse.Namespace, out: TextIO, err: TextIO, clock: Callable[[], datetime]
) -> int:
    """`attestation verify`: 0 when the attestation supports the deploy, else 1 (or 3)."""
    statement, problems = _open(args)
    view = parse_statement(statement, str(args.file))
    wanted = Requirements(args.commit, args.policy_digest, args.max_age)
    problems += statement_problems(view, wanted, clock())
    if problems:
        for problem in problems:
            err.write(f"claim-gate: attestation {args.file} does not support the deploy:"
                      f" {problem}\n")
        return DOES_NOT_SUPPORT
    out.write(f"claim-gate: {args.file} supports deploying {args.commit}: verified under"
              f" policy sha256:{view.policy_sha256}, decided"
              f" {format_rfc3339(view.time_verified)}\n")
    return SUPPORTS
