"""What a seat may see: the bag is a count, another player's park draw is face down."""

from __future__ import annotations

from msgspec.structs import replace

from core.five_by_five import events as ev
from core.five_by_five.state import HIDDEN, State


def _hide(tiles: tuple[int, ...]) -> tuple[int, ...]:
    return (HIDDEN,) * len(tiles)


def view(s: State, seat: int | None) -> State:
    """``s`` as ``seat`` sees it (None: a spectator).

    The bag shows only its size (tiles are ``HIDDEN``).  Tiles drawn for park
    action B are seen only by the player who drew them (FC-7).
    """
    drawn = s.park_drawn if seat is not None and seat == s.active else _hide(s.park_drawn)
    return replace(s, bag=_hide(s.bag), park_drawn=drawn)


def redact(e: ev.Event, seat: int | None) -> ev.Event:
    """``e`` as ``seat`` sees it: park-draw tiles of others are hidden."""
    if isinstance(e, ev.ParkTilesDrawn) and seat != e.seat:
        return replace(e, tiles=_hide(e.tiles))
    if isinstance(e, ev.ParkTilesReturned) and seat != e.seat:
        return replace(e, unused=_hide(e.unused))
    return e
