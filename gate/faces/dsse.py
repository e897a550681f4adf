"""DSSE envelopes (Dead Simple Signing Envelope v1) for the gate's in-toto statements.

The signature covers DSSE's pre-authentication encoding (PAE) of the payload type and the
payload bytes, never the JSON around them, so a verifier checks exactly the bytes it will
then parse. Keys are PEM files: ECDSA P-256 (SHA-256, DER signature) or Ed25519. Base64 is
the standard alphabet with padding. `keyid` is the sha256 of the public key's
SubjectPublicKeyInfo (DER), a hint only: verification is by the key the verifier was given.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from gate.claim.errors import InvalidInput
from gate.claim.jsondoc import read_capped

IN_TOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
MAX_KEY_BYTES = 64 * 1024

PrivateKey = ec.EllipticCurvePrivateKey | ed25519.Ed25519PrivateKey
PublicKey = ec.EllipticCurvePublicKey | ed25519.Ed25519PublicKey


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSEv1 SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal bytes."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: object, where: str, source: str) -> bytes:
    if not isinstance(text, str):
        raise InvalidInput(source, None, f"the envelope's {where} is not a base64 string")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidInput(
            source, None, f"the envelope's {where} is not standard base64"
        ) from None


def key_id(public: PublicKey) -> str:
    der = public.public_bytes(serialization.Encoding.DER,
                              serialization.PublicFormat.SubjectPublicKeyInfo)
    return hashlib.sha256(der).hexdigest()


def _check_curve(key: ec.EllipticCurvePrivateKey | ec.EllipticCurvePublicKey, path: Path) -> None:
    if not isinstance(key.curve, ec.SECP256R1):
        raise InvalidInput(str(path), None, f"the key is on {key.curve.name}, not P-256",
                           "use an ECDSA P-256 or an Ed25519 key")


def load_private_key(path: Path) -> PrivateKey:
    """A PEM private key (PKCS#8 or traditional, unencrypted); InvalidInput otherwise."""
    data = read_capped(path, MAX_KEY_BYTES, "signing key")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise InvalidInput(str(path), None, f"not a usable PEM private key: {exc}",
                           "give an unencrypted ECDSA P-256 or Ed25519 key in PEM") from None
    if isinstance(key, ec.EllipticCurvePrivateKey):
        _check_curve(key, path)
        return key
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return key
    raise InvalidInput(str(path), None, f"a {type(key).__name__} cannot sign here",
                       "use an ECDSA P-256 or an Ed25519 key")


def load_public_key(path: Path) -> PublicKey:
    """A PEM public key (SubjectPublicKeyInfo); InvalidInput otherwise."""
    data = read_capped(path, MAX_KEY_BYTES, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
        raise InvalidInput(str(path), None, f"not a usable PEM public key: {exc}",
                           "give the ECDSA P-256 or Ed25519 public key in PEM") from None
    if isinstance(key, ec.EllipticCurvePublicKey):
        _check_curve(key, path)
        return key
    if isinstance(key, ed25519.Ed25519PublicKey):
        return key
    raise InvalidInput(str(path), None, f"a {type(key).__name__} is not supported",
                       "use an ECDSA P-256 or an Ed25519 key")


def sign_envelope(payload: bytes, key: PrivateKey,
                  payload_type: str = IN_TOTO_PAYLOAD_TYPE) -> dict[str, Any]:
    """A DSSE envelope with one signature over PAE(payload_type, payload)."""
    message = pae(payload_type, payload)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        signature = key.sign(message, ec.ECDSA(hashes.SHA256()))
    else:
        signature = key.sign(message)
    return {
        "payloadType": payload_type,
        "payload": _b64(payload),
        "signatures": [{"keyid": key_id(key.public_key()), "sig": _b64(signature)}],
    }


def _holds(key: PublicKey, signature: bytes, message: bytes) -> bool:
    try:
        if isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, message, ec.ECDSA(hashes.SHA256()))
        else:
            key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


@dataclass(frozen=True)
class Envelope:
    """A parsed DSSE envelope: the payload bytes and every signature, not yet checked."""

    payload_type: str
    payload: bytes
    signatures: tuple[bytes, ...]

    def signed_by(self, key: PublicKey) -> bool:
        """True when any signature holds over PAE(payloadType, payload) with `key`."""
        message = pae(self.payload_type, self.payload)
        return any(_holds(key, signature, message) for signature in self.signatures)


def is_envelope(document: object) -> bool:
    return isinstance(document, dict) and "payloadType" in document and "payload" in document


def parse_envelope(document: Mapping[str, Any], source: str) -> Envelope:
    """The envelope's fields, decoded; InvalidInput names what is malformed."""
    payload_type = document.get("payloadType")
    if not isinstance(payload_type, str):
        raise InvalidInput(source, None, "the envelope's payloadType is not a string")
    payload = _unb64(document.get("payload"), "payload", source)
    raw = document.get("signatures")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(source, None, "the envelope has no signatures list",
                           "a DSSE envelope carries at least one signature")
    signatures = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise InvalidInput(source, None, f"the envelope's signatures[{index}] is no object")
        signatures.append(_unb64(entry.get("sig"), f"signatures[{index}].sig", source))
    return Envelope(payload_type, payload, tuple(signatures))
