"""``decide``, ``to_act`` and ``legal``: the rules of 5x5 City.

``decide`` returns the command's own event, then every automatic follow-on
event up to the next decision, applying them as it goes.  Illegal commands
raise :class:`~core.engine.IllegalCommand` citing a ruling (``FC-x``, ``FL-x``)
or a rulebook section.
"""

from __future__ import annotations

from functools import lru_cache

from collections.abc import Iterator
from itertools import combinations

from core.engine import CHANCE, IllegalCommand
from core.five_by_five import commands as cm
from core.five_by_five import events as ev
from core.five_by_five.cards import BUILDING_CARDS, PLANNING_CARDS, PLOT_CARDS, SIDE_LETTERS, side_of
from core.five_by_five.fold import apply
from core.five_by_five.plans import PLAN_NUMBERS, section_size, section_squares, square_name
from core.five_by_five.scoring import Tally, score_board
from core.five_by_five.state import (
    DRAW,
    OVER,
    PARK_DRAW,
    PARK_OFFER,
    PARK_REPLACE,
    PLAY,
    PLOT,
    SETUP,
    State,
    missing_from,
)
from core.five_by_five.tiles import TILES, tile_label
from core.rng import Rng

ROUNDS = 12
PARKS_FOR_ACTION = 3
PARK_DRAW_COUNT = 2


# -- whose decision --------------------------------------------------------
def next_chooser(s: State) -> int:
    """Sets are chosen in turn order from the start player [FC-3]."""
    return (s.start + s.taken()) % s.n


def to_act(s: State) -> tuple[int, ...]:
    if s.phase == OVER:
        return ()
    if s.phase in (SETUP, PLOT, DRAW):
        return (CHANCE,)
    if s.park == PARK_DRAW:
        return (CHANCE,)
    if s.park or s.hand:
        return (s.active,)
    return (next_chooser(s),)


def tiles_per_round(s: State) -> int:
    return (s.n + 1) * section_size(s.plan, s.plot)


def park_side(s: State) -> str:
    return side_of(s.sides, "parks")


# -- chance ------------------------------------------------------------------
def _check_tiles(s: State, tiles: tuple[int, ...], want: int, rule: str) -> None:
    if len(tiles) != want:
        raise IllegalCommand(rule, f"draw exactly {want} tiles, not {len(tiles)}")
    bad = [t for t in tiles if not 0 <= t < len(TILES)]
    if bad:
        raise IllegalCommand(rule, f"no such tile: {bad[0]} (tiles are 0–{len(TILES) - 1})")
    missing = missing_from(s.bag, tiles)
    if missing:
        raise IllegalCommand(rule, f"{tile_label(missing[0])} is not in the bag")


def _decide_chance(s: State, c: cm.Command) -> list[ev.Event]:
    if s.phase == SETUP:
        if not s.sides:
            if not isinstance(c, cm.DrawSides):
                raise IllegalCommand("FB-1", "the Building card sides are drawn first")
            if len(c.sides) != 10 or set(c.sides) - set(SIDE_LETTERS):
                raise IllegalCommand("FB-1", "sides are 10 letters A/B, Factories…Park")
            return [ev.SidesDrawn(c.sides)]
        if not s.plan:
            if not isinstance(c, cm.DrawPlan):
                raise IllegalCommand("FB-1", "a Building Plot card is drawn to pick the plan")
            if c.plan not in PLAN_NUMBERS:
                raise IllegalCommand("FC-1", f"there is no Building Plan {c.plan} (1–12)")
            return [ev.PlanDrawn(c.plan)]
        if not isinstance(c, cm.DrawPlanning):
            raise IllegalCommand("FB-6", "a Planning card is drawn now")
        if c.card not in range(1, 13):
            raise IllegalCommand("FB-6", f"there is no Planning card {c.card} (1–12)")
        return [ev.PlanningDrawn(c.card)]
    if s.phase == PLOT:
        if not isinstance(c, cm.DrawPlot):
            raise IllegalCommand("FB-2", "a Building Plot card is drawn now")
        if c.plot not in s.plots:
            used = "already drawn" if c.plot in PLOT_CARDS else "not a Building Plot card"
            raise IllegalCommand("FB-2", f"plot {c.plot} is {used}")
        return [ev.PlotDrawn(c.plot)]
    if not isinstance(c, cm.DrawTiles):
        raise IllegalCommand("FC-3", "tiles are drawn from the bag now")
    if s.phase == DRAW:
        _check_tiles(s, c.tiles, tiles_per_round(s), "FC-3")
        size = section_size(s.plan, s.plot)
        sets = tuple(c.tiles[i : i + size] for i in range(0, len(c.tiles), size))
        return [ev.SetsDrawn(sets)]
    _check_tiles(s, c.tiles, min(PARK_DRAW_COUNT, len(s.bag)), "FL-5")
    return [ev.ParkTilesDrawn(s.active, c.tiles)]


