"""The verdict as an in-toto attestation: `verify --attestation` and `attestation verify`.

The statement is checked against the in-toto attestation framework's own definitions (the
`in-toto-attestation` package: Statement v1 and the VSA v1 predicate as protobuf messages),
the envelope against DSSE's PAE built here from the spec's wording, and the deploy gate
against every way an attestation can fail to support a deploy.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import json
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from google.protobuf import json_format

from gate.faces.cli import main
from gate.faces.dsse import pae
from tests.attestation_support import validate_in_toto
from tests.gitrepo import commit_all, init_repo

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "claim.json"
TRUST = ["--trusted-verifier", "gitreal-gate/*"]
NOW = "2026-08-27T18:04:10Z"
DECIDED = datetime(2026, 8, 27, 18, 4, 10, tzinfo=UTC)
SHA = "0123456789abcdef0123456789abcdef01234567"
OTHER_SHA = "fedcba9876543210fedcba9876543210fedcba98"


def run(*argv: str | Path, now: datetime = DECIDED + timedelta(minutes=10)
        ) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], clock=lambda: now, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def write_keys(folder: Path, kind: str = "p256") -> tuple[Path, Path]:
    key: ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey = (
        ec.generate_private_key(ec.SECP256R1()) if kind == "p256"
        else ed25519.Ed25519PrivateKey.generate())
    private, public = folder / f"{kind}.pem", folder / f"{kind}.pub.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def outside_git(tmp_path: Path) -> Path:
    """The example claim copied outside any clone: with --head-sha, a claim in a working tree
    is read as committed at that commit, and these tests' SHA is made up."""
    copied = tmp_path / "unversioned" / "claim.json"
    copied.parent.mkdir(exist_ok=True)
    copied.write_bytes(EXAMPLE.read_bytes())
    return copied


def attest(tmp_path: Path, *extra: str | Path, trust: bool = True, name: str = "out.json"
           ) -> tuple[int, Path]:
    out = tmp_path / name
    code, _, err = run("verify", outside_git(tmp_path), *(TRUST if trust else []), "--now", NOW,
                       "--head-sha", SHA, "--attestation", out, *extra)
    assert out.exists(), err
    return code, out


def statement_of(path: Path) -> dict[str, Any]:
    document = json.loads(path.read_text("utf-8"))
    if "payloadType" in document:
        return json.loads(base64.b64decode(document["payload"]))  # type: ignore[no-any-return]
    return document  # type: ignore[no-any-return]


# --- the statement -----------------------------------------------------------------------


def test_a_verified_claim_is_a_passed_statement_the_framework_accepts(tmp_path: Path) -> None:
    code, out = attest(tmp_path)
    assert code == 0
    statement = statement_of(out)
    validate_in_toto(statement)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://slsa.dev/verification_summary/v1"
    predicate = statement["predicate"]
    assert predicate["verificationResult"] == "PASSED"
    assert predicate["timeVerified"] == NOW
    assert predicate["verifier"]["version"]["claim-gate"]
    commit, claim = statement["subject"]
    assert commit["digest"] == {"gitCommit": SHA}
    assert claim["digest"] == {"sha256": hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()}
    [completed] = predicate["x-claim-gate-completed-claims"]
    assert completed["state"] == "verified"
    assert completed["completed"]["verdict"]["state"] == "verified"
    # the same policy digest the record carries
    assert predicate["policy"]["digest"]["sha256"] == (
        completed["completed"]["verdict"]["x-policy"]["sha256"])
    assert predicate["policy"]["uri"].endswith(completed["completed"]["verdict"]["x-policy"]["id"])


def test_an_unverified_claim_is_a_failed_statement(tmp_path: Path) -> None:
    code, out = attest(tmp_path, trust=False)
    assert code == 1
    statement = statement_of(out)
    validate_in_toto(statement)
    assert statement["predicate"]["verificationResult"] == "FAILED"
    assert statement["predicate"]["x-claim-gate-completed-claims"][0]["state"] == "unverified"


def test_the_claim_digest_is_of_the_bytes_as_read(tmp_path: Path) -> None:
    """Whitespace and key order are part of the file: the digest is not of re-dumped JSON."""
    spaced = tmp_path / "claim.json"
    spaced.write_bytes(b"\n\n" + EXAMPLE.read_bytes().replace(b"\n", b"\r\n") + b"  \n")
    out = tmp_path / "a.json"
    code, _, err = run("verify", spaced, *TRUST, "--now", NOW, "--head-sha", SHA,
                       "--attestation", out)
    assert code == 0, err
    claim_subject = statement_of(out)["subject"][1]
    assert claim_subject["digest"]["sha256"] == hashlib.sha256(spaced.read_bytes()).hexdigest()
    assert claim_subject["digest"]["sha256"] != hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()


