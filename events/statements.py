"""The signed files of play by email: move files, invites, joins, reveals.

Each is a small JSON object; the fields but ``signature`` are what its author
signs (:mod:`events.signing`, domain = the statement's kind).  A move file
names the position it was made against (game, seq and hash) and one or more
commands (a player's whole construction phase, say); a join names the exact
genesis it answers (the definition: salted seed commitment, host key), the
player's public key, fresh entropy for the deal and the proof that its sender
holds the seat's invitation; an invite, signed by the host, names the game,
its definition, the seat's one-time secret and, when the host knows it, the
invited player's key.

**Entropy committed, then revealed** (ruling CL-S7).  In a game of entropy
scheme 2 (every new game by email) a join (``citylog-join/3``) carries only a
salted commitment to its entropy; once every seat's join is chained, each
player sends a reveal (``citylog-reveal/1``: the entropy and salt, made at the
position after the last join).  No party, host or puppet seat, can choose its
entropy after seeing another's: all are fixed before any is shown.

**One statement, one encoding** (issue 22).  Every statement has exactly one
byte encoding: canonical JSON (keys sorted, no whitespace, every field
present, no unknown field), hex in lower case of a fixed length, names as the
definition spells them.  :func:`decode` accepts a file only if it *is* that
encoding (decoding then re-encoding gives the same bytes, up to one trailing
newline), so a mutated file is refused or decodes to the identical statement;
what the store keeps and what an export shows is that encoding.

Older formats (``citylog-move/1``, ``citylog-move/2``, ``citylog-join/1``,
``citylog-invite/1``) are refused with a one-line reason: they had no single
encoding and an unbound seat, and they are short-lived files (a move is remade
from the player's view, a join from a new invitation).
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING, Any

import msgspec

from events.envelope import GameDefinition
from events.signing import (
    KEY_HEX,
    SIG_HEX,
    canonical_match,
    hex_bytes,
    message,
    public_hex,
    sign,
    verify_signature,
)

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

MOVE_FORMAT = "citylog-move/3"
JOIN_FORMAT = "citylog-join/2"
"""A join carrying its entropy in the clear: games of entropy scheme 1 only."""
COMMITTED_JOIN_FORMAT = "citylog-join/3"
"""A join carrying only a salted commitment to its entropy (entropy scheme 2) [CL-S7]."""
REVEAL_FORMAT = "citylog-reveal/1"
"""A seat's entropy and salt, revealed once every seat's commitment is chained [CL-S7]."""
INVITE_FORMAT = "citylog-invite/2"
HANDOVER_FORMAT = "citylog-handover/1"
OLD_FORMATS = ("citylog-move/1", "citylog-move/2", "citylog-join/1", "citylog-invite/1")

HASH_HEX = 64
"""A chain hash or genesis: sha256, 64 lower-case hex digits."""
ENTROPY_HEX = 32
"""A join's entropy: exactly 16 random bytes (a longer one would make every later
view heavier; one player could brick the game)."""
SALT_HEX = 32
"""A committed join's salt: 16 bytes."""
SECRET_HEX = 64
"""A seat's one-time secret and the proof made with it: 32 bytes."""
MAX_TEXT = 200
"""Longest game id, player name or command text in a statement."""
MAX_COMMANDS = 64
MAX_SEQ = 10**9


class StatementError(ValueError):
    """A file that is not a citylog move file, join or invitation."""


