""""What would a good player do here?" — the search bot's choice, from one player's view.

:func:`hint` takes a player's view log (``replay.sources.open_log(service, ref,
player)``, the one redaction path), folds it, and searches from the view it
folds to: the true state is never read, so a hint cannot reveal hidden
information.  The stream is derived from the view's last line hash (public to
the player) and the player, so the same view gives the same hint.
"""

from __future__ import annotations

from typing import Any

import msgspec

from core.engine import CHANCE
from core.mcts import Budget, search
from core.rng import Rng
from events.service import ServiceError
from replay.logfile import LogFile
from replay.sources import fold_log, view_seat


class Alternative(msgspec.Struct, frozen=True):
    command: str
    visits: int
    value: float
    """Mean search reward for the player, 0–1: a win share (with a little for the
    margin) where the game is played out (Card City; 5x5 City, flat, on greedy
    playouts), the estimated lead squashed into 0–1 where the game gives an
    estimate (Point City); 0.5 is level."""


class Hint(msgspec.Struct, frozen=True):
    player: str
    seq: int
    playouts: int
    best: str
    value: float
    alternatives: tuple[Alternative, ...]
    """Every legal command, the best first."""


def hint(log: LogFile, playouts: int = 0, seed: str = "") -> Hint:
    """The search's choice for the log's player (0 playouts: the game's default,
    what the ``mcts`` bot searches)."""
    seat = view_seat(log)
    if seat is None:
        raise ServiceError("a hint is computed from a player's view: give --as PLAYER")
    game, _, states = fold_log(log)
    player = log.header.definition.players[seat]
    seen = game.view(states[-1], seat)
    actors = game.to_act(seen)
    if not actors:
        raise ServiceError("the game is over")
    if seat not in actors:
        waiting = "a chance outcome" if actors == (CHANCE,) else ", ".join(
            game.players(seen)[a] for a in actors if a >= 0
        )
        raise ServiceError(f"it is not {player}'s turn (waiting for {waiting})")
    last = log.lines[-1] if log.lines else None
    key = f"citylog/hint/{seed}/{last.hash if last else ''}/{player}".encode()
    playouts = playouts or game.search.playouts
    choices = search(game, seen, seat, Rng(key), Budget(playouts))
    alternatives = tuple(Alternative(game.format_command(c.command), c.visits, c.value) for c in choices)
    seq = last.seq if last else 0
    return Hint(player, seq, playouts, alternatives[0].command, alternatives[0].value, alternatives)


VALUE_LABEL = "estimated win chance"
"""What a hint's percentage is called: the search's mean reward for the player
(:attr:`Alternative.value`), mostly the share of playouts won, a little the score
margin, so it reads as an estimated chance of winning (issue 26)."""


def describe(h: Hint, limit: int = 8) -> list[str]:
    """Readable lines: the choice, then the alternatives by visits."""
    out = [f"{h.player}: play '{h.best}' ({VALUE_LABEL} {h.value:.0%}, {h.playouts} playouts at seq {h.seq})"]
    for a in h.alternatives[:limit]:
        word = "playout " if a.visits == 1 else "playouts"  # '1 playout', aligned with the others
        out.append(f"  {a.command:<32} {a.visits:>6} {word}  {VALUE_LABEL} {a.value:.0%}")
    if len(h.alternatives) > limit:
        out.append(f"  … {len(h.alternatives) - limit} more legal commands")
    return out


def as_data(h: Hint) -> dict[str, Any]:
    return msgspec.to_builtins(h)
