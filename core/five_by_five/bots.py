"""Bots.  ``greedy_bot``: one-ply lookahead on the score of the partial board.

For a set it tries every way to place the set's tiles (order × faces) and
keeps the best end-of-game score of the resulting partial board; placing,
it plays the first step of the best completion of its hand.  In the park it
takes the best swap / replacement (or declines when nothing helps).
``planner`` (not a registered bot) plays the same way on :func:`_outlook`,
the board's score plus room to grow: the search's own seat in its playouts.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations, product
from typing import Any

from core.engine import random_bot
from core.five_by_five import commands as cm
from core.five_by_five.plans import section_squares
from core.five_by_five.rules import legal, park_side
from core.five_by_five.scoring import AROUND, COLUMNS, LINE_SHOPS, ROWS, _where, total_and_penalty
from core.five_by_five.state import PARK_OFFER, PARK_REPLACE, State
from core.five_by_five.tiles import cell_of
from core.rng import Rng

Cells = list[str]


def _value(cells: Cells, s: State) -> float:
    total, penalty = total_and_penalty(tuple(cells), s.sides, s.planning or None)
    # tiles not yet seen can still fix a Park penalty: weigh it lightly mid-game
    filled = 25 - cells.count("")
    return total - penalty * (1 - filled / 25) * 0.5


OFFICE_REACH = 1.0
"""Outlook: points a move for each empty square beside an Office (Offices A score
their chains, so an Office with room around it is worth more than greedy sees)."""
SHOP_REACH = 0.3
"""Outlook: the share of a line's next Shop step counted while the line has room."""
CIVIC_REACH = 0.3
"""Outlook: points for each empty square beside a Public Office (its neighbours score)."""


def _outlook(cells: Cells, s: State) -> float:
    """:func:`_value` plus what greedy's measure ignores: room to grow.  Office
    chains (side A), Shop lines and Public Offices with empty squares around
    them are worth a share of their next step.  The search's own measure
    (:func:`candidates`, :func:`planner`); on a full board it is the score.
    Weights tried in bench/RESULTS.md (fourth pass)."""
    base = _value(cells, s)
    if all(cells):
        return base
    return base + _reach("".join([c[:1] or "." for c in cells]), s.sides)


def _reach(k: str, sides: str) -> float:
    """The outlook's room-to-grow bonus on the kind string ``k`` (``.`` empty)."""
    room_o = sum(AROUND[i](k).count(".") for i in _where(k, "O")) if sides[3] == "A" else 0
    room_g = sum(AROUND[i](k).count(".") for i in _where(k, "G"))
    bonus = OFFICE_REACH * room_o + CIVIC_REACH * room_g
    if "S" in k:
        for line in ROWS if sides[2] == "A" else COLUMNS:
            n = sum(1 for i in line if k[i] == "S")
            if n and any(k[i] == "." for i in line):
                bonus += SHOP_REACH * (LINE_SHOPS[min(5, n + 1)] - LINE_SHOPS[n])
    return bonus


def _best_completion(
    cells: Cells, hand: tuple[int, ...], free: list[int], s: State, value: Any = _value
) -> tuple[float, cm.Place | None]:
    """The best ``value`` placing all of ``hand`` on ``free``, and its first placement."""
    best: tuple[float, cm.Place | None] = (float("-inf"), None)
    codes = [(cell_of(t, False), cell_of(t, True)) for t in hand]
    seen: set[tuple[str, ...]] = set()
    for squares in permutations(free, len(hand)):
        for faces in product((False, True), repeat=len(hand)):
            trial = list(cells)
            for code, q, f in zip(codes, squares, faces):
                trial[q] = code[f]
            # equal tiles or Parks swapped give the same board: value it once (a
            # repeat never beats its first, which keeps the first best placement)
            seen_key = tuple([trial[q] for q in free])
            if seen_key in seen:
                continue
            seen.add(seen_key)
            v = value(trial, s)
            if v > best[0]:
                best = (v, cm.Place(hand[0], squares[0], faces[0]) if hand else None)
    return best


def greedy_bot(game: Any, s: State, seat: int, rng: Rng) -> cm.Command:
    return _one_ply(game, s, seat, rng, _value)


def planner(game: Any, s: State, seat: int, rng: Rng) -> cm.Command:
    """Greedy on :func:`_outlook` instead of the board's score: how the search's
    own seat plays its playouts (:func:`playout_command`)."""
    return _one_ply(game, s, seat, rng, _outlook)