def test_a_committed_claim_is_attested_as_committed_at_the_head(tmp_path: Path) -> None:
    """In a clone, --head-sha reads the claim from that commit: the statement's subjects are
    that real commit and the committed bytes."""
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / ".claim.json").write_bytes(EXAMPLE.read_bytes())
    head = commit_all(repo, "claim")
    out = tmp_path / "a.json"
    code, _, err = run("verify", repo / ".claim.json", *TRUST, "--now", NOW, "--head-sha", head,
                       "--attestation", out)
    assert code == 0, err
    statement = statement_of(out)
    validate_in_toto(statement)
    assert statement["subject"][0]["digest"] == {"gitCommit": head}
    assert statement["subject"][1]["digest"] == {
        "sha256": hashlib.sha256(EXAMPLE.read_bytes()).hexdigest()}


def test_a_required_claim_that_is_missing_is_a_failed_statement_naming_the_commit(
    tmp_path: Path,
) -> None:
    """--require-claim with no claim decides nothing: the statement still says FAILED for the
    commit, so a deploy gate reads a refusal, not a missing file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / "README").write_text("no claim here\n")
    head = commit_all(repo, "work")
    out = tmp_path / "a.json"
    code, _, err = run("verify", repo / ".claim.json", "--require-claim", "--now", NOW,
                       "--head-sha", head, "--attestation", out)
    assert code == 1, err
    statement = statement_of(out)
    validate_in_toto(statement)
    assert statement["subject"] == [{"name": f"git-commit:{head}",
                                     "digest": {"gitCommit": head}}]
    assert statement["predicate"]["verificationResult"] == "FAILED"
    assert statement["predicate"]["timeVerified"] == NOW
    code, _, err = run("attestation", "verify", out, "--commit", head, "--allow-unsigned")
    assert code == 1, err


def test_evidence_files_are_input_attestations_with_digests(tmp_path: Path) -> None:
    raw = json.loads(EXAMPLE.read_text("utf-8"))
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(raw.pop("evidence")), "utf-8")
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps(raw), "utf-8")
    out = tmp_path / "a.json"
    code, _, err = run("verify", claim, "--evidence", evidence, "--now", NOW,
                       "--head-sha", SHA, "--attestation", out)
    assert code == 0, err
    statement = statement_of(out)
    validate_in_toto(statement)
    assert statement["predicate"]["inputAttestations"] == [{
        "uri": f"evidence {evidence}",
        "digest": {"sha256": hashlib.sha256(evidence.read_bytes()).hexdigest()},
    }]


def test_the_framework_check_can_fail(tmp_path: Path) -> None:
    _, out = attest(tmp_path)
    good = statement_of(out)
    no_digest = copy.deepcopy(good)
    no_digest["subject"][0]["digest"] = {}
    bad_time = copy.deepcopy(good)
    bad_time["predicate"]["timeVerified"] = "yesterday"
    typo = copy.deepcopy(good)
    typo["predicate"]["verificationResults"] = typo["predicate"].pop("verificationResult")
    for broken in (no_digest, bad_time, typo):
        with pytest.raises((ValueError, json_format.ParseError)):
            validate_in_toto(broken)


def test_attestation_without_head_sha_is_refused_before_deciding(tmp_path: Path) -> None:
    out = tmp_path / "a.json"
    code, _, err = run("verify", EXAMPLE, *TRUST, "--now", NOW, "--attestation", out)
    assert code == 3
    assert "--head-sha" in err
    assert not out.exists()


def test_a_bad_signing_key_is_invalid_input(tmp_path: Path) -> None:
    key = tmp_path / "k.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    code, _, err = run("verify", outside_git(tmp_path), *TRUST, "--now", NOW, "--head-sha", SHA,
                       "--attestation", tmp_path / "a.json", "--signing-key", key)
    assert code == 3
    assert "k.pem" in err
    code, _, err = run("verify", outside_git(tmp_path), *TRUST, "--now", NOW, "--head-sha", SHA,
                       "--signing-key", key)
    assert code == 3
    assert "--attestation" in err


# --- the envelope ------------------------------------------------------------------------


def test_pae_is_dsse_v1() -> None:
    """The DSSE spec's worked example."""
    assert pae("http://example.com/HelloWorld", b"hello world") == (
        b"DSSEv1 29 http://example.com/HelloWorld 11 hello world")


