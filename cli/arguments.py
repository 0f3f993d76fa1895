"""What the commands' arguments and options mean: players, options, bots, seats.

Shared by the command modules (``new``, ``simulate``, ``import``, ``move``,
``legal``), so that none imports another command module for them.
"""

from __future__ import annotations

from typing import Any

from core.engine import CHANCE
from events.service import ServiceError, check_players


def parse_players(text: str, game: str | None = None) -> list[str]:
    """``N`` (players p1…pN) or names ``alice,bob``; a count outside what ``game``
    takes is refused with the game's own range ("Card City takes 1–4 players")."""
    text = text.strip()
    if text.lstrip("+-").isdigit():
        n = int(text)
        spec = _spec(game)
        if spec is not None and not spec.min_players <= n <= spec.max_players:
            raise ServiceError(f"{spec.title} takes {spec.min_players}–{spec.max_players} players, not {text}")
        if not 1 <= n <= 8:
            raise ServiceError(f"--players takes a count of players (1–4 in each game), not {text}")
        return [f"p{i + 1}" for i in range(n)]
    names = [p.strip() for p in text.split(",")]
    check_players(names)
    return names


def _spec(game: str | None) -> Any:
    """The game's spec, or None for an unknown name (the service names the error)."""
    if game is None:
        return None
    from core import registry

    try:
        return registry.get(game).spec
    except registry.UnknownGame:
        return None


def parse_options(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ServiceError(f"--option takes KEY=VALUE, not {item!r}")
        out[key.strip()] = value.strip()
    return out


def parse_bots(text: str | None, players: list[str]) -> dict[int, str]:
    """``POLICY`` (every seat) or ``SEAT=POLICY,…`` (seat by name or number from 0)."""
    if not text:
        return {}
    if "=" not in text:
        return dict.fromkeys(range(len(players)), text)
    out = {}
    for part in text.split(","):
        who, _, policy = part.partition("=")
        who = who.strip()
        if who in players:
            out[players.index(who)] = policy.strip()
        elif who.isdigit() and int(who) < len(players):
            out[int(who)] = policy.strip()
        else:
            raise ServiceError(f"--bots: no player {who!r}")
    return out


def seat_names(players: tuple[str, ...], seats: tuple[int, ...]) -> list[str]:
    return ["chance" if s == CHANCE else players[s] for s in seats]


def legal_commands(game: Any, state: Any, seat: int) -> list[str]:
    """A seat's legal commands as text (none when it is not theirs to act)."""
    if seat not in game.to_act(state):
        return []
    return [game.format_command(c) for c in game.legal(state, seat)]