def _one_ply(game: Any, s: State, seat: int, rng: Rng, value: Any) -> cm.Command:
    board = s.boards[seat]
    cells = list(board.cells())
    if s.park == PARK_OFFER:
        if park_side(s) == "B":
            return cm.UsePark()
        best_c: cm.Command = cm.Decline()
        best_v = value(cells, s)
        for c in legal(s, seat):
            if isinstance(c, cm.Swap):
                trial = list(cells)
                trial[c.a], trial[c.b] = trial[c.b], trial[c.a]
                v = value(trial, s)
                if v > best_v:
                    best_v, best_c = v, c
        return best_c
    if s.park == PARK_REPLACE:
        best_c2: cm.Command = cm.Keep()
        best_v2 = value(cells, s)
        for c in legal(s, seat):
            if isinstance(c, cm.Replace):
                trial = list(cells)
                trial[c.square] = cell_of(c.tile, c.park)
                v = value(trial, s)
                if v > best_v2:
                    best_v2, best_c2 = v, c
        return best_c2
    free = tuple(q for q in section_squares(s.plan, s.plot) if board.tiles[q] < 0)
    if s.hand:
        _, place = _completion(tuple(cells), s.hand, free, s.sides, s.planning, value)
        return place if place is not None else random_bot(game, s, seat, rng)
    best: tuple[float, int] = (float("-inf"), 0)
    for i, st in enumerate(s.sets):
        if st:
            v, _ = _completion(tuple(cells), st, free, s.sides, s.planning, value)
            if v > best[0]:
                best = (v, i + 1)
    return cm.Choose(best[1])


@lru_cache(maxsize=1 << 15)
def _completion(
    cells: tuple[str, ...], hand: tuple[int, ...], free: tuple[int, ...], sides: str, planning: int, value: Any
) -> tuple[float, cm.Place | None]:
    """:func:`_best_completion`, cached on immutable arguments: a bot that valued a
    set places its first tile on the same board and hand, and a search meets the
    same board and hand again and again."""
    scoring_only = State(players=(), sides=sides, planning=planning)  # all a valuation reads
    return _best_completion(list(cells), hand, list(free), scoring_only, value)


def _completed(cells: tuple[str, ...], hand: tuple[int, ...], free: tuple[int, ...], sides: str, planning: int) -> float:
    """The outlook of the best completion (:func:`candidates`' ranking)."""
    return _completion(cells, hand, free, sides, planning, _outlook)[0]


TOP_K = 1
"""Placements and park moves a search expands (:func:`candidates`).  One: the
search decides which set to take (and so which to leave the others) and places
it by the outlook; expanding the best 4 placements too spread the playouts over
placements the valuation hardly tells apart (bench/RESULTS.md)."""


def candidates(s: State, seat: int, k: int | None = None) -> list[cm.Command]:
    """The ``k`` commands of ``seat`` greedy values most, best first (ties in
    :func:`legal`'s order): a placement by the best completion of the rest of
    the hand after it, a park move by the board it leaves.  Choosing a set
    keeps every option (there are only players + 1)."""
    k = TOP_K if k is None else k
    options = list(legal(s, seat))
    if len(options) <= k:
        return options
    board = s.boards[seat]
    cells = board.cells()
    scored: list[tuple[float, int]] = []
    if s.park == PARK_OFFER or s.park == PARK_REPLACE:
        for i, c in enumerate(options):
            trial = list(cells)
            if isinstance(c, cm.Swap):
                trial[c.a], trial[c.b] = trial[c.b], trial[c.a]
            elif isinstance(c, cm.Replace):
                trial[c.square] = cell_of(c.tile, c.park)
            scored.append((_outlook(trial, s), i))
    elif s.hand:
        free = tuple(q for q in section_squares(s.plan, s.plot) if board.tiles[q] < 0)
        places = tuple((c.tile, c.square, c.park) for c in options if isinstance(c, cm.Place))
        best = _best_places(tuple(cells), tuple(s.hand), free, s.sides, s.planning, places, k)
        return [options[i] for i in best]
    else:
        return options
    scored.sort(key=lambda vi: (-vi[0], vi[1]))
    return [options[i] for _, i in scored[:k]]


@lru_cache(maxsize=1 << 14)
def _best_places(
    cells: tuple[str, ...],
    hand: tuple[int, ...],
    free: tuple[int, ...],
    sides: str,
    planning: int,
    places: tuple[tuple[int, int, bool], ...],
    k: int,
) -> tuple[int, ...]:
    """The indexes in ``places`` of the ``k`` best placements, by the best completion
    of the rest of the hand after each (ties in order); cached on immutable
    arguments, since a search meets the same board and hand again and again."""
    scored = []
    for i, (tile, square, park) in enumerate(places):
        trial = list(cells)
        trial[square] = cell_of(tile, park)
        rest = list(hand)
        rest.remove(tile)
        left = tuple(q for q in free if q != square)
        scored.append((_completed(tuple(trial), tuple(rest), left, sides, planning), i))
    scored.sort(key=lambda vi: (-vi[0], vi[1]))
    return tuple(i for _, i in scored[:k])


BOTS = {"random": random_bot, "greedy": greedy_bot}


def playout_command(s: State, seat: int, searcher: int, rng: Rng) -> cm.Command:
    """How a flat search's playouts go on (``SearchModel.playout_command``): the other
    seats play greedy (the opponent modelled as the bot it is most likely to
    be), the searching seat plays :func:`planner` (greedy on the outlook, the
    measure :func:`candidates` ranks its own placements by)."""
    return planner(None, s, seat, rng) if seat == searcher else greedy_bot(None, s, seat, rng)
