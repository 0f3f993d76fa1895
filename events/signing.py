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

import re

import msgspec

if TYPE_CHECKING:  # the cryptography package is loaded on first use (~14 ms at start-up)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

_canonical = msgspec.json.Encoder(order="sorted")

KEY_HEX = 64
"""An Ed25519 public key: 32 raw bytes, 64 lower-case hex digits."""
SIG_HEX = 128
"""An Ed25519 signature: 64 raw bytes, 128 lower-case hex digits."""
_LOWER_HEX = re.compile(r"[0-9a-f]*")


def hex_bytes(text: object, length: int | None = None) -> bytes | None:
    """The bytes of ``text`` if it is the one spelling citylog writes: lower-case
    hex digits only (no spaces, no upper case, no ``0x``), exactly ``length``
    digits when given.  None otherwise.  (``bytes.fromhex`` alone would accept
    upper case and spaces: several spellings of one value.)

    >>> hex_bytes("00ff"), hex_bytes("00FF"), hex_bytes("00 ff"), hex_bytes("00ff", 6)
    (b'\\x00\\xff', None, None, None)
    """
    if type(text) is not str or len(text) % 2 or (length is not None and len(text) != length):
        return None
    if not _LOWER_HEX.fullmatch(text):
        return None
    return bytes.fromhex(text)


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


def canonical_match(data: bytes, canonical: bytes) -> bool:
    """``data`` is ``canonical`` (both taken without one trailing newline): a file is
    accepted only if it *is* its canonical encoding."""
    return data.removesuffix(b"\n") == canonical.removesuffix(b"\n")


def load_private_pem(data: bytes, source: str) -> Ed25519PrivateKey:
    """A key file as ``key new`` writes it (unencrypted PKCS#8 PEM of an Ed25519
    key), byte for byte: any other spelling (other line breaks, spaces, another
    PEM of the same key) is refused, so a key file has one encoding."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        why = " ".join(str(exc).split())[:120]
        raise BadKey(f"{source}: not an unencrypted PEM private key ({why})") from None
    except Exception:  # noqa: BLE001 - the parser of a hostile file may fail in any way
        raise BadKey(f"{source}: not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise BadKey(f"{source}: not an Ed25519 key")
    if not canonical_match(data, private_pem(key)):
        raise BadKey(f"{source}: not a key file as 'citylog key new' writes it (another spelling of a PEM key)")
    return key


def public_file_bytes(key: Ed25519PrivateKey) -> bytes:
    """A public key file (``NAME.pub``): its 64 hex digits and a newline."""
    return (public_hex(key) + "\n").encode()


def load_public_file(data: bytes, source: str) -> str:
    """The public key (hex) of a ``NAME.pub`` file in its one spelling, else BadKey."""
    try:
        text = data.removesuffix(b"\n").decode("ascii")
    except UnicodeDecodeError:
        text = ""
    if not is_public_hex(text):
        raise BadKey(f"{source}: not a public key file (64 lower-case hex digits of an Ed25519 key)")
    return text


_SMALL_ORDER = frozenset(bytes.fromhex(x) for x in (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
))
"""Encodings of the Ed25519 points of small order (and their non-canonical
spellings), the sign bit cleared (libsodium's list): with such a "public key"
one signature verifies over every message, so nobody could tell its owner's
statements from anyone else's."""


def small_order(raw: bytes) -> bool:
    """``raw`` (32 bytes) encodes a point of small order, whatever its sign bit."""
    return len(raw) == 32 and raw[:31] + bytes([raw[31] & 0x7F]) in _SMALL_ORDER


def public_hex(key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw.hex()


def is_public_hex(text: str) -> bool:
    """``text`` is an Ed25519 public key in its one spelling (64 lower-case hex digits)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    raw = hex_bytes(text, KEY_HEX)
    if raw is None or small_order(raw):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return False
    return True


def same_hex(a: str, b: str, length: int | None = None) -> bool:
    """Two hex values are equal as bytes, both in their one spelling (never a string compare)."""
    x, y = hex_bytes(a, length), hex_bytes(b, length)
    return x is not None and y is not None and x == y


def message(domain: str, body: Any) -> bytes:
    """The bytes a signature covers: a domain tag, then canonical JSON of ``body``."""
    return f"citylog-sig-v1:{domain}:".encode() + _canonical.encode(msgspec.to_builtins(body))


def sign(key: Ed25519PrivateKey, domain: str, body: Any) -> str:
    return key.sign(message(domain, body)).hex()


def verify_signature(public: str, domain: str, body: Any, signature: str) -> bool:
    """True if ``signature`` (128 lower-case hex) is ``public``'s (64 lower-case
    hex) over ``body``; never raises.  Any other spelling of either is refused."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key, sig = hex_bytes(public, KEY_HEX), hex_bytes(signature, SIG_HEX)
    if key is None or sig is None or small_order(key):
        return False  # a small-order key's signature would verify over every message
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(sig, message(domain, body))
    except (InvalidSignature, ValueError):
        return False
    return True
