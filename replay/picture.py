"""Board pictures of a log: the scene (core/scene.py) at a seq, as SVG."""

from __future__ import annotations

from msgspec.structs import replace

from core.scene import Cell, Scene, scene_at
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


WITNESS = "#d81b60"
"""The outline of a square an explanation names as evidence [GL-4]."""


def highlight(scene: Scene, seat: int, squares: tuple[tuple[int, int], ...], seq: int) -> Scene:
    """``scene`` with ``squares`` of ``seat``'s board marked ``witness`` (an empty
    square the board does not draw is added, blank, to carry the mark) [GL-4]."""
    wanted = set(squares)
    panels = []
    for panel in scene.panels:
        if panel.owner != seat or not wanted:
            panels.append(panel)
            continue
        cells = [replace(c, marks=(*c.marks, "witness")) if (c.row, c.col) in wanted else c for c in panel.cells]
        drawn = {(c.row, c.col) for c in panel.cells}
        for r, c in sorted(wanted - drawn):
            if 0 <= r - panel.top < panel.rows and 0 <= c - panel.left < panel.cols:
                cells.append(Cell(row=r, col=c, kind="empty", colour="#ffffff", marks=("witness",),
                                  detail="named by the explanation"))
        panels.append(replace(panel, cells=tuple(cells)))
    legend = (*scene.legend, (WITNESS, f"evidence for seq {seq} (citylog explain --at {seq})"))
    return replace(scene, panels=tuple(panels), legend=legend)


def picture(log: LogFile, at: int | None = None, player: str | None = None, explain: bool = False) -> str:
    """The SVG of the position after event ``at`` (default: the last); ``explain``:
    the squares ``citylog explain --at AT`` names as evidence outlined [GL-4]."""
    game, events, states = fold_log(log)
    n = len(events)
    at = n if at is None else at
    if not 1 <= at <= n:
        raise ServiceError(f"--at must be between 1 and {n}, not {at}")
    seat = seat_of(log, player)
    scene = scene_at(game, events, states, at, seat, log.header.definition.players)
    if explain and at >= 2:
        found = game.witnesses(states[at - 2], events[at - 1])
        if found is not None:
            scene = highlight(scene, found[0], found[1], at)
    return render(scene)