@pytest.mark.parametrize("kind", ["p256", "ed25519"])
def test_a_signed_envelope_holds_under_the_dsse_rules(tmp_path: Path, kind: str) -> None:
    private, public = write_keys(tmp_path, kind)
    code, out = attest(tmp_path, "--signing-key", private)
    assert code == 0
    envelope = json.loads(out.read_text("utf-8"))
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    payload = base64.b64decode(envelope["payload"], validate=True)
    validate_in_toto(json.loads(payload))
    [signature] = envelope["signatures"]
    sig = base64.b64decode(signature["sig"], validate=True)
    kind_bytes = b"application/vnd.in-toto+json"
    message = b"DSSEv1 " + str(len(kind_bytes)).encode() + b" " + kind_bytes + b" " + (
        str(len(payload)).encode() + b" " + payload)
    key = serialization.load_pem_public_key(public.read_bytes())
    if isinstance(key, ec.EllipticCurvePublicKey):
        decode_dss_signature(sig)  # DER, not raw r||s
        key.verify(sig, message, ec.ECDSA(hashes.SHA256()))
    else:
        assert isinstance(key, ed25519.Ed25519PublicKey)
        key.verify(sig, message)
    code, stdout, err = run("attestation", "verify", out, "--commit", SHA, "--key", public)
    assert code == 0, err
    assert SHA in stdout


def test_end_to_end_through_the_command(tmp_path: Path) -> None:
    private, public = write_keys(tmp_path)
    out = tmp_path / "out.json"

    def gate(*argv: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "gate", *map(str, argv)], cwd=ROOT,
                              capture_output=True, text=True, check=False)

    made = gate("verify", outside_git(tmp_path), *TRUST, "--now", NOW, "--head-sha", SHA,
                "--attestation", out, "--signing-key", private)
    assert made.returncode == 0, made.stderr
    checked = gate("attestation", "verify", out, "--commit", SHA, "--key", public)
    assert checked.returncode == 0, checked.stderr
    other = gate("attestation", "verify", out, "--commit", OTHER_SHA, "--key", public)
    assert other.returncode == 1
    assert "wrong commit" in other.stderr


# --- the deploy gate: every way to fail ----------------------------------------------------


def _tamper_payload(envelope: dict[str, Any]) -> None:
    payload = base64.b64decode(envelope["payload"])
    envelope["payload"] = base64.b64encode(payload.replace(b"2026-08-27T18", b"2026-08-28T18"))


def _tamper_signature(envelope: dict[str, Any]) -> None:
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[-1] ^= 0x01
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()


@pytest.mark.parametrize(("tamper", "reason"), [
    (_tamper_payload, "bad signature"),
    (_tamper_signature, "bad signature"),
])
def test_a_tampered_envelope_fails(tmp_path: Path, tamper: Callable[[dict[str, Any]], None],
                                   reason: str) -> None:
    private, public = write_keys(tmp_path)
    _, out = attest(tmp_path, "--signing-key", private)
    envelope = json.loads(out.read_text("utf-8"))
    tamper(envelope)
    if isinstance(envelope["payload"], bytes):
        envelope["payload"] = envelope["payload"].decode()
    out.write_text(json.dumps(envelope), "utf-8")
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--key", public)
    assert code == 1
    assert reason in err


def test_another_key_fails(tmp_path: Path) -> None:
    private, _ = write_keys(tmp_path)
    _, stranger = write_keys(tmp_path, "ed25519")
    _, out = attest(tmp_path, "--signing-key", private)
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--key", stranger)
    assert code == 1
    assert "bad signature" in err


@pytest.mark.parametrize(("extra", "now", "reason"), [
    (("--commit", OTHER_SHA), None, "wrong commit"),
    (("--commit", SHA, "--policy-digest", "sha256:" + "0" * 64), None, "policy digest mismatch"),
    (("--commit", SHA, "--max-age", "3600"), DECIDED + timedelta(hours=2), "expired"),
    (("--commit", SHA), DECIDED - timedelta(hours=1), "decided in the future"),
])
def test_the_deploy_gate_refuses(tmp_path: Path, extra: tuple[str, ...], now: datetime | None,
                                 reason: str) -> None:
    private, public = write_keys(tmp_path)
    _, out = attest(tmp_path, "--signing-key", private)
    code, stdout, err = run("attestation", "verify", out, "--key", public, *extra,
                            now=now or DECIDED + timedelta(minutes=1))
    assert code == 1, stdout
    assert reason in err


