"""Test helpers for Point City: drive seeded games, lay out hand-made tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from core.autoplay import play_game
from core.engine import CHANCE, checked_decide
from core.rng import Rng
from core.point_city.cards import CARDS, Card
from core.point_city.game import GAME
from core.point_city.state import Seat, Slot, State

Hook = Callable[[State, int, Any, tuple[Any, ...]], None]


def play_point_city(
    seed: str,
    n: int = 2,
    bots: Sequence[str] | None = None,
    options: Mapping[str, str] | None = None,
    hook: Hook | None = None,
) -> tuple[State, list[Any]]:
    """A whole seeded game; ``hook(before, seat, command, events)`` sees every decision."""
    players = [f"p{i}" for i in range(n)]
    return play_game(GAME, players, seed, bots or ["random"] * n, options, hook=hook)


def cards(pred: Callable[[Card], bool], k: int = 1, skip: Iterable[int] = ()) -> list[int]:
    """The first ``k`` card ids matching ``pred`` (in id order), not in ``skip``."""
    avoid = set(skip)
    out = [c.id for c in sorted(CARDS.values(), key=lambda c: c.id) if pred(c) and c.id not in avoid]
    assert len(out) >= k, "not enough such cards"
    return out[:k]


def cell(name: str) -> int:
    return (int(name[1]) - 1) * 4 + "ABCD".index(name[0].upper())


def table(
    market: Mapping[str, tuple[int, bool]] | None = None,
    hands: Sequence[Sequence[int]] = ((),),
    builds: Sequence[Sequence[int]] = ((),),
    top: int = 0,
    hidden: tuple[int, int, int] = (0, 0, 0),
    display: tuple[int, ...] = (1, 2, 3),
    solo_level: int = 0,
    **extra: Any,
) -> State:
    """A hand-made table at the start of seat 0's turn.

    Cells not named hold tier-1 resource cards not used elsewhere; unseen
    cards are whatever tier cards are not on the table (counts per ``hidden``).
    """
    n = len(hands)
    builds = list(builds) + [()] * (n - len(builds))
    market = dict(market or {})
    used = {c for c, _ in market.values()} | {c for h in hands for c in h}
    used |= {c for b in builds for c in b} | ({top} if top else set())
    filler = iter(cards(lambda c: c.tier == 1, 16, used))
    slots = []
    for i in range(16):
        name = "ABCD"[i % 4] + str(i // 4 + 1)
        card, building = market.get(name, (0, False))
        if not card:
            card = next(filler)
        used.add(card)
        slots.append(Slot(card, building))
    unseen = tuple(tuple(c.id for c in sorted(CARDS.values(), key=lambda c: c.id)
                         if c.tier == t and c.id not in used) for t in (1, 2, 3))
    base = GAME.apply(None, GAME.create([f"p{i}" for i in range(n)],
                                        {"solo-level": str(solo_level or 1)}))
    fields: dict[str, Any] = dict(
        step="turn", turn=0, round=1, market=tuple(slots), top=top, hidden=hidden,
        unseen=unseen, display=display,
        seats=tuple(Seat(tuple(sorted(h)), tuple(b)) for h, b in zip(hands, builds)),
        solo_level=solo_level,
    )
    fields.update(extra)
    return msgspec.structs.replace(base, **fields)


def run_to_decision(s: State, seed: str = "t") -> tuple[State, list[Any]]:
    """Resolve pending chance (reveals) until a player must act or the game is over."""
    out: list[Any] = []
    k = 0
    while GAME.to_act(s) == (CHANCE,):
        k += 1
        for e in checked_decide(GAME, s, CHANCE, GAME.chance(s, Rng.derive(seed, k))):
            s = GAME.apply(s, e)
            out.append(e)
    return s, out


def after(s: State, events: Iterable[Any]) -> State:
    for e in events:
        s = GAME.apply(s, e)
    return s
