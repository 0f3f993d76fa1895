"""What a play-by-email log proves about its host and players (issue 10).

* **Seal.**  The host signs (game id, seq, head hash, view) of every export of
  a ``--pbem`` game with the key named in its definition; a cut-off or
  re-headed export no longer matches its seal.
* **Signed moves.**  Each human decision line carries the signed move file
  behind it (each join, the signed join file); anyone can check that every
  move was made by its seat's key, the one recorded when it joined.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from core.engine import CHANCE
from core.seats import Joined
from events.signing import verify_signature
from events.statements import JoinFile, MoveFile
from replay.logfile import Header, LogFile

Sealer = Callable[[dict[str, Any]], str]
"""Signs a seal body (domain ``export``) with the host's key; returns hex."""

_dec = msgspec.json.Decoder(dict[str, Any])


def seal_body(log: LogFile) -> dict[str, Any]:
    last = log.lines[-1] if log.lines else None
    return {
        "game_id": log.header.game_id,
        "seq": last.seq if last else 0,
        "head": last.hash if last else "",
        "view": log.header.view,
    }


def seal(log: LogFile, sealer: Sealer) -> Header:
    return msgspec.structs.replace(log.header, seal=sealer(seal_body(log)))


def check_seal(log: LogFile) -> str | None:
    """Why the export's seal fails, or None (only play-by-email games are sealed)."""
    host = log.header.definition.host_key
    if not host:
        return None
    if not log.header.seal:
        return "the export is not sealed by the host (a play-by-email export must be)"
    if not verify_signature(host, "export", seal_body(log), log.header.seal):
        return (
            "the host's seal does not match this export's game, last seq, head hash and view "
            "(cut off, re-headed or not the host's)"
        )
    return None


def attach_signed(log: LogFile, signed: Mapping[int, bytes]) -> None:
    """Put each signed statement on the line it opened.  In a view, a statement any
    of whose lines is redacted is left out (it would show the hidden cards)."""
    if not signed:
        return
    redacted = {x.seq for x in log.lines if x.redacted}
    hidden = {st for seq, st in signed.items() if seq in redacted}
    for i, line in enumerate(log.lines):
        st = signed.get(line.seq)
        if st is not None and st not in hidden:
            log.lines[i] = msgspec.structs.replace(line, signed=_dec.decode(st))


def signed_bytes(statement: dict[str, Any]) -> bytes:
    """A line's signed statement as the store keeps it (canonical JSON)."""
    return msgspec.json.Encoder(order="sorted").encode(statement) + b"\n"


def check_signed(log: LogFile, game: Any, events: Sequence[Any]) -> tuple[int, str] | tuple[None, int]:
    """Every join and human move against the signed file on its line.

    Returns ``(seq, why)`` of the first failure, else ``(None, number checked)``.
    A line of a view whose statement was left out (hidden cards) is not checked.
    """
    d, h = log.header.definition, log.header
    if not d.host_key:
        return None, 0
    keys: dict[int, str] = {}
    used: dict[str, int] = {}
    checked = 0
    for line, e in zip(log.lines, events, strict=True):
        st = line.signed
        if type(e) is Joined:
            if st is None:
                return line.seq, "a join without its signed join file"
            try:
                jf = msgspec.convert(st, JoinFile)
            except msgspec.ValidationError:
                return line.seq, "the signed statement on a join line is not a join file"
            name = d.players[e.seat] if 0 <= e.seat < len(d.players) else ""
            if (jf.player, jf.public_key, jf.entropy, jf.game_id) != (name, e.public_key, e.entropy, h.game_id):
                return line.seq, "the join line differs from its signed join file"
            if not jf.signed():
                return line.seq, f"{name}'s join file is not signed by the key it carries"
            keys[e.seat] = e.public_key
            checked += 1
            continue
        opened = game.command_of(e)
        if opened is None or opened[0] == CHANCE:
            continue
        seat, command = opened
        if st is None:
            if h.view is not None:
                continue  # left out of a view: it would show hidden cards
            return line.seq, "a human move without its signed move file"
        try:
            mv = msgspec.convert(st, MoveFile)
        except msgspec.ValidationError:
            return line.seq, "the signed statement on a move line is not a move file"
        name = d.players[seat] if 0 <= seat < len(d.players) else ""
        if mv.player != name or mv.game_id != h.game_id:
            return line.seq, f"the move file on this line is {mv.player}'s for game {mv.game_id}, not {name}'s"
        if seat not in keys or not mv.signs_with(keys[seat]):
            return line.seq, f"the move is not signed by {name}'s key (a forgery)"
        k = used.get(mv.signature, 0)
        used[mv.signature] = k + 1
        cmds = mv.all_commands
        if k >= len(cmds) or (not line.redacted and cmds[k] != game.format_command(command)):
            return line.seq, f"the move on this line is not the one {name} signed"
        checked += 1
    return None, checked
