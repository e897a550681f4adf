"""The signed verdict as deploy gates people already run read it.

`slsa-verifier verify-vsa` decodes the statement into its own VSA v1 structure (the SLSA page's
field types: `verifiedLevels` a list of strings, `policy` and `inputAttestations` resource
descriptors with string digests, `verifier.version` a string map, `timeVerified` RFC 3339) and
then checks, in order: the subject digests asked for, the verifier id, the resource URI, a
PASSED result, and the verified levels asked for (a level starting `SLSA_` is a track level,
`SLSA_<TRACK>_LEVEL_<n>`; any other is matched exactly). `slsa_verifier_refusal` restates those
checks from that behaviour, so a statement the tool would refuse fails here first.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from gate import GATE_ID
from gate.report.attestation import FAIL_TO_PASS_LEVEL, VERIFIED_LEVEL, verified_levels
from tests.attestation_support import check_verified_levels
from tests.test_attestation import EXAMPLE, SHA, attest, statement_of, write_keys

RESOURCE = f"urn:claim-gate:commit:{SHA}"
_TRACK = re.compile(r"^SLSA_([A-Z]+)_LEVEL_([0-9]+)$")


def _track_levels(levels: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for level in levels:
        if level.startswith("SLSA_"):
            match = _TRACK.match(level)
            assert match, f"slsa-verifier refuses {level!r} as an invalid SLSA level"
            found[match[1]] = max(found.get(match[1], 0), int(match[2]))
    return found


def slsa_verifier_refusal(statement: dict[str, Any], digests: Sequence[str], verifier_id: str,
                          resource_uri: str, levels: Sequence[str]) -> str | None:
    """Why `slsa-verifier verify-vsa` would refuse the statement (None: it accepts it)."""
    if statement.get("predicateType") != "https://slsa.dev/verification_summary/v1":
        return "predicate type"
    predicate = statement["predicate"]
    held = {(kind, value) for subject in statement["subject"]
            for kind, value in subject["digest"].items()}
    if not digests or any(tuple(d.split(":", 1)) not in held for d in digests):
        return "subject digest"
    if not predicate["verifier"].get("id") or predicate["verifier"]["id"] != verifier_id:
        return "verifier id"
    if not predicate.get("resourceUri") or predicate["resourceUri"] != resource_uri:
        return "resource uri"
    if predicate["verificationResult"] != "PASSED":
        return "verification result"
    got = predicate.get("verifiedLevels", [])
    wanted_tracks, got_tracks = _track_levels(levels), _track_levels(got)
    if any(got_tracks.get(track, -1) < level for track, level in wanted_tracks.items()):
        return "verified levels"
    if any(not w.startswith("SLSA_") and w not in got for w in levels):
        return "verified levels"
    return None


def assert_decodes_as_the_slsa_page_types_it(predicate: dict[str, Any]) -> None:
    """The VSA v1 field types slsa-verifier decodes into (a wrong type is a decode error)."""
    datetime.fromisoformat(predicate["timeVerified"])
    assert isinstance(predicate["verifier"]["id"], str)
    assert all(isinstance(v, str) for v in predicate["verifier"].get("version", {}).values())
    assert isinstance(predicate["resourceUri"], str)
    for descriptor in [predicate["policy"], *predicate.get("inputAttestations", [])]:
        assert isinstance(descriptor["uri"], str)
        assert all(isinstance(v, str) for v in descriptor["digest"].values())
    assert isinstance(predicate["verificationResult"], str)
    check_verified_levels(predicate["verifiedLevels"])
    assert all(isinstance(v, int) for v in predicate.get("dependencyLevels", {}).values())


def test_a_verified_signed_statement_passes_every_check_slsa_verifier_makes(
        tmp_path: Path) -> None:
    private, _ = write_keys(tmp_path)
    code, out = attest(tmp_path, "--signing-key", private)
    assert code == 0
    statement = statement_of(out)
    assert_decodes_as_the_slsa_page_types_it(statement["predicate"])
    assert statement["predicate"]["verifiedLevels"] == [VERIFIED_LEVEL]
    claim_digest = hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()
    digests = [f"gitCommit:{SHA}", f"sha256:{claim_digest}"]
    assert slsa_verifier_refusal(statement, digests, GATE_ID, RESOURCE, [VERIFIED_LEVEL]) is None


@pytest.mark.parametrize(("digests", "verifier", "resource", "levels", "refused"), [
    ([f"gitCommit:{'f' * 40}"], GATE_ID, RESOURCE, [VERIFIED_LEVEL], "subject digest"),
    ([f"gitCommit:{SHA}"], "claim-gate/0.0.0", RESOURCE, [VERIFIED_LEVEL], "verifier id"),
    ([f"gitCommit:{SHA}"], GATE_ID, "urn:claim-gate:commit:other", [VERIFIED_LEVEL],
     "resource uri"),
    ([f"gitCommit:{SHA}"], GATE_ID, RESOURCE, [FAIL_TO_PASS_LEVEL], "verified levels"),
    ([f"gitCommit:{SHA}"], GATE_ID, RESOURCE, ["SLSA_BUILD_LEVEL_1"], "verified levels"),
])
def test_a_deploy_gate_that_pins_another_value_refuses_the_statement(
        tmp_path: Path, digests: list[str], verifier: str, resource: str, levels: list[str],
        refused: str) -> None:
    """The checks can fail: each pinned value that differs is a refusal, named."""
    code, out = attest(tmp_path)
    assert code == 0
    assert slsa_verifier_refusal(statement_of(out), digests, verifier, resource,
                                 levels) == refused


def test_an_unverified_claim_is_failed_in_the_result_and_the_levels(tmp_path: Path) -> None:
    code, out = attest(tmp_path, trust=False)
    assert code == 1
    statement = statement_of(out)
    assert_decodes_as_the_slsa_page_types_it(statement["predicate"])
    assert statement["predicate"]["verifiedLevels"] == ["FAILED"]
    assert slsa_verifier_refusal(statement, [f"gitCommit:{SHA}"], GATE_ID, RESOURCE,
                                 [VERIFIED_LEVEL]) == "verification result"


def test_levels_earned_beyond_verified_are_stated_only_on_a_passed_statement() -> None:
    assert verified_levels("PASSED", [FAIL_TO_PASS_LEVEL]) == [VERIFIED_LEVEL,
                                                              FAIL_TO_PASS_LEVEL]
    assert verified_levels("FAILED", [FAIL_TO_PASS_LEVEL]) == ["FAILED"]
    assert not any(level.startswith("SLSA_") for level in (VERIFIED_LEVEL, FAIL_TO_PASS_LEVEL))
