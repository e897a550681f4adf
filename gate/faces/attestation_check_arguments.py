"""`claim-gate attestation verify`'s options, apart from the check itself
(gate/faces/attestation_command.py), so that building the parser imports no checking code."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from gate.faces.arguments import commit_sha, positive_int

#: A sha256 in hexadecimal (the policy digest a deploy requires).
HEX64 = re.compile(r"^[0-9a-f]{64}$")
#: The command's description (`attestation verify --help`).
DESCRIPTION = """\
A deploy job holds a file the gate wrote (`verify --attestation`): a DSSE envelope signed with
the operator's key, or a bare in-toto statement. It passes (exit 0) only when every check holds:
the signature with the key given (a bare statement only with --allow-unsigned), a subject that
is exactly this commit, a VSA whose result is PASSED, the policy digest when one is required,
and a decision time neither older than --max-age nor in the future (beyond a small skew).
Every failing check is named on stderr, not just the first. Exit codes: 0 supports the deploy;
1 does not (unsigned, bad signature, other commit, FAILED, wrong policy, expired); 3 unusable
input (not JSON, a malformed envelope or statement, a bad key file, an envelope and no --key).
2 ("refuted") is not used: an attestation is never evidence against a claim.
"""


def _policy_digest(text: str) -> str:
    digest = text.strip().lower().removeprefix("sha256:")
    if not HEX64.match(digest):
        raise argparse.ArgumentTypeError(f"{text!r} is not sha256:HEX (64 hexadecimal digits)")
    return digest


def add_attestation_arguments(subparsers: Any) -> None:
    """Add `attestation verify` to the CLI's subparsers (`add_subparsers()` result)."""
    attestation = subparsers.add_parser(
        "attestation", help="check a verdict attestation before a deploy",
        description="Check an in-toto attestation written by `verify --attestation`.",
    )
    commands = attestation.add_subparsers(
        dest="attestation_command", metavar="SUBCOMMAND", required=True,
        parser_class=type(attestation),
    )
    verify = commands.add_parser(
        "verify", help="exit 0 only if the attestation supports deploying COMMIT",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("file", type=Path, metavar="FILE",
                        help="the DSSE envelope or in-toto statement")
    verify.add_argument("--commit", type=commit_sha, required=True, metavar="SHA",
                        help="the commit to deploy (full SHA): a subject must be exactly it")
    verify.add_argument("--key", type=Path, metavar="PUB.pem",
                        help="the signer's public key (ECDSA P-256 or Ed25519, PEM)")
    verify.add_argument("--policy-digest", type=_policy_digest, metavar="sha256:HEX",
                        help="require the verdict to be under exactly this policy")
    verify.add_argument("--max-age", type=positive_int, metavar="SECONDS",
                        help="refuse a verdict decided longer ago than this")
    verify.add_argument("--allow-unsigned", action="store_true",
                        help="accept a bare statement (no envelope): its signature is checked"
                        " elsewhere, e.g. by `gh attestation verify`")
