"""The search's model of Card City (:class:`core.engine.SearchModel`): a flat
search over a cheap greedy's best few options, played out by that greedy.

Random playouts say almost nothing here (random construction ruins a city), and
the greedy bot (``bots.greedy_bot``) is too slow to play out with (it folds every
option and evaluates the whole position).  So the playouts play a *quick greedy*
(:func:`quick_command`) for every seat: a card goes where a local measure of the
change it makes is best (:func:`build_gain`: the square, the districts it touches,
what becomes eligible to develop, income, room under the size limit), without
folding anything; groups are taken and split by the same measure.  The search
(:attr:`CardCitySearch.flat`) plays each of the searcher's candidate options
(:func:`candidates`, the quick greedy's best few) out in the same sampled worlds
with the same chance stream, and keeps the best mean reward: a win share plus
the score margin (:meth:`CardCitySearch.reward`), as the mean score matters too.
"""

from __future__ import annotations

import math
from typing import ClassVar

from msgspec.structs import replace

from core.card_city import rules
from core.card_city.bots import evaluate
from core.card_city.cards import CULTURAL_KINDS, KINDS, LEISURE_COST, ROUNDS, industrial_cost
from core.card_city.city import cells_construction_squares, cells_districts
from core.card_city.commands import Build, Buy, Command, Develop, Discard, Pass, SplitCards, Take
from core.card_city.state import HIDDEN, Player, State
from core.engine import Result, SearchModel
from core.rng import Rng

Square = tuple[int, int]

GAIN = {"eligible": 2.0, "growth": 1.2, "income": 0.25, "room": 0.4, "coin": 0.2}
"""The quick greedy's weights: ``evaluate``'s terms (bots.WEIGHTS), a coin at a
fifth of a point."""

LOOKS = {"R": 3.0, "C": 2.0, "I": 2.2, "P": 1.0, "L": 1.2, HIDDEN: 1.8}
"""How a group looks to the other seat, for a divider's guess of its choice
(bots.CARD_LOOKS)."""

WIDTH = 4
"""Candidates searched at a construction, purchase or development (the best by
:func:`build_gain` or ``evaluate``); every take and the best splits otherwise."""
SPLITS = 6
"""Splits searched by a divider: the best by the quick greedy's guess."""


class _City:
    """One seat's city, read once for many squares: the grid, each square's
    district, each Residential district's Cultural neighbours and each Commercial
    district's Residential-district neighbours."""

    __slots__ = ("grid", "owner", "size", "touch", "coins", "rounds_left", "room")

    def __init__(self, p: Player, round_: int) -> None:
        self.grid: dict[Square, str] = {(r, c): k for r, c, k in p.city}
        self.owner: dict[Square, int] = {}
        self.size: list[int] = []
        groups = cells_districts(p.city)
        for i, (_, members) in enumerate(groups):
            self.size.append(len(members))
            for sq in members:
                self.owner[sq] = i
        grid, owner = self.grid, self.owner
        self.touch: list[int] = []
        """Residential: distinct Cultural squares next to it; Commercial: distinct
        Residential districts next to it; others 0."""
        for kind, members in groups:
            around: set[object] = set()
            if kind in ("R", "C"):
                for r, c in members:
                    for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)):
                        k = grid.get(n)
                        if kind == "R" and k in CULTURAL_KINDS:
                            around.add(n)
                        elif kind == "C" and k == "R":
                            around.add(owner[n])
            self.touch.append(len(around))
        self.coins = p.coins
        self.rounds_left = ROUNDS - round_
        industrial = sum(1 for k in grid.values() if k == "I")
        self.room = 5 * (1 + industrial) - (len(grid) - industrial)

    def _next(self, sq: Square) -> list[tuple[Square, str]]:
        r, c = sq
        grid = self.grid
        return [(n, grid[n]) for n in ((r - 1, c), (r, c + 1), (r + 1, c), (r, c - 1)) if n in grid]

    def gain(self, kind: str, sq: Square) -> float:
        """How much building ``kind`` on the empty ``sq`` adds, roughly ``evaluate``'s change."""
        g = GAIN
        left = self.rounds_left
        value = 0.0
        if kind != "I":
            value -= g["room"] * (self.room <= 5)
        near = self._next(sq)
        if kind == "R":
            value += 1.0
            cultural = sum(1 for _, k in near if k in CULTURAL_KINDS)
            value += g["growth"] * max(0, cultural - 1)
            if left and cultural >= 2:
                value += g["eligible"] * 2
            seen: list[int] = []
            for n, k in near:
                if k == "C":
                    d = self.owner[n]
                    if d not in seen:
                        seen.append(d)
                        if left and self.touch[d] + 1 == self.size[d] + 1:
                            value += g["eligible"] + g["income"] * (self.size[d] + 1) * (left - 1)
        elif kind == "C":
            value += g["income"] * left
            districts = {self.owner[n] for n, k in near if k == "R"}
            if left and len(districts) >= 2:
                value += g["eligible"] + g["income"] * 2 * (left - 1)
        elif kind == "L":
            value -= g["coin"] * LEISURE_COST
            seen = []
            for n, k in near:
                if k == "R":
                    d = self.owner[n]
                    if d not in seen:
                        seen.append(d)
                        t, s = self.touch[d], self.size[d]
                        value += g["growth"] * (max(0, t + 1 - s) - max(0, t - s))
                        if left and t + 1 == s + 1:
                            value += g["eligible"] * (s + 1)
        elif kind == "I":
            value += g["room"] * (min(5, self.room + 5) - min(5, self.room))
        return value

    def best(self, kind: str, cells: tuple[tuple[int, int, str], ...]) -> tuple[float, Square | None]:
        """The best square for ``kind`` and its gain; (−0.5, None) if it has none (a card lost)."""
        best, where = -0.5, None
        for sq in cells_construction_squares(cells, kind, self.coins >= LEISURE_COST):
            v = self.gain(kind, sq)
            if where is None or v > best:
                best, where = v, sq
        return best, where


