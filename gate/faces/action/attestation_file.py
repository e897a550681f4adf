"""The Action's `attestation` output: the PR head's verdict as one in-toto statement.

One statement for the run: its subjects are the PR's head commit and every claim file found
(sha256 of the bytes read at the head), and it is PASSED only when every claim file was read
and each is verified (a claim that could not be read makes it FAILED). Its inputs are the
record's `x-verification` inputs (the JUnit files of each artifact, the baseline's). The policy
is the effective one each verdict carries; when several claim files tightened it differently,
the statement names each digest's list (`urn:claim-gate:policy:several`) and every completed
claim keeps its own. No claim decided (none found, none readable): no statement, because
there is no verdict to attest; a deploy gate reading the file then fails on its absence.

The file is unsigned: the example workflow signs it with GitHub's artifact attestations
(docs/attestation.md), whose key is the workflow's own identity, not one the gate holds.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gate.engine.fail_to_pass import earned_levels
from gate.engine.results import Verdict
from gate.faces.action.runner_files import STEP_FOLDER, write_step_file
from gate.report.attestation import (
    AttestationInput,
    AttestedClaim,
    policy_uri,
    verification_statement,
)

#: Where the statement is written, relative to the workspace (the output names this path).
STATEMENT_PATH = STEP_FOLDER / "attestation.json"


@dataclass(frozen=True)
class DecidedFile:
    """One claim file of the run as the statement needs it."""

    label: str
    data: bytes
    verdict: Verdict | None
    record_json: str | None  # the completed claim with `x-verification`, as written


def _inputs(records: Sequence[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    for record in records:
        for entry in record.get("x-verification", {}).get("inputs", []):
            name, digest = entry.get("name"), entry.get("sha256")
            pair = (str(name), str(digest))
            if not str(name).startswith("claim ") and pair not in found:
                found.append(pair)  # the claim files are subjects, not inputs
    return tuple(found)


def action_statement(
    files: Sequence[DecidedFile], head_sha: str, resource_uri: str, *, complete: bool = True
) -> dict[str, Any] | None:
    """The statement for the decided claim files; `complete` False: something the run had to
    decide was not decided, so the statement is FAILED whatever the decided files say."""
    verdicts = [f.verdict for f in files if f.verdict is not None]
    if not verdicts:
        return None
    records = [json.loads(f.record_json) if f.record_json else None for f in files]
    digests = sorted({v.policy.digest for v in verdicts})
    if len(digests) == 1:
        uri, digest = policy_uri(verdicts[0].policy.id), digests[0]
    else:
        uri = "urn:claim-gate:policy:several"
        digest = hashlib.sha256(json.dumps(digests).encode("utf-8")).hexdigest()
    given = AttestationInput(
        head_sha=head_sha,
        resource_uri=resource_uri,
        decided_at=max(v.decided_at for v in verdicts),
        policy_uri=uri,
        policy_sha256=digest,
        claims=tuple(
            AttestedClaim(f.label, hashlib.sha256(f.data).hexdigest(),
                          f.verdict.state if f.verdict else None, record)
            for f, record in zip(files, records, strict=True)
        ),
        inputs=_inputs([r for r in records if r is not None]),
        complete=complete,
        extra_levels=earned_levels(verdicts),
    )
    return verification_statement(given)


def write_statement(workspace: Path, statement: dict[str, Any] | None) -> str:
    """Write the statement under the workspace; its path relative to the workspace, or ""."""
    if statement is None:
        return ""
    text = json.dumps(statement, indent=2, ensure_ascii=False) + "\n"
    return write_step_file(workspace, STATEMENT_PATH.name, text, "attestation")
