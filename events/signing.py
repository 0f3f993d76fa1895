"""Ed25519 signatures (the ``cryptography`` package) over canonical statements.

A *statement* is a msgspec Struct (a move file, a join, an export's head); what
is signed is its canonical JSON (keys sorted) without its ``signature`` field,
prefixed with a domain tag so a signature made for one kind of statement can
never pass for another.  Keys travel as hex of their 32 raw bytes.

>>> key = new_private_key()
>>> pub = public_hex(key)
>>> sig = sign(key, "demo", {"a": 1})
>>> verify_signature(pub, "demo", {"a": 1}, sig)
True
>>> verify_signature(pub, "demo", {"a": 2}, sig), verify_signature(pub, "other", {"a": 1}, sig)
(False, False)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:  # the cryptography package is loaded on first use (~14 ms at start-up)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

_canonical = msgspec.json.Encoder(order="sorted")


class BadKey(ValueError):
    """A key that cannot be read (malformed file, wrong kind of key)."""


def new_private_key() -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def private_pem(key: Ed25519PrivateKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def load_private_pem(data: bytes, source: str) -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise BadKey(f"{source}: not an unencrypted PEM private key ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadKey(f"{source}: not an Ed25519 key")
    return key


def public_hex(key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw.hex()


def is_public_hex(text: str) -> bool:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(text))
    except ValueError:
        return False
    return True


def message(domain: str, body: Any) -> bytes:
    """The bytes a signature covers: a domain tag, then canonical JSON of ``body``."""
    return f"citylog-sig-v1:{domain}:".encode() + _canonical.encode(msgspec.to_builtins(body))


def sign(key: Ed25519PrivateKey, domain: str, body: Any) -> str:
    return key.sign(message(domain, body)).hex()


def verify_signature(public: str, domain: str, body: Any, signature: str) -> bool:
    """True if ``signature`` (hex) is ``public``'s (hex) over ``body``; never raises."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(public)).verify(
            bytes.fromhex(signature), message(domain, body)
        )
    except (InvalidSignature, ValueError):
        return False
    return True