def card_values(s: State, seat: int) -> dict[str, float]:
    """What each kind of card is worth to ``seat`` now: its gain at its best square
    (+1 for the square it fills), a hidden card the mean of the kinds."""
    p = s.players[seat]
    city = _City(p, s.round)
    values = {k: city.best(k, p.city)[0] + 1 for k in KINDS}
    values[HIDDEN] = sum(values.values()) / len(KINDS)
    return values


def _worth(cards: tuple[str, ...], values: dict[str, float]) -> float:
    """A group's worth: a pair as it is; a larger group by its best two cards."""
    return sum(sorted((values[c] for c in cards), reverse=True)[:2])


def _looks(o: SplitCards) -> bool:
    """Whether the other seat is guessed to take the pair of split ``o``."""
    pair = sum(LOOKS[c] for c in o.pair)
    rest = (sum(LOOKS[c] for c in o.up) + LOOKS[HIDDEN] * len(o.down)) * 2 / max(2, len(o.up) + len(o.down))
    return pair >= rest


def ranked_splits(s: State, seat: int) -> list[SplitCards]:
    """The divider's splits, best first by what it is guessed to keep."""
    values = card_values(s, seat)
    splits = [o for o in rules.legal(s, seat) if isinstance(o, SplitCards)]

    def kept(o: SplitCards) -> float:
        return _worth(o.up + o.down if _looks(o) else o.pair, values)

    return sorted(splits, key=lambda o: -kept(o))


def take(s: State, seat: int) -> Take:
    """The group on offer worth more to ``seat`` by its card values (the pair on a tie)."""
    offer = s.offer
    assert offer is not None
    values = card_values(s, seat)
    known = seat in offer.known_to  # else the face-down half is unknown to it [CC-7]
    rest = offer.up + (offer.down if known else (HIDDEN,) * len(offer.down))
    return Take("pair" if _worth(offer.pair, values) >= _worth(rest, values) else "rest")


def ranked_builds(s: State, seat: int) -> list[tuple[float, Command]]:
    """Every Build of ``seat``'s hand with its gain, best first (a Discard if none)."""
    p = s.players[seat]
    city = _City(p, s.round)
    out: list[tuple[float, Command]] = []
    for card in sorted(set(p.hand.cards)):
        squares = cells_construction_squares(p.city, card, p.coins >= LEISURE_COST)
        for sq in squares:
            out.append((city.gain(card, sq), Build(card, *sq)))
    if not out:
        return [(0.0, Discard(sorted(set(p.hand.cards))[0]))]
    out.sort(key=lambda x: -x[0])
    return out


