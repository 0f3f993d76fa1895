"""One signed move file from a player's view: what ``move --out``, ``play`` on a
view file and ``tui GAME --as P`` write (issue 24).  The one writer of move
files on the player's side; nothing here touches a store."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from cli.choices import signed_texts
from cli.output import out_path, write_file
from core.engine import RulesError
from events import statements
from events.service import ServiceError
from events.signing import public_hex, sign
from events.statements import MOVE_FORMAT, MoveFile
from replay.logfile import LogFile
from replay.sources import fold_log

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


@dataclass(frozen=True)
class WrittenMove:
    path: Path
    game_id: str
    player: str
    seq: int
    commands: tuple[str, ...]
    signed: bool


def move_file_path(log: LogFile, player: str, out: str | Path) -> Path:
    """Where ``player``'s move file at the end of ``log`` goes: ``out``, or under its
    default name (game, seq, player) when ``out`` is a directory."""
    seq = log.lines[-1].seq if log.lines else 0
    return out_path(str(out), f"{log.header.game_id or ''}-seq{seq}-{player}-move.json")


def write_move_file(
    log: LogFile, ref: str, player: str, texts: list[str], out: str | Path,
    private: Callable[[], Ed25519PrivateKey], force: bool = False, *, answered: Path | None = None,
    replace: bool = False,
) -> WrittenMove:
    """``texts`` against the latest position of ``log`` (the player's view), as one
    move file at ``out`` (a file, or a directory for its default name); signed with
    ``private()`` in a play-by-email game.  Raises ServiceError (illegal, or the file
    exists) before anything is written.

    [CL-S17] A signed move is checked against, and added to, the record of her moves
    in the key store ``answered`` (:mod:`cli.answered`) in one step, under its lock:
    a different move at a position she signed one at already is refused (one line,
    nothing written) unless ``replace``; the same move again writes the same bytes
    (an existing file of exactly them is left as it is)."""
    game, _, states = fold_log(log, ref)
    players = log.header.definition.players
    gid = log.header.game_id or ""
    seq = log.lines[-1].seq if log.lines else 0
    head = log.lines[-1].hash if log.lines else ""
    seat = players.index(player)
    pbem = bool(log.header.definition.host_key)
    from cli.answered import view_genesis

    genesis = view_genesis(log) if pbem else ""  # the chain the signed hash is on, not the header's word [CL-S17]
    try:
        formatted = signed_texts(game, game.view(states[-1], seat), seat, texts)
    except RulesError as exc:
        raise ServiceError(str(exc)) from None
    move_file = MoveFile(MOVE_FORMAT, gid, player, seq, head, tuple(formatted), "", "")
    if pbem:
        key = private()
        move_file = msgspec.structs.replace(move_file, public_key=public_hex(key))
        move_file = msgspec.structs.replace(move_file, signature=sign(key, "move", statements.body(move_file)))
    data = statements.encode(move_file)
    if not pbem or answered is None:
        path = move_file_path(log, player, out)
        write_file(path, data, force)
        return WrittenMove(path, gid, player, seq, tuple(formatted), pbem)
    from cli import answered as record

    with record.held(answered):
        new = record.check(answered, move_file, replace, genesis)
        pending = None if replace else record.still_pending(answered, gid, player, move_file.public_key, log, game,
                                                             states, seat)
        if new and pending is not None:
            raise ServiceError(record.pending_refusal(gid, player, pending, seq))
        path = move_file_path(log, player, out)  # (a DIR/ is made: after the check)
        wrote = not (path.is_file() and not path.is_symlink() and path.stat().st_size == len(data)
                     and path.read_bytes() == data)
        if wrote and os.path.lexists(path) and not force:  # refused before anything is recorded
            raise ServiceError(f"{path} exists; not overwritten (use --force)")
        if new:  # the record first, the file after: a crash between leaves no move she has no record of
            record.record(answered, move_file, replaces=replace and bool(record.answers(answered, move_file, genesis)),
                          genesis=genesis)
        if wrote:
            write_file(path, data, force)
    return WrittenMove(path, gid, player, seq, tuple(formatted), pbem)