def test_the_deploy_gate_passes_within_age_and_the_right_policy(tmp_path: Path) -> None:
    private, public = write_keys(tmp_path)
    _, out = attest(tmp_path, "--signing-key", private)
    record = statement_of(out)["predicate"]["x-claim-gate-completed-claims"][0]["completed"]
    digest = record["verdict"]["x-policy"]["sha256"]
    for given in (f"sha256:{digest}", digest.upper()):
        code, _, err = run("attestation", "verify", out, "--commit", SHA.upper(), "--key", public,
                           "--policy-digest", given, "--max-age", "3600",
                           now=DECIDED + timedelta(minutes=59))
        assert code == 0, err


def test_an_unverified_verdict_fails_and_every_reason_is_named(tmp_path: Path) -> None:
    private, public = write_keys(tmp_path)
    _, out = attest(tmp_path, "--signing-key", private, trust=False)
    code, _, err = run("attestation", "verify", out, "--commit", OTHER_SHA, "--key", public,
                       "--max-age", "60", now=DECIDED + timedelta(hours=1))
    assert code == 1
    assert "not verified" in err
    assert "FAILED" in err
    assert "wrong commit" in err
    assert "expired" in err


def test_an_unsigned_statement_needs_allow_unsigned(tmp_path: Path) -> None:
    _, out = attest(tmp_path)
    code, _, err = run("attestation", "verify", out, "--commit", SHA)
    assert code == 1
    assert "unsigned" in err
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--allow-unsigned")
    assert code == 0, err


@pytest.mark.parametrize(("content", "key", "reason"), [
    ("not json", True, "not valid JSON"),
    ('{"payloadType": "application/vnd.in-toto+json", "payload": "%%%", "signatures": []}',
     True, "base64"),
    ('{"payloadType": "application/vnd.in-toto+json", "payload": "e30=",'
     ' "signatures": [{"sig": "AA=="}]}', False, "--key"),
    ('{"_type": "https://in-toto.io/Statement/v1", "subject": []}', True, "predicate"),
])
def test_unusable_input_is_exit_3(tmp_path: Path, content: str, key: bool, reason: str) -> None:
    _, public = write_keys(tmp_path)
    path = tmp_path / "a.json"
    path.write_text(content, "utf-8")
    code, _, err = run("attestation", "verify", path, "--commit", SHA, "--allow-unsigned",
                       *(["--key", str(public)] if key else []))
    assert code == 3, err
    assert reason in err


def test_a_statement_saying_failed_then_passed_is_refused(tmp_path: Path) -> None:
    """A duplicate key is refused: one reader would see FAILED, a lenient one PASSED."""
    _, out = attest(tmp_path)
    text = out.read_text("utf-8")
    forged = text.replace('"verificationResult": "PASSED"',
                          '"verificationResult": "FAILED", "verificationResult": "PASSED"', 1)
    assert forged != text
    out.write_text(forged, "utf-8")
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--allow-unsigned")
    assert code == 3, err
    assert "verificationResult" in err


@pytest.mark.parametrize("policy", [None, {}, {"digest": {}}, {"digest": {"sha256": "abc"}}])
def test_a_statement_without_its_policy_digest_is_refused(
    tmp_path: Path, policy: dict[str, object] | None
) -> None:
    _, out = attest(tmp_path)
    statement = json.loads(out.read_text("utf-8"))
    if policy is None:
        del statement["predicate"]["policy"]
    else:
        statement["predicate"]["policy"] = policy
    out.write_text(json.dumps(statement), "utf-8")
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--allow-unsigned")
    assert code == 3, err
    assert "predicate.policy" in err


def test_a_bad_public_key_file_is_exit_3(tmp_path: Path) -> None:
    private, _ = write_keys(tmp_path)
    _, out = attest(tmp_path, "--signing-key", private)
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--key", private)
    assert code == 3
    assert "public key" in err
    p384 = ec.generate_private_key(ec.SECP384R1()).public_key()
    wrong_curve = tmp_path / "p384.pem"
    wrong_curve.write_bytes(p384.public_bytes(serialization.Encoding.PEM,
                                              serialization.PublicFormat.SubjectPublicKeyInfo))
    code, _, err = run("attestation", "verify", out, "--commit", SHA, "--key", wrong_curve)
    assert code == 3
    assert "P-256" in err


def test_a_short_commit_is_a_usage_error(tmp_path: Path) -> None:
    _, out = attest(tmp_path)
    code, _, err = run("attestation", "verify", out, "--commit", SHA[:12], "--allow-unsigned")
    assert code == 3
    assert "full commit id" in err
