"""Test helpers for 5x5 City: drive seeded games, build boards from text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.autoplay import play_game
from core.five_by_five.cards import CATEGORY_KEYS
from core.five_by_five.game import GAME
from core.five_by_five.state import State

Hook = Callable[[State, int, Any, tuple[Any, ...]], None]


def play_5x5(
    seed: str,
    players: Sequence[str] = ("ann", "bob"),
    options: Mapping[str, str] | None = None,
    bots: Sequence[str] | None = None,
    hook: Hook | None = None,
) -> tuple[State, list[Any]]:
    """Play a whole game with bots; ``hook(before, seat, command, events)`` sees every decision."""
    return play_game(GAME, players, seed, bots or ["random"] * len(players), options, hook=hook)


def sides_with(key: str, side: str) -> str:
    """All A sides except card ``key``."""
    return "".join(side if k == key else "A" for k in CATEGORY_KEYS)


def board(text: str) -> tuple[str, ...]:
    """Board-file text (``.`` empty) as 25 cells.

    For examples about other things, a bare ``F``/``S``/``W`` gets a Goods icon
    here, the icons e f c m in turn per kind (a board file must name it, FC-2).
    """
    import re
    from itertools import cycle

    from core.five_by_five.boardfile import parse_board

    icons = {k: cycle("efcm") for k in "FSW"}
    text = re.sub(r"(?<!\S)([FSW])(?!\S)", lambda m: m.group(1) + next(icons[m.group(1)]), text)
    return parse_board(text, "test")