class _Strict(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Every field required, no unknown field: one encoding per value."""


class MoveFile(_Strict, frozen=True):
    """A move sent by email: the commands and the position they were made against.
    ``public_key`` and ``signature`` are empty in a game not played by email."""

    format: str
    game_id: str
    player: str
    seq: int
    hash: str
    commands: tuple[str, ...]
    public_key: str
    signature: str

    @property
    def all_commands(self) -> tuple[str, ...]:
        return self.commands

    def signs_with(self, public_key: str) -> bool:
        """Signed by ``public_key`` (compared as bytes)."""
        mine, theirs = hex_bytes(self.public_key, KEY_HEX), hex_bytes(public_key, KEY_HEX)
        return (
            mine is not None and mine == theirs
            and verify_signature(public_key, "move", body(self), self.signature)
        )


class JoinFile(_Strict, frozen=True):
    format: str
    game_id: str
    genesis: str
    """The genesis hash of the game joined (its definition: commitment, host key)."""
    player: str
    public_key: str
    entropy: str
    seat_proof: str
    """HMAC, keyed by the seat's one-time secret (from its invitation), over the
    rest of the join: proves the sender was invited to the seat without showing
    the secret to anyone who later sees the join."""
    signature: str

    def signed(self) -> bool:
        return verify_signature(self.public_key, "join", body(self), self.signature)


class CommittedJoin(_Strict, frozen=True):
    """A join of entropy scheme 2 (ruling CL-S7): like :class:`JoinFile`, but the
    entropy is not in it, only ``entropy_commitment`` (:func:`core.seats.entropy_commitment`
    of the entropy and a per-join salt).  Nobody, host included, learns the entropy
    before every seat's commitment is chained; it is revealed then by a
    :class:`Reveal`.  Entropy and salt derive from the player's private key and
    the game's genesis (:func:`join_entropy`), so she needs no state to reveal."""

    format: str
    game_id: str
    genesis: str
    player: str
    public_key: str
    entropy_commitment: str
    seat_proof: str
    signature: str

    def signed(self) -> bool:
        return verify_signature(self.public_key, "join", body(self), self.signature)


class Reveal(_Strict, frozen=True):
    """A seat's entropy and salt (entropy scheme 2, ruling CL-S7), made at the
    position after the last join (its ``seq`` and ``hash``), signed with the key
    the seat joined with (domain ``reveal``)."""

    format: str
    game_id: str
    genesis: str
    player: str
    public_key: str
    entropy: str
    salt: str
    seq: int
    hash: str
    signature: str

    def signs_with(self, public_key: str) -> bool:
        mine, theirs = hex_bytes(self.public_key, KEY_HEX), hex_bytes(public_key, KEY_HEX)
        return (
            mine is not None and mine == theirs
            and verify_signature(public_key, "reveal", body(self), self.signature)
        )


class Invite(_Strict, frozen=True):
    format: str
    game_id: str
    player: str
    definition: GameDefinition
    player_key: str
    """The invited player's public key when the host knows it ("" otherwise):
    the secret below then works only with that key."""
    seat_secret: str
    """The seat's one-time secret: only the invitee receives it."""
    signature: str

    def signed(self) -> bool:
        return verify_signature(self.definition.host_key, "invite", body(self), self.signature)


class HandOver(_Strict, frozen=True):
    """A player hands her seat to the timeout bot (``bot`` true) or takes it back
    (issue 24) [CL-T5]: made at a position (game, seq, hash) like a move file,
    signed with the key her seat joined with."""

    format: str
    game_id: str
    player: str
    seq: int
    hash: str
    bot: bool
    public_key: str
    signature: str

    def signs_with(self, public_key: str) -> bool:
        mine, theirs = hex_bytes(self.public_key, KEY_HEX), hex_bytes(public_key, KEY_HEX)
        return (
            mine is not None and mine == theirs
            and verify_signature(public_key, "handover", body(self), self.signature)
        )


Statement = MoveFile | JoinFile | CommittedJoin | Reveal | Invite | HandOver
AnyJoin = JoinFile | CommittedJoin
_KINDS: dict[str, Any] = {
    MOVE_FORMAT: MoveFile, JOIN_FORMAT: JoinFile, COMMITTED_JOIN_FORMAT: CommittedJoin,
    REVEAL_FORMAT: Reveal, INVITE_FORMAT: Invite, HANDOVER_FORMAT: HandOver,
}
_enc = msgspec.json.Encoder(order="sorted")


class _Peek(msgspec.Struct):
    format: str


def body(statement: Statement) -> dict[str, Any]:
    """What the signature covers: every field but ``signature``."""
    fields: dict[str, Any] = msgspec.to_builtins(statement)
    fields.pop("signature", None)
    return fields


def encode(statement: Statement) -> bytes:
    """The one encoding of a statement (what the store keeps and exports show)."""
    return _enc.encode(statement) + b"\n"


def _text_problem(what: str, text: str) -> str | None:
    if not text or len(text) > MAX_TEXT:
        return f"{what} must be 1 to {MAX_TEXT} characters"
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or 0xD800 <= ord(c) < 0xE000 for c in text):
        return f"{what} must not contain control characters"
    if text != text.strip():
        return f"{what} must not start or end with spaces"
    return None


def _hex_problem(what: str, text: str, length: int, empty: bool = False) -> str | None:
    if empty and text == "":
        return None
    if hex_bytes(text, length) is None:
        return f"{what} must be {length} lower-case hex digits"
    return None


