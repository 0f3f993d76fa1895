"""Test helpers for 5x5 City: drive seeded games, build boards from text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.engine import CHANCE, checked_decide
from core.five_by_five.cards import CATEGORY_KEYS
from core.five_by_five.game import GAME
from core.five_by_five.state import State
from core.rng import Rng

Hook = Callable[[State, int, Any, tuple[Any, ...]], None]


def play(
    seed: str,
    players: Sequence[str] = ("ann", "bob"),
    options: Mapping[str, str] | None = None,
    bots: Sequence[str] | None = None,
    hook: Hook | None = None,
) -> tuple[State, list[Any]]:
    """Play a whole game with bots; ``hook(before, seat, command, events)`` sees every decision."""
    bots = bots or ["random"] * len(players)
    events: list[Any] = [GAME.create(players, options or {})]
    s = GAME.apply(None, events[0])
    while True:
        actors = GAME.to_act(s)
        if not actors:
            return s, events
        rng = Rng.derive(seed, len(events) + 1)
        if actors == (CHANCE,):
            seat, cmd = CHANCE, GAME.chance(s, rng)
        else:
            seat = actors[0]
            cmd = GAME.bots[bots[seat]](GAME, s, seat, Rng.derive(seed, len(events) + 1, "bot"))
        evs = checked_decide(GAME, s, seat, cmd)
        if hook is not None:
            hook(s, seat, cmd, evs)
        for e in evs:
            s = GAME.apply(s, e)
        events.extend(evs)


def sides_with(key: str, side: str) -> str:
    """All A sides except card ``key``."""
    return "".join(side if k == key else "A" for k in CATEGORY_KEYS)


def board(text: str) -> tuple[str, ...]:
    """Board-file text (``.`` empty) as 25 cells."""
    from core.five_by_five.boardfile import parse_board

    return parse_board(text, "test")