# -- players -------------------------------------------------------------------
def _decide_player(s: State, seat: int, c: cm.Command) -> list[ev.Event]:
    board = s.boards[seat]
    if s.park == PARK_OFFER:  # FL-4: resolved before the rest of the set is placed
        if isinstance(c, cm.Decline):
            return [ev.ParkDeclined(seat)]
        if park_side(s) == "A":
            if not isinstance(c, cm.Swap):
                raise IllegalCommand("FC-7", "park action A: swap two tiles, or decline")
            for sq in (c.a, c.b):
                if not 0 <= sq < 25 or board.tiles[sq] < 0:
                    named = square_name(sq) if 0 <= sq < 25 else str(sq)
                    raise IllegalCommand("FL-3", f"square {named} holds no tile to swap")
            if c.a == c.b:
                raise IllegalCommand("FL-3", "swap two different squares")
            return [ev.ParkSwapped(seat, c.a, c.b)]
        if not isinstance(c, cm.UsePark):
            raise IllegalCommand("FC-7", "park action B: use it (draw two tiles), or decline")
        return [ev.ParkUsed(seat)]
    if s.park == PARK_REPLACE:
        if isinstance(c, cm.Keep):
            return [ev.ParkKept(seat)]
        if not isinstance(c, cm.Replace):
            raise IllegalCommand("FC-7", "replace a board tile with a drawn tile, or keep the board")
        if c.tile not in s.park_drawn:
            raise IllegalCommand("FC-7", f"{tile_label(c.tile)} is not one of the tiles drawn")
        if not 0 <= c.square < 25 or board.tiles[c.square] < 0:
            named = square_name(c.square) if 0 <= c.square < 25 else str(c.square)
            raise IllegalCommand("FL-5", f"only a tile already on the board may be replaced; {named} is empty")
        return [ev.ParkReplaced(seat, c.tile, c.square, c.park, board.tiles[c.square])]
    if s.hand:
        if not isinstance(c, cm.Place):
            raise IllegalCommand("FB-4", "place the tiles of your set first")
        if c.tile not in s.hand:
            raise IllegalCommand("FB-4", f"{tile_label(c.tile)} is not in your set")
        squares = section_squares(s.plan, s.plot)
        if c.square not in squares:
            names = " ".join(square_name(q) for q in squares)
            raise IllegalCommand("FB-4", f"plot {s.plot} is squares {names}")
        if board.tiles[c.square] >= 0:
            raise IllegalCommand(
                "FB-4", f"{square_name(c.square)} is already built ({tile_label(board.tiles[c.square])})"
            )
        return [ev.TilePlaced(seat, c.tile, c.square, c.park)]  # a Park may trigger FC-7 (FL-4)
    if not isinstance(c, cm.Choose):
        raise IllegalCommand("FB-3", "choose one of the sets on offer")
    if not 1 <= c.index <= len(s.sets) or not s.sets[c.index - 1]:
        raise IllegalCommand("FC-3", f"set {c.index} is not on offer")
    return [ev.SetChosen(seat, c.index)]