def problem(st: Statement) -> str | None:
    """Why a decoded statement is not well-formed (lengths, hex, names), or None."""
    checks: list[str | None] = [
        None if st.format in _KINDS and _KINDS[st.format] is type(st) else "a wrong format for this statement",
        _text_problem("game_id", st.game_id),
        _text_problem("player", st.player),
    ]
    if isinstance(st, MoveFile):
        checks += [
            None if 0 <= st.seq <= MAX_SEQ else f"seq must be 0 to {MAX_SEQ}",
            _hex_problem("hash", st.hash, HASH_HEX),
            None if 1 <= len(st.commands) <= MAX_COMMANDS else f"a move file holds 1 to {MAX_COMMANDS} commands",
            *(_text_problem("a command", c) for c in st.commands),
            _hex_problem("public_key", st.public_key, KEY_HEX, empty=True),
            _hex_problem("signature", st.signature, SIG_HEX, empty=True),
        ]
    elif isinstance(st, Reveal):
        checks += [
            _hex_problem("genesis", st.genesis, HASH_HEX),
            _hex_problem("public_key", st.public_key, KEY_HEX),
            _hex_problem("entropy", st.entropy, ENTROPY_HEX),
            _hex_problem("salt", st.salt, SALT_HEX),
            None if 1 <= st.seq <= MAX_SEQ else f"seq must be 1 to {MAX_SEQ}",
            _hex_problem("hash", st.hash, HASH_HEX),
            _hex_problem("signature", st.signature, SIG_HEX),
        ]
    elif isinstance(st, CommittedJoin):
        checks += [
            _hex_problem("genesis", st.genesis, HASH_HEX),
            _hex_problem("public_key", st.public_key, KEY_HEX),
            _hex_problem("entropy_commitment", st.entropy_commitment, HASH_HEX),
            _hex_problem("seat_proof", st.seat_proof, SECRET_HEX),
            _hex_problem("signature", st.signature, SIG_HEX),
        ]
    elif isinstance(st, HandOver):
        checks += [
            None if 0 <= st.seq <= MAX_SEQ else f"seq must be 0 to {MAX_SEQ}",
            _hex_problem("hash", st.hash, HASH_HEX),
            _hex_problem("public_key", st.public_key, KEY_HEX),
            _hex_problem("signature", st.signature, SIG_HEX),
        ]
    elif isinstance(st, JoinFile):
        checks += [
            _hex_problem("genesis", st.genesis, HASH_HEX),
            _hex_problem("public_key", st.public_key, KEY_HEX),
            _hex_problem("entropy", st.entropy, ENTROPY_HEX),
            _hex_problem("seat_proof", st.seat_proof, SECRET_HEX),
            _hex_problem("signature", st.signature, SIG_HEX),
        ]
    else:
        d = st.definition
        checks += [
            _hex_problem("player_key", st.player_key, KEY_HEX, empty=True),
            _hex_problem("seat_secret", st.seat_secret, SECRET_HEX),
            _hex_problem("the definition's host_key", d.host_key, KEY_HEX),
            _hex_problem("signature", st.signature, SIG_HEX),
            None if st.player in d.players else "the invited player is not one of the game's players",
        ]
    return next((c for c in checks if c is not None), None)


def decode(data: bytes, source: str) -> Statement:
    """A move, join or invite file in its one encoding; ``StatementError`` names what is wrong."""
    what = "not a citylog move file, join, invitation or hand-over"
    try:
        fmt = msgspec.json.decode(data, type=_Peek).format
        kind = _KINDS.get(fmt)
        if kind is None:
            if fmt in OLD_FORMATS:
                raise StatementError(f"{source}: an older citylog's file ({fmt}); make it again with this version")
            raise StatementError(f"{source}: {what} (unknown format)")
        out: Statement = msgspec.json.decode(data, type=kind)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
        raise StatementError(f"{source}: {what} ({why})") from None
    bad = problem(out)
    if bad is not None:
        raise StatementError(f"{source}: {what} ({bad})")
    if not canonical_match(data, encode(out)):
        raise StatementError(
            f"{source}: not in its one canonical spelling (sorted keys, no spaces, lower-case hex, "
            "no escapes); a signed file is accepted only exactly as citylog writes it"
        )
    return out


def line_bytes(signed: dict[str, Any], source: str = "the signed statement") -> bytes:
    """The bytes of the statement an exported line carries (``signed``), as :func:`decode` reads them."""
    try:
        return _enc.encode(signed) + b"\n"
    except (TypeError, msgspec.EncodeError, OverflowError, RecursionError):
        raise StatementError(f"{source}: not a citylog move file, join or invitation") from None


def from_line(signed: dict[str, Any], source: str) -> Statement:
    """The statement an exported line carries (``signed``), held to the same law."""
    return decode(line_bytes(signed, source), source)


# -- seats bound to invitations ------------------------------------------------


def seat_secret(seed: str, salt: str | None, genesis: str, seat: int, player_key: str = "") -> str:
    """The one-time secret of ``seat`` (hex), bound to ``player_key`` when the host
    knows the invitee's key.  Derived from the host's salted secret, so the host
    need not store it and nobody else can compute it before the seed is revealed."""
    key = b"citylog-seat-v1:" + (salt or "").encode() + b":" + seed.encode()
    return hmac.digest(key, f"{genesis}:{seat}:{player_key}".encode(), "sha256").hex()


