"""``apply``: the dumb fold.  One small mutator per event; no validation, no rules."""

from __future__ import annotations

from msgspec.structs import replace

from collections.abc import Callable
from typing import Any

from core.five_by_five import events as ev
from core.five_by_five.state import (
    DRAW,
    OVER,
    PARK_DRAW,
    PARK_NONE,
    PARK_OFFER,
    PARK_REPLACE,
    PLAY,
    PLOT,
    HIDDEN,
    Board,
    State,
    draw_pool,
    plus,
    without,
)
from core.five_by_five.tiles import ALL_TILE_IDS


def _board(state: State, seat: int, board: Board) -> tuple[Board, ...]:
    return state.boards[:seat] + (board,) + state.boards[seat + 1 :]


def _put(board: Board, square: int, tile: int, park: bool, secret: int | None = None) -> Board:
    tiles = list(board.tiles)
    parks = list(board.parks)
    tiles[square], parks[square] = tile, park
    return replace(board, tiles=tuple(tiles), parks=tuple(parks), secret=board.secret if secret is None else secret)


def _created(_: State | None, e: ev.GameCreated) -> State:
    opts = dict(e.options)
    return State(
        players=e.players,
        advanced=opts.get("advanced") == "yes",
        table=e.table,
        options=e.options,
        sides=e.sides,
        bag=ALL_TILE_IDS,
        boards=tuple(Board() for _ in e.players),
    )


def _placed(s: State, e: ev.TilePlaced) -> State:
    hand = list(s.hand)
    hand.remove(e.tile)
    board = _put(s.boards[e.seat], e.square, e.tile, e.park)
    return replace(s, hand=tuple(hand), boards=_board(s, e.seat, board))


def _chosen(s: State, e: ev.SetChosen) -> State:
    i = e.index - 1
    sets = s.sets[:i] + ((),) + s.sets[i + 1 :]
    return replace(s, sets=sets, hand=s.sets[i], active=e.seat)


def _token(s: State, e: ev.ParkTokenSpent) -> State:
    b = s.boards[e.seat]
    return replace(
        s,
        boards=_board(s, e.seat, replace(b, token=False)), park=PARK_OFFER, active=e.seat
    )


def _swapped(s: State, e: ev.ParkSwapped) -> State:
    b = s.boards[e.seat]
    ta, pa, tb, pb = b.tiles[e.a], b.parks[e.a], b.tiles[e.b], b.parks[e.b]
    board = _put(_put(b, e.a, tb, pb), e.b, ta, pa)
    return replace(s, boards=_board(s, e.seat, board), park=PARK_NONE)


def _replaced(s: State, e: ev.ParkReplaced) -> State:
    b = s.boards[e.seat]
    removed = b.tiles[e.square]
    drawn = list(s.park_drawn)
    drawn.remove(e.tile if e.tile in drawn else HIDDEN)  # another player's view: HIDDEN
    board = _put(b, e.square, e.tile, e.park, secret=e.square if e.park else -1)
    return replace(s, boards=_board(s, e.seat, board), park_drawn=tuple(drawn) + (removed,))


def _park_drawn(s: State, e: ev.ParkTilesDrawn) -> State:
    """The drawer's board records the draw: its place in draw order, what it could
    have brought (public), and what it brought (the drawer's) [GN-1]."""
    b = replace(s.boards[e.seat], drawn_at=s.draws, pool=draw_pool(s), drew=e.tiles)
    return replace(
        s, park_drawn=e.tiles, bag=without(s.bag, e.tiles), park=PARK_REPLACE,
        boards=_board(s, e.seat, b), draws=s.draws + 1,
    )


def _sets_drawn(s: State, e: ev.SetsDrawn) -> State:
    """A public draw: its tiles were in the bag, so none is a Park-side front [GN-1]."""
    drawn = {t for st in e.sets for t in st}
    boards = tuple(replace(b, pool=tuple(t for t in b.pool if t not in drawn)) if b.pool else b for b in s.boards)
    return replace(s, sets=e.sets, phase=PLAY, bag=without(s.bag, tuple(t for st in e.sets for t in st)), boards=boards)


def _park_returned(s: State, e: ev.ParkTilesReturned) -> State:
    back = e.unused + ((e.removed,) if e.removed >= 0 else ())
    return replace(s, bag=plus(s.bag, back), park_drawn=(), park=PARK_NONE)


def _set_returned(s: State, e: ev.SetReturned) -> State:
    i = e.index - 1
    sets = s.sets[:i] + ((),) + s.sets[i + 1 :]
    return replace(s, sets=sets, bag=plus(s.bag, e.tiles))


_MUTATORS: dict[type, Callable[[Any, Any], State]] = {
    ev.GameCreated: _created,
    ev.SidesDrawn: lambda s, e: replace(s, sides=e.sides),
    ev.PlanDrawn: lambda s, e: replace(s, plan=e.plan),
    ev.PlanningDrawn: lambda s, e: replace(s, planning=e.card),
    ev.RoundStarted: lambda s, e: replace(s,
        round=e.round, phase=PLOT, plot=0, sets=(), active=-1, plots=s.plots
    ),
    ev.PlotDrawn: lambda s, e: replace(s,
        plot=e.plot, phase=DRAW, plots=tuple(p for p in s.plots if p != e.plot)
    ),
    ev.SetsDrawn: _sets_drawn,
    ev.SetChosen: _chosen,
    ev.TilePlaced: _placed,
    ev.ParkTokenSpent: _token,
    ev.ParkSwapped: _swapped,
    ev.ParkDeclined: lambda s, e: replace(s, park=PARK_NONE),
    ev.ParkUsed: lambda s, e: replace(s, park=PARK_DRAW),
    ev.ParkTilesDrawn: _park_drawn,
    ev.ParkReplaced: _replaced,
    ev.ParkKept: lambda s, e: s,
    ev.ParkTilesReturned: _park_returned,
    ev.SetReturned: _set_returned,
    ev.BagPassed: lambda s, e: replace(s, start=e.start),
    ev.FinalScores: lambda s, e: replace(s, scores=e.scores),
    ev.GameEnded: lambda s, e: replace(s, winners=e.winners, phase=OVER),
}


def apply(state: State | None, event: ev.Event) -> State:
    """The fold step."""
    if state is None and not isinstance(event, ev.GameCreated):
        raise ValueError(f"a 5x5 City log starts with fc.game_created, not {type(event).__name__}")
    return _MUTATORS[type(event)](state, event)