# -- automatic follow-ons ------------------------------------------------------------
def _follow_on(s: State, last: ev.Event) -> ev.Event | None:
    """The next automatic event, or None when a decision is due."""
    if s.phase == SETUP:
        if s.sides and s.plan and (s.planning or not s.advanced):
            return ev.RoundStarted(1)
        return None
    if s.phase != PLAY:
        return None
    if isinstance(last, ev.TilePlaced) and last.park:
        b = s.boards[last.seat]
        if b.token and b.park_count() >= PARKS_FOR_ACTION:
            return ev.ParkTokenSpent(last.seat)
    if isinstance(last, ev.ParkReplaced):
        return ev.ParkTilesReturned(last.seat, s.park_drawn[:-1], last.removed)
    if isinstance(last, ev.ParkKept):
        return ev.ParkTilesReturned(last.seat, s.park_drawn)
    if s.park or s.hand or s.taken() < s.n:
        return None
    # every player has taken and built a set: the round ends (FL-6: no Upkeep after round 12)
    if s.round == ROUNDS:
        if not s.scores:
            return ev.FinalScores(final_scores(s))
        return ev.GameEnded(winners(s))
    left = [i for i, st in enumerate(s.sets) if st]
    if left:
        return ev.SetReturned(left[0] + 1, s.sets[left[0]])
    if not isinstance(last, ev.BagPassed):
        return ev.BagPassed((s.start + 1) % s.n)  # FL-1
    return ev.RoundStarted(s.round + 1)


def decide(s: State, seat: int, c: cm.Command) -> tuple[ev.Event, ...]:
    return step(s, seat, c)[0]


def step(s: State, seat: int, c: cm.Command) -> tuple[tuple[ev.Event, ...], State]:
    """``decide``'s events and the state after them (folded while deciding)."""
    if s.phase == OVER:
        raise IllegalCommand("FB-5", "the game is over")
    if seat == CHANCE:
        out = _decide_chance(s, c)
    else:
        out = _decide_player(s, seat, c)
    state = apply(s, out[0])
    while True:
        nxt = _follow_on(state, out[-1])
        if nxt is None:
            return tuple(out), state
        out.append(nxt)
        state = apply(state, nxt)


# -- scoring ------------------------------------------------------------------------
@lru_cache(maxsize=1024)
def _total_and_tiebreak(cells: tuple[str, ...], sides: str, planning: int | None) -> tuple[int, tuple[int, ...]]:
    """A board's total and FC-9 tie-break (:func:`board_score`'s), cached: the end of a
    game asks them twice (the scores, then the winners) of the same boards."""
    t = score_board(cells, sides, planning)
    return t.total, t.tiebreak()


def board_score(s: State, seat: int) -> Tally:
    return score_board(s.boards[seat].cells(), s.sides, s.planning or None)


def final_scores(s: State) -> tuple[int, ...]:
    return tuple(_total_and_tiebreak(s.boards[i].cells(), s.sides, s.planning or None)[0] for i in range(s.n))


def winners(s: State) -> tuple[int, ...]:
    """Highest total, then FC-9 category order; all equal is a shared result [FL-9]."""
    keys = [_total_and_tiebreak(s.boards[i].cells(), s.sides, s.planning or None) for i in range(s.n)]
    best = max(keys)
    return tuple(i for i, k in enumerate(keys) if k == best)


# -- legal commands -------------------------------------------------------------------
def legal(s: State, seat: int) -> Iterator[cm.Command]:
    if seat not in to_act(s):
        return
    if seat == CHANCE:
        yield from _legal_chance(s)
        return
    board = s.boards[seat]
    occupied = [q for q in range(25) if board.tiles[q] >= 0]
    if s.park == PARK_OFFER:
        if park_side(s) == "A":
            for a, b in combinations(occupied, 2):
                yield cm.Swap(a, b)
        else:
            yield cm.UsePark()
        yield cm.Decline()
    elif s.park == PARK_REPLACE:
        for t in sorted(set(s.park_drawn)):
            for q in occupied:
                yield cm.Replace(t, q, False)
                yield cm.Replace(t, q, True)
        yield cm.Keep()
    elif s.hand:
        free = [q for q in section_squares(s.plan, s.plot) if board.tiles[q] < 0]
        for t in sorted(set(s.hand)):
            for q in free:
                yield cm.Place(t, q, False)
                yield cm.Place(t, q, True)
    else:
        for i, st in enumerate(s.sets):
            if st:
                yield cm.Choose(i + 1)


