"""`verify`'s attestation options, apart from writing the file (gate/faces/attestation_output.py):
building the parser should not import the pipeline and the signing code (issue 23)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_attestation_output_arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument(
        "--attestation", type=Path, metavar="FILE",
        help="also write the verdict as an in-toto statement (SLSA verification summary) for"
        " the --head-sha commit and the claim file; needs --head-sha",
    )
    verify.add_argument(
        "--signing-key", type=Path, metavar="KEY.pem",
        help="sign the --attestation as a DSSE envelope with this ECDSA P-256 or Ed25519"
        " private key (PEM)",
    )
    verify.add_argument(
        "--resource-uri", metavar="URI",
        help="the attestation's resourceUri, e.g. git+https://github.com/OWNER/REPO@SHA"
        " (default urn:claim-gate:commit:SHA: the repository is not known here)",
    )