def _after(s: State, seat: int, cell: tuple[int, int, str], paid: int) -> float:
    """``evaluate`` of ``seat`` with ``cell`` added to its city and ``paid`` coins spent."""
    p = s.players[seat]
    moved = Player(p.name, p.coins - paid, p.city + (cell,), p.hand)
    players = s.players[:seat] + (moved,) + s.players[seat + 1 :]
    return evaluate(replace(s, players=players), seat)


def ranked_developments(s: State, seat: int) -> list[tuple[float, Command]]:
    """The developments by ``evaluate`` after them, best first (few: no quick measure)."""
    options = [o for o in rules.legal(s, seat) if isinstance(o, Develop)]
    scored: list[tuple[float, Command]] = [(_after(s, seat, (o.row, o.col, o.card), 0), o) for o in options]
    scored.sort(key=lambda x: -x[0])
    return scored


def ranked_purchases(s: State, seat: int) -> list[tuple[float, Command]]:
    """Pass and the Industrial squares by ``evaluate`` after them, best first."""
    p = s.players[seat]
    cost = industrial_cost(sum(1 for _, _, k in p.city if k == "I"))
    out: list[tuple[float, Command]] = [(evaluate(s, seat), Pass())]
    for r, c in cells_construction_squares(p.city, "I", True):
        out.append((_after(s, seat, (r, c, "I"), cost), Buy(r, c)))
    out.sort(key=lambda x: -x[0])
    return out


def quick_command(s: State, seat: int) -> Command:
    """The quick greedy's command for ``seat`` (it must be to act)."""
    phase = s.phase
    if phase == "construction":
        return ranked_builds(s, seat)[0][1]
    if phase == "acquisition":
        if s.offer is not None:
            return take(s, seat)
        return ranked_splits(s, seat)[0]
    if phase == "development":
        return ranked_developments(s, seat)[0][1]
    if phase == "purchase":
        return ranked_purchases(s, seat)[0][1]
    raise ValueError(f"no decision in the {phase} phase")


def candidates(s: State, seat: int) -> list[Command] | None:
    """The searcher's options worth playing out: the quick greedy's best few."""
    phase = s.phase
    if phase == "construction":
        ranked = [o for _, o in ranked_builds(s, seat)]
    elif phase == "acquisition":
        if s.offer is not None:
            return None
        return list(ranked_splits(s, seat)[:SPLITS])
    elif phase == "development":
        ranked = [o for _, o in ranked_developments(s, seat)]
    elif phase == "purchase":
        ranked = [o for _, o in ranked_purchases(s, seat)]
    else:
        return None
    return ranked[:WIDTH]


def reward(result: Result, seat: int) -> float:
    """A win share (0.5) plus the score margin over the best other seat (0.5,
    squashed on a scale of 10 points): the margin counts as much as the win."""
    win = 1 / len(result.winners) if seat in result.winners else 0.0
    others = [v for i, v in enumerate(result.scores) if i != seat]
    lead = result.scores[seat] - max(others) if others else result.scores[seat]
    return 0.5 * win + 0.5 * (0.5 + 0.5 * math.tanh(lead / 10))


class CardCitySearch(SearchModel[State, Command]):
    """The quick greedy's best options, each played out by it in the same worlds."""

    flat: ClassVar[bool] = True
    playouts: ClassVar[int] = 120
    """30 common worlds for 4 options: at 60 (15 worlds) the search's own choice was
    one the analysis (its worlds fresh) marked in 2.8% of Card City's decisions, at
    120 in 1.3% (issue 25's bar: under 2%; bench/RESULTS.md, stop 36)."""

    def random_command(self, state: State, seat: int, rng: Rng) -> Command:
        """Uniform over the legal commands, a construction hand's squares counted,
        not listed (:func:`core.card_city.rules.random_command`: the same draws)."""
        return rules.random_command(state, seat, rng)

    def playout_command(self, state: State, seat: int, searcher: int, rng: Rng) -> Command:
        """The quick greedy, for every seat (:func:`quick_command`)."""
        return quick_command(state, seat)

    def candidates(self, state: State, seat: int) -> list[Command] | None:
        """The quick greedy's best few (:func:`candidates`): both groups on offer."""
        return candidates(state, seat)

    def reward(self, result: Result, seat: int) -> float | None:
        """Win and margin alike (:func:`reward`): the mean score matters too."""
        return reward(result, seat)
