"""Board pictures of a log: the scene (core/scene.py) at a seq, as SVG."""

from __future__ import annotations

from core.scene import scene_at
from events.service import ServiceError
from replay.logfile import LogFile
from replay.sources import fold_log
from replay.svg import render


def seat_of(log: LogFile, player: str | None) -> int | None:
    """The seat whose view to draw: ``player``, or the file's own view; None: the referee."""
    players = log.header.definition.players
    owner = log.header.view
    if player is None:
        player = owner
    if player is None:
        return None
    if player not in players:
        raise ServiceError(f"no player {player!r} in this game (players: {', '.join(players)})")
    if owner is not None and player != owner:
        raise ServiceError(f"this file is {owner}'s view; it cannot show {player}'s")
    return players.index(player)


def picture(log: LogFile, at: int | None = None, player: str | None = None) -> str:
    """The SVG of the position after event ``at`` (default: the last)."""
    game, events, states = fold_log(log)
    n = len(events)
    at = n if at is None else at
    if not 1 <= at <= n:
        raise ServiceError(f"--at must be between 1 and {n}, not {at}")
    seat = seat_of(log, player)
    return render(scene_at(game, events, states, at, seat, log.header.definition.players))
