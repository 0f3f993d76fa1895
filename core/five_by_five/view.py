"""What a seat may see (FC-7, FL-5, FL-10).

The knowledge model: the bag is a count (its tiles are ``HIDDEN``); the tiles
drawn for Park action B are seen by the drawer only, and the unused one goes
back unseen; the tile replaced on the board is public; a drawn tile put down
building side up is public, one put down Park side up shows everyone its Park
side only (``HIDDEN_PARK`` on that board for the other seats, FL-10).
"""

from __future__ import annotations

from msgspec.structs import replace

from core.five_by_five import events as ev
from core.five_by_five.state import HIDDEN, HIDDEN_PARK, Board, State


def _hide(tiles: tuple[int, ...]) -> tuple[int, ...]:
    return (HIDDEN,) * len(tiles)


def _board(b: Board, owner: int, seat: int | None) -> Board:
    if b.secret < 0 or seat == owner:
        return b
    tiles = b.tiles[: b.secret] + (HIDDEN_PARK,) + b.tiles[b.secret + 1 :]
    return replace(b, tiles=tiles)


def view(s: State, seat: int | None) -> State:
    """``s`` as ``seat`` sees it (None: a spectator)."""
    drawn = s.park_drawn if seat is not None and seat == s.active else _hide(s.park_drawn)
    boards = tuple(_board(b, i, seat) for i, b in enumerate(s.boards))
    return replace(s, bag=_hide(s.bag), park_drawn=drawn, boards=boards)


def redact(e: ev.Event, seat: int | None) -> ev.Event:
    """``e`` as ``seat`` sees it: another player's park draw is face down."""
    if seat == getattr(e, "seat", seat):
        return e
    if isinstance(e, ev.ParkTilesDrawn):
        return replace(e, tiles=_hide(e.tiles))
    if isinstance(e, ev.ParkTilesReturned):
        return replace(e, unused=_hide(e.unused))
    if isinstance(e, ev.ParkReplaced) and e.park:
        return replace(e, tile=HIDDEN_PARK)
    return e
