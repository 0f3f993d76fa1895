"""The record envelope and its hash chain.

Every stored event is a :class:`Recorded`: the game's id, its sequence number
(from 1), the event's type tag, the msgspec-JSON payload, and two links of a
SHA-256 chain::

    hash(seq) = sha256(f"{prev_hash}:{seq}:{type}:{sha256(nonce(seq) + payload)}")
    prev_hash(1) = genesis_hash(definition)

The chain is computed over the payload's *digest*, so a player's redacted
export can keep the digest of a hidden payload and still chain.  The genesis
is the hash of the game's :class:`GameDefinition`, which holds no id and no
clock: two games created alike and played alike have identical event lines,
and a fork shares its parent's prefix.

>>> d = GameDefinition("demo", "1", {"b": "2", "a": "1"}, ("ann", "bob"), "c0ffee")
>>> g = genesis_hash(d)
>>> r = Recorded("g1", 1, "ping", b"{}", g, chain_hash(g, 1, "ping", payload_digest(b"{}")))
>>> verify_chain(d, [r]) is None
True
>>> verify_chain(d, [msgspec.structs.replace(r, payload=b"[]")])
1
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable

import msgspec


class Recorded(msgspec.Struct, frozen=True, gc=False):
    """One stored event of one game.  (``gc=False``: it holds only str, int and
    bytes, so it can never be part of a reference cycle; long logs read faster.)"""

    game_id: str
    seq: int
    type: str
    payload: bytes
    """msgspec-JSON of a tagged game event whose tag is ``type``."""
    prev_hash: str
    hash: str


class GameDefinition(msgspec.Struct, frozen=True):
    """What a game *is*, and nothing about when or where it was created.

    Its canonical encoding (:func:`canonical_definition`) is hashed into the
    genesis of the event chain.
    """

    game: str
    rules_version: str
    options: dict[str, str]
    """Normalized options; encoded with sorted keys whatever the dict order."""
    players: tuple[str, ...]
    seed_commitment: str
    """sha256 of the game's seed (the seed itself stays private)."""
    table: bool = False
    """A game played with real components at a table (chance typed in)."""
    host_key: str = ""
    """A play-by-email game (``new --pbem``): hex of the host's Ed25519 public key,
    which seals every export; its seats join with keys of their own.  Encoded
    only when set, so the genesis of every other game is unchanged."""
    secrets: int = 1
    """How chance and line nonces derive from the seed (:mod:`core.chance`): 1, from
    the seed alone (games before issue 22); 2, from the seed and its commitment's
    salt (every new game).  Chained, so no header flag can weaken it [CL-V6];
    encoded only when not 1, so older games keep their genesis."""
    deadline: int = 0
    """Play by email (issue 24): seconds a seat's pending decision may stand before
    the host may time it out (0: no deadline).  Encoded only when set [CL-T1]."""
    on_timeout: str = ""
    """What a timeout does (:mod:`core.deadlines`: ``bot`` or ``forfeit``); encoded only when set."""
    entropy: int = 1
    """Play by email: how the players' entropy reaches the deal (:mod:`core.chance`):
    1, in the clear in each join (games before ruling CL-S7); 2, committed in each
    join and revealed once every seat has joined (every new game by email).
    Chained, so no header flag can weaken it [CL-S7]; encoded only when not 1."""


_canonical = msgspec.json.Encoder(order="sorted")
_OMITTED_WHEN_DEFAULT: dict[str, object] = {
    "host_key": "", "secrets": 1, "deadline": 0, "on_timeout": "", "entropy": 1,
}
"""Fields added after games were stored: left out of the canonical encoding at
their default, so existing games keep their genesis hash."""


def canonical_definition(definition: GameDefinition) -> bytes:
    """Canonical msgspec-JSON of a definition: fields and option keys sorted."""
    fields = msgspec.to_builtins(definition)
    for name, default in _OMITTED_WHEN_DEFAULT.items():
        if fields.get(name) == default:
            fields.pop(name, None)
    return _canonical.encode(fields)


def genesis_hash(definition: GameDefinition) -> str:
    """The ``prev_hash`` of a game's first event."""
    return hashlib.sha256(canonical_definition(definition)).hexdigest()


def line_nonce(secret: str | None, seq: int) -> bytes:
    """A per-line salt, known only to whoever knows the game's secret
    (:func:`core.chance.nonce_secret`: since issue 22 a hash of the seed and its
    commitment's random salt, so a visible nonce tests no guess of the seed).

    Hidden payloads are small (a few cards), so a bare digest in a player's
    redacted export could be brute-forced back into the hidden cards; salting
    every payload's digest with a nonce derived from the secret prevents that.
    Exports give players the nonces of the lines they may see.
    """
    if secret is None:
        return b""
    key = b"citylog-line-v1:" + secret.encode()
    return hmac.digest(key, str(seq).encode(), "sha256")[:16]


