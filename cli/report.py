"""What a command just wrote: the events, as the player who acted may see them.

Shared by ``move``, ``autoplay``, ``apply`` and the ``play`` prompt.
"""

from __future__ import annotations

from typing import Any

from cli.arguments import seat_names
from cli.output import emit_json, say
from core.engine import CHANCE
from events.service import GameService


def report(svc: GameService, gid: str, written: list[Any], json: bool, seat: int | None = None) -> None:
    """The events just written: as ``seat`` may see them, or all of them (the host's
    ``apply``, ``seat`` None; its output is for the host, not for a player)."""
    loaded = svc.load(gid)
    if json:
        emit_json(
            {
                "game_id": gid,
                "seq": loaded.version,
                "written": [w.seq for w in written],
                "to_act": seat_names(loaded.players, loaded.game.to_act(loaded.state)),
                "over": loaded.game.result(loaded.state) is not None,
            }
        )
        return
    by_seq = {r.seq: e for r, e in zip(loaded.records, loaded.events, strict=True)}
    game = loaded.game
    for w in written:
        e = by_seq[w.seq] if seat is None or seat == CHANCE else game.redact(by_seq[w.seq], seat)
        say(f"{w.seq:>5}  {game.describe(e, loaded.players)}")
