"""Card City bots.  ``random`` is the engine's; ``greedy`` is a one-ply heuristic.

Greedy evaluates each construction, development and purchase by the position it
leads to (``evaluate``), values groups in the split by a per-card estimate, and
otherwise plays like random.  ``bench/bench_card_city.py`` measures its margin.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from core.card_city.cards import CULTURAL_KINDS, LEISURE_COST, ROUNDS
from core.card_city.city import (
    Grid,
    border,
    cells_districts,
    construction_squares,
    eligible_districts,
    non_industrial,
    size_limit,
)
from core.card_city.commands import Build, Buy, Develop, Discard, Keep, Pass, SplitCards, Take
from core.card_city.fold import apply
from core.card_city.rules import decide, legal
from core.card_city.scoring import final_score, income
from core.card_city.state import HIDDEN, State
from core.rng import Rng

WEIGHTS = {"growth": 1.2, "eligible": 2.0, "income": 0.25, "room": 0.4}
"""Tuned on 150-game runs against random (see bench/bench_card_city.py)."""

UNKNOWN = ("R", "C", "I", "P", "L")
"""A face-down card is valued as the average of the kinds."""


def evaluate(s: State, seat: int) -> float:
    """A rough worth of ``seat``'s position: score now plus growth prospects."""
    p = s.players[seat]
    grid: Grid = p.grid()
    groups = cells_districts(p.city)  # districts(grid), cached per city: every term below needs them
    value = float(final_score(seat, grid, p.coins, s.options.decentralization, groups=groups).total)
    rounds_left = ROUNDS - s.round
    for kind, members in groups:
        if kind == "R":
            cultural = sum(1 for sq in border(grid, members) if grid.get(sq) in CULTURAL_KINDS)
            value += WEIGHTS["growth"] * max(0, cultural - len(members))
    if rounds_left:
        for kind, members in eligible_districts(grid, groups):  # will grow in Development (CC-5)
            value += WEIGHTS["eligible"] * (len(members) + 1 if kind == "R" else 1)
        value += WEIGHTS["room"] * min(5, size_limit(grid) - non_industrial(grid))
    value += WEIGHTS["income"] * income(grid, s.options.parking_meters, groups).total * rounds_left
    return value


def card_gains(s: State, seat: int) -> dict[str, float]:
    """How much each kind of card would add to ``seat``'s position, built at its best square."""
    p = s.players[seat]
    grid = p.grid()
    now = evaluate(s, seat)
    gains: dict[str, float] = {}
    for kind in UNKNOWN:
        best = -0.5  # discarded: nothing gained, a turn's card lost
        for r, c in construction_squares(grid, kind, p.coins):
            paid = LEISURE_COST if kind == "L" else 0
            city = p.city + ((r, c, kind),)
            after = replace(s, players=_with(s, seat, replace(p, city=city, coins=p.coins - paid)))
            best = max(best, evaluate(after, seat) - now)
        gains[kind] = best
    gains[HIDDEN] = sum(gains[k] for k in UNKNOWN) / len(UNKNOWN)
    return gains


def _with(s: State, seat: int, player: Any) -> tuple[Any, ...]:
    return s.players[:seat] + (player,) + s.players[seat + 1 :]


def _worth(cards: tuple[str, ...], gains: dict[str, float]) -> float:
    """A group's worth: a pair as it is; a larger group by its best two cards."""
    values = sorted((gains[c] for c in cards), reverse=True)
    return sum(values[:2])


def greedy_bot(game: Any, s: State, seat: int, rng: Rng) -> Any:
    options = list(legal(s, seat))
    if not options:
        raise ValueError("no legal command")
    first = options[0]
    if isinstance(first, Take):
        offer = s.offer
        assert offer is not None
        gains = card_gains(s, seat)
        rest = offer.up + (HIDDEN,) * len(offer.down)
        return Take("pair" if _worth(offer.pair, gains) >= _worth(rest, gains) else "rest")
    if isinstance(first, Keep):
        gains = card_gains(s, seat)
        keeps = [o for o in options if isinstance(o, Keep)]
        return max(keeps, key=lambda k: _worth(k.cards, gains))
    if isinstance(first, SplitCards):
        # the offeree takes what looks better to them; the divider keeps the other group
        mine = card_gains(s, seat)
        looks = {k: CARD_LOOKS[k] for k in CARD_LOOKS}

        def kept(o: SplitCards) -> float:
            pair_looks = sum(looks[c] for c in o.pair)
            rest_looks = sum(looks[c] for c in o.up) + looks[HIDDEN] * len(o.down)
            rest_looks *= 2 / max(2, len(o.up) + len(o.down))
            left = o.up + o.down if pair_looks >= rest_looks else o.pair
            return _worth(left, mine)

        return max((o for o in options if isinstance(o, SplitCards)), key=kept)
    if isinstance(first, (Build, Develop, Buy, Discard, Pass)):
        best, best_value = options[0], float("-inf")
        for o in options:
            after = s
            for e in decide(s, seat, o):
                after = apply(after, e)
            v = evaluate(after, seat) + rng.below(1000) / 1e6  # seeded tie-break
            if v > best_value:
                best, best_value = o, v
        return best
    return options[rng.below(len(options))]


CARD_LOOKS = {"R": 3.0, "C": 2.0, "I": 2.2, "P": 1.0, "L": 1.2, HIDDEN: 1.8}
"""How a group looks to an opponent, for the divider's guess of their choice."""