def _legal_chance(s: State) -> Iterator[cm.Command]:
    """Every possible outcome (tile draws lazily, in bag order)."""
    if s.phase == SETUP:
        if not s.sides:
            for bits in range(1 << 10):
                yield cm.DrawSides("".join("AB"[(bits >> (9 - i)) & 1] for i in range(10)))
        elif not s.plan:
            yield from (cm.DrawPlan(p) for p in PLAN_NUMBERS)
        else:
            yield from (cm.DrawPlanning(p) for p in range(1, 13))
    elif s.phase == PLOT:
        yield from (cm.DrawPlot(p) for p in s.plots)
    elif s.phase == DRAW:
        yield from (cm.DrawTiles(t) for t in combinations(s.bag, tiles_per_round(s)))
    else:
        yield from (cm.DrawTiles(t) for t in combinations(s.bag, min(PARK_DRAW_COUNT, len(s.bag))))



def random_command(s: State, seat: int, rng: Rng) -> cm.Command:
    """A legal command of ``seat`` drawn uniformly (what a search's random playouts play):
    the same draw as listing :func:`legal`'s commands; a placement (most of a
    playout's decisions) counted, not listed, and only the drawn one made."""
    if s.hand and s.park != PARK_OFFER and s.park != PARK_REPLACE and seat != CHANCE and seat in to_act(s):
        tiles = sorted(set(s.hand))
        board = s.boards[seat]
        free = [q for q in section_squares(s.plan, s.plot) if board.tiles[q] < 0]
        # legal lists, tile by tile, square by square: (t, q, False), (t, q, True)
        i = rng.below(len(tiles) * len(free) * 2)
        per_tile = 2 * len(free)
        return cm.Place(tiles[i // per_tile], free[(i % per_tile) // 2], bool(i % 2))
    options = list(legal(s, seat))
    return options[rng.below(len(options))]


# -- chance and the decision behind an event ---------------------------------
def chance(state: State, rng: Rng) -> cm.Command:
    s = state
    if s.phase == SETUP:
        if not s.sides:
            return cm.DrawSides("".join(rng.choice("AB") for _ in BUILDING_CARDS))  # FL-7
        if not s.plan:
            return cm.DrawPlan(rng.choice(PLAN_NUMBERS))  # FL-2
        return cm.DrawPlanning(rng.choice(tuple(PLANNING_CARDS)))
    if s.phase == PLOT:
        return cm.DrawPlot(rng.choice(s.plots))
    if s.phase == DRAW:
        return cm.DrawTiles(tuple(rng.sample(s.bag, tiles_per_round(s))))
    if s.phase != OVER and to_act(s) == (CHANCE,):
        return cm.DrawTiles(tuple(rng.sample(s.bag, min(PARK_DRAW_COUNT, len(s.bag)))))
    raise ValueError("no chance outcome is pending")


def command_of(event: ev.Event) -> tuple[int, cm.Command] | None:
    match event:
        case ev.SidesDrawn(sides=x):
            return CHANCE, cm.DrawSides(x)
        case ev.PlanDrawn(plan=p):
            return CHANCE, cm.DrawPlan(p)
        case ev.PlanningDrawn(card=c):
            return CHANCE, cm.DrawPlanning(c)
        case ev.PlotDrawn(plot=p):
            return CHANCE, cm.DrawPlot(p)
        case ev.SetsDrawn(sets=sets):
            return CHANCE, cm.DrawTiles(tuple(t for st in sets for t in st))
        case ev.ParkTilesDrawn(tiles=ts):
            return CHANCE, cm.DrawTiles(ts)
        case ev.SetChosen(seat=seat, index=i):
            return seat, cm.Choose(i)
        case ev.TilePlaced(seat=seat, tile=t, square=q, park=p):
            return seat, cm.Place(t, q, p)
        case ev.ParkSwapped(seat=seat, a=a, b=b):
            return seat, cm.Swap(a, b)
        case ev.ParkDeclined(seat=seat):
            return seat, cm.Decline()
        case ev.ParkUsed(seat=seat):
            return seat, cm.UsePark()
        case ev.ParkReplaced(seat=seat, tile=t, square=q, park=p):
            return seat, cm.Replace(t, q, p)
        case ev.ParkKept(seat=seat):
            return seat, cm.Keep()
    return None
