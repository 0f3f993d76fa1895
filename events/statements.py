"""The signed files of play by email: move files, invites, joins.

Each is a small JSON object; the fields but ``signature`` are what its author
signs (:mod:`events.signing`, domain = the statement's kind).  A move file
names the position it was made against (seq and hash) and one or more
commands (a player's whole construction phase, say); a join carries the
player's public key and fresh entropy for the deal; an invite, signed by the
host, names the game and its definition (seed commitment and host key).
"""

from __future__ import annotations

from typing import Any

import msgspec

from events.envelope import GameDefinition
from events.signing import verify_signature

MOVE_FORMAT_V1 = "citylog-move/1"
MOVE_FORMAT = "citylog-move/2"
JOIN_FORMAT = "citylog-join/1"
INVITE_FORMAT = "citylog-invite/1"


class StatementError(ValueError):
    """A file that is not a citylog move file, join or invitation."""


class MoveFile(msgspec.Struct, frozen=True):
    """A move sent by email: the commands and the position they were made against."""

    format: str
    game_id: str
    player: str
    seq: int
    hash: str
    command: str = ""
    """The one command of a ``citylog-move/1`` file."""
    commands: tuple[str, ...] = ()
    public_key: str = ""
    signature: str = ""

    @property
    def all_commands(self) -> tuple[str, ...]:
        return self.commands or ((self.command,) if self.command else ())

    def signs_with(self, public_key: str) -> bool:
        return bool(self.signature) and self.public_key == public_key and verify_signature(
            public_key, "move", body(self), self.signature
        )


class JoinFile(msgspec.Struct, frozen=True):
    format: str
    game_id: str
    genesis: str
    """The genesis hash of the game joined (its definition: commitment, host key)."""
    player: str
    public_key: str
    entropy: str
    signature: str = ""

    def signed(self) -> bool:
        return bool(self.signature) and verify_signature(self.public_key, "join", body(self), self.signature)


class Invite(msgspec.Struct, frozen=True):
    format: str
    game_id: str
    player: str
    definition: GameDefinition
    signature: str = ""

    def signed(self) -> bool:
        return bool(self.signature) and verify_signature(
            self.definition.host_key, "invite", body(self), self.signature
        )


Statement = MoveFile | JoinFile | Invite
_KINDS: dict[str, Any] = {
    MOVE_FORMAT_V1: MoveFile,
    MOVE_FORMAT: MoveFile,
    JOIN_FORMAT: JoinFile,
    INVITE_FORMAT: Invite,
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
    return _enc.encode(statement) + b"\n"


def decode(data: bytes, source: str) -> Statement:
    """A move, join or invite file; ``StatementError`` names what is wrong."""
    try:
        kind = _KINDS.get(msgspec.json.decode(data, type=_Peek).format)
        if kind is None:
            raise StatementError(f"{source}: not a citylog move file, join or invitation (unknown format)")
        out: Statement = msgspec.json.decode(data, type=kind)
        return out
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
        raise StatementError(f"{source}: not a citylog move file, join or invitation ({why})") from None
