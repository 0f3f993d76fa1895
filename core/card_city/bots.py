"""Card City bots.  ``random`` is the engine's; ``greedy`` is a one-ply heuristic.

Greedy evaluates each construction, development and purchase by the position it
leads to (``evaluate``), values groups in the split by a per-card estimate, and
otherwise plays like random.  ``bench/bench_card_city.py`` measures its margin.
"""

from __future__ import annotations

from typing import Any

from core.card_city.cards import CULTURAL_KINDS, LEISURE_COST, ROUNDS
from core.card_city.city import Grid, border, districts, non_industrial, size_limit
from core.card_city.commands import Build, Buy, Develop, Discard, Keep, Pass, SplitCards, Take
from core.card_city.fold import apply
from core.card_city.rules import decide, legal
from core.card_city.scoring import final_score, income
from core.card_city.state import HIDDEN, State
from core.rng import Rng

CARD_VALUE = {"R": 3.0, "C": 2.0, "I": 2.2, "P": 1.0, "L": 1.2, HIDDEN: 1.8}


def evaluate(s: State, seat: int) -> float:
    """A rough worth of ``seat``'s position: score now plus growth prospects."""
    p = s.players[seat]
    grid: Grid = p.grid()
    value = float(final_score(seat, grid, p.coins, s.options.decentralization).total)
    rounds_left = ROUNDS - s.round
    for kind, members in districts(grid):
        if kind == "R":
            cultural = sum(1 for sq in border(grid, members) if grid.get(sq) in CULTURAL_KINDS)
            value += 0.6 * max(0, cultural - len(members))
    value += 0.25 * income(grid, s.options.parking_meters).total * rounds_left
    value += 0.4 * min(5, size_limit(grid) - non_industrial(grid)) * (1 if rounds_left else 0)
    return value


def _card_value(card: str, coins: int) -> float:
    if card == "L":
        return 2.5 if coins >= LEISURE_COST else 0.5
    return CARD_VALUE[card]


def greedy_bot(game: Any, s: State, seat: int, rng: Rng) -> Any:
    options = list(legal(s, seat))
    if not options:
        raise ValueError("no legal command")
    coins = s.players[seat].coins
    first = options[0]
    if isinstance(first, Take):
        offer = s.offer
        assert offer is not None
        pair = sum(_card_value(c, coins) for c in offer.pair)
        rest_cards = offer.up + (HIDDEN,) * len(offer.down)
        rest = sum(_card_value(c, coins) for c in rest_cards) * 2 / max(2, len(rest_cards))
        return Take("pair" if pair >= rest else "rest")
    if isinstance(first, Keep):
        return max(options, key=lambda k: sum(_card_value(c, coins) for c in k.cards))
    if isinstance(first, SplitCards):
        # hide the best cards face down and offer the weakest pair
        def split_key(o: SplitCards) -> tuple[float, float]:
            return (
                -sum(_card_value(c, coins) for c in o.pair),
                sum(_card_value(c, coins) for c in o.down),
            )

        return max(options, key=split_key)
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