def row_line_secret(seed: object, salted: object, salt: object) -> str | None:
    """:func:`core.chance.nonce_secret` from a games row's ``seed``, ``salted``
    (0 none, 1 from the seed alone, 2 the salted secret of scheme 2) and ``salt``."""
    from core.chance import SALTED, SEED_ALONE, nonce_secret

    scheme = SALTED if salted == 2 else SEED_ALONE
    return nonce_secret(seed, salt, scheme, bool(salted))  # type: ignore[arg-type]


def line_nonces(secret: str | None) -> Callable[[int], bytes]:
    """:func:`line_nonce` for one game's secret, its key built once (a store
    appending a batch calls it for each line)."""
    if secret is None:
        return _no_nonce
    key = b"citylog-line-v1:" + secret.encode()
    return lambda seq: hmac.digest(key, str(seq).encode(), "sha256")[:16]


def _no_nonce(seq: int) -> bytes:
    return b""


def payload_digest(payload: bytes, nonce: bytes = b"") -> str:
    """sha256 hex of a payload, salted with the line's nonce."""
    return hashlib.sha256(nonce + payload).hexdigest()


def chain_hash(prev_hash: str, seq: int, type: str, digest: str) -> str:
    """The hash of event ``seq``, linking it to ``prev_hash``."""
    return hashlib.sha256(f"{prev_hash}:{seq}:{type}:{digest}".encode()).hexdigest()


def first_bad_link(genesis: str, links: Iterable[tuple[int, str, str, str, str]]) -> int | None:
    """Check ``(seq, type, digest, prev_hash, hash)`` links against a genesis.

    The lower level of :func:`verify_chain`, for exports that carry a digest in
    place of a hidden payload.  Returns the first bad seq, else None.  A link
    whose seq is not the next one (dropped or reordered) is bad at the seq that
    was expected there.
    """
    prev = genesis
    expected = 1
    for seq, type_, digest, prev_hash, h in links:
        if seq != expected:
            return expected
        if prev_hash != prev or h != chain_hash(prev, seq, type_, digest):
            return seq
        prev = h
        expected += 1
    return None


def verify_chain(
    definition: GameDefinition, records: Iterable[Recorded], secret: str | None = None
) -> int | None:
    """The first seq whose record does not chain (changed, reordered, dropped
    or of another game), else None.  ``secret``: the game's seed (line nonces)."""

    def links() -> Iterable[tuple[int, str, str, str, str]]:
        game_id: str | None = None
        for r in records:
            if game_id is None:
                game_id = r.game_id
            elif r.game_id != game_id:
                yield (-1, "", "", "", "")  # a seq that never matches: bad here
                return
            yield r.seq, r.type, payload_digest(r.payload, line_nonce(secret, r.seq)), r.prev_hash, r.hash

    return first_bad_link(genesis_hash(definition), links())


def chain(
    definition_or_genesis: GameDefinition | str,
    game_id: str,
    items: Iterable[tuple[str, bytes]],
    start_seq: int = 1,
    prev_hash: str | None = None,
    secret: str | None = None,
) -> list[Recorded]:
    """Build records for ``(type, payload)`` items, as a store would.

    From seq 1 by default; pass ``start_seq`` and the ``prev_hash`` of the
    record before it to continue a chain.
    """
    if prev_hash is None:
        if start_seq != 1:
            raise ValueError("prev_hash is required past seq 1")
        g = definition_or_genesis
        prev_hash = g if isinstance(g, str) else genesis_hash(g)
    return link(game_id, start_seq - 1, prev_hash, items, line_nonces(secret))


def link(
    game_id: str,
    version: int,
    prev_hash: str,
    items: Iterable[tuple[str, bytes]],
    nonce: Callable[[int], bytes],
) -> list[Recorded]:
    """The records ``(type, payload)`` items become after seq ``version`` whose
    hash is ``prev_hash``: the one place the hash chain is built (both stores'
    ``append`` and :func:`chain` call it).  ``nonce``: the game's line nonces
    (:func:`line_nonces`).  A payload that is a memoryview or bytearray is taken
    as bytes; a str raises TypeError."""
    out: list[Recorded] = []
    seq = version
    for type_, payload in items:
        if type(payload) is not bytes:
            payload = bytes(payload)
        seq += 1
        h = chain_hash(prev_hash, seq, type_, payload_digest(payload, nonce(seq)))
        out.append(Recorded(game_id, seq, type_, payload, prev_hash, h))
        prev_hash = h
    return out