def seat_proof(secret: str, jf: AnyJoin) -> str:
    """The proof a join presents: HMAC(secret, the join without proof and signature)."""
    fields = body(jf)
    fields.pop("seat_proof", None)
    raw = hex_bytes(secret, SECRET_HEX) or b""
    return hmac.digest(raw, message("seat-proof", fields), "sha256").hex()


def proves_seat(jf: AnyJoin, seed: str, salt: str | None, genesis: str, seat: int) -> bool:
    """The join holds the seat's invitation: an unbound one, or one bound to its key."""
    given = hex_bytes(jf.seat_proof, SECRET_HEX)
    if given is None:
        return False
    for bound in ("", jf.public_key):
        expected = bytes.fromhex(seat_proof(seat_secret(seed, salt, genesis, seat, bound), jf))
        if hmac.compare_digest(given, expected):
            return True
    return False


# -- making signed statements ---------------------------------------------------


def signed_move(
    key: Ed25519PrivateKey, game_id: str, player: str, seq: int, head: str, commands: tuple[str, ...]
) -> MoveFile:
    """A move file made at (seq, head), signed with ``key``."""
    mv = MoveFile(MOVE_FORMAT, game_id, player, seq, head, tuple(commands), public_hex(key), "")
    return msgspec.structs.replace(mv, signature=sign(key, "move", body(mv)))


def signed_join(
    key: Ed25519PrivateKey, game_id: str, genesis: str, player: str, entropy: str, secret: str
) -> JoinFile:
    """A join answering the game of ``genesis``, proving the seat's ``secret``, signed with ``key``."""
    jf = JoinFile(JOIN_FORMAT, game_id, genesis, player, public_hex(key), entropy, "", "")
    jf = msgspec.structs.replace(jf, seat_proof=seat_proof(secret, jf))
    return msgspec.structs.replace(jf, signature=sign(key, "join", body(jf)))


def join_entropy(key: Ed25519PrivateKey, genesis: str) -> tuple[str, str]:
    """A player's (entropy, salt) for the game of ``genesis`` (hex, 16 bytes each):
    HMAC-SHA256 keyed by her raw private key over the genesis, so she can make her
    reveal again from her key and any view of the game, with no state to lose, and
    nobody without her private key can compute it [CL-S7].  (Each game's genesis
    holds its seed's random salted commitment, so no two games share it.)"""
    from cryptography.hazmat.primitives import serialization

    raw = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    entropy = hmac.digest(raw, f"citylog-join-entropy-v1:{genesis}".encode(), "sha256")[: ENTROPY_HEX // 2]
    salt = hmac.digest(raw, f"citylog-join-salt-v1:{genesis}".encode(), "sha256")[: SALT_HEX // 2]
    return entropy.hex(), salt.hex()


def signed_committed_join(
    key: Ed25519PrivateKey, game_id: str, genesis: str, player: str, secret: str,
    entropy: tuple[str, str] | None = None,
) -> CommittedJoin:
    """A join of entropy scheme 2 answering the game of ``genesis``: its commitment
    to the player's :func:`join_entropy` (or ``entropy``: (entropy, salt), for
    tests), the seat's proof and her signature [CL-S7]."""
    from core.seats import entropy_commitment

    value, salt = entropy if entropy is not None else join_entropy(key, genesis)
    jf = CommittedJoin(COMMITTED_JOIN_FORMAT, game_id, genesis, player, public_hex(key),
                       entropy_commitment(value, salt), "", "")
    jf = msgspec.structs.replace(jf, seat_proof=seat_proof(secret, jf))
    return msgspec.structs.replace(jf, signature=sign(key, "join", body(jf)))


def signed_reveal(
    key: Ed25519PrivateKey, game_id: str, genesis: str, player: str, seq: int, head: str,
    entropy: tuple[str, str] | None = None,
) -> Reveal:
    """The reveal of ``player``'s entropy (her :func:`join_entropy`, or ``entropy``)
    answering the position (``seq``, ``head``) after the last join [CL-S7]."""
    value, salt = entropy if entropy is not None else join_entropy(key, genesis)
    rv = Reveal(REVEAL_FORMAT, game_id, genesis, player, public_hex(key), value, salt, seq, head, "")
    return msgspec.structs.replace(rv, signature=sign(key, "reveal", body(rv)))


def signed_handover(key: Ed25519PrivateKey, game_id: str, player: str, seq: int, head: str, bot: bool) -> HandOver:
    """A hand-over of ``player``'s seat to the bot (``bot``) or back, made at (seq, head) [CL-T5]."""
    ho = HandOver(HANDOVER_FORMAT, game_id, player, seq, head, bool(bot), public_hex(key), "")
    return msgspec.structs.replace(ho, signature=sign(key, "handover", body(ho)))
