"""What a seat may see and what it can work out (FC-7, FL-5, FL-10, GN-1).

The knowledge model: the tiles drawn for Park action B are seen by the drawer
only, and the unused one goes back unseen; the tile replaced on the board is
public; a drawn tile put down building side up is public, one put down Park
side up shows everyone its Park side only (``HIDDEN_PARK`` on that board for
the other seats, FL-10).

Everything else a seat can count [GN-1]: the 108 tiles less every tile in
sight are the bag and the *unknown tiles* (another seat's Park-B draw while
it holds it, another seat's Park-side front).  Each unknown tile is one of its
draw's *pool* (``Board.pool``: the bag and the fronts when it was drawn, less
every tile seen since in a public draw, less what the seat's own later Park-B
draw brought), and no two are the same tile.  A tile no unknown tile can be is
in the bag, shown by id; the bag's other places are ``HIDDEN``; an unknown tile
that can be one tile only is shown as that tile.  :func:`knowledge` gives the
rest (the tiles each unknown tile can be) for the text, the picture and the
determinizer.
"""

from __future__ import annotations

from typing import NamedTuple

from msgspec.structs import replace

from core.dispatch import classes_outside
from core.five_by_five import events as ev
from core.five_by_five.state import HIDDEN, HIDDEN_PARK, State, in_sight


class Unknown(NamedTuple):
    """A tile the seat cannot see: where it is, and the tiles it can be."""

    owner: int
    """The board (seat) that holds it."""
    where: int
    """The Park-side square of that board, or -1 for a tile of its Park-B draw."""
    drawn: int
    """Its place in ``park_drawn`` (for a draw), else -1."""
    can_be: tuple[int, ...]
    """Every tile id it can be, sorted (at least two faces, or it would be shown)."""


class Knowledge(NamedTuple):
    """What a seat can count about the tiles it cannot see [GN-1]."""

    unseen: tuple[int, ...]
    """The tiles not in sight: the bag and the unknown tiles, sorted."""
    unknown: tuple[Unknown, ...]
    in_bag: tuple[int, ...]
    """The tiles surely in the bag, sorted."""
    bag_size: int


def _hide(tiles: tuple[int, ...]) -> tuple[int, ...]:
    return (HIDDEN,) * len(tiles)


def _masked(s: State, seat: int | None) -> State:
    """The plain redaction: others' Park-side fronts and Park-B draws hidden."""
    boards = []
    for i, b in enumerate(s.boards):
        mine = seat == i
        if b.secret >= 0 and not mine:
            b = replace(b, tiles=b.tiles[: b.secret] + (HIDDEN_PARK,) + b.tiles[b.secret + 1 :])
        if not mine and b.drew:
            b = replace(b, drew=())
        boards.append(b)
    drawn = s.park_drawn
    if s.park_drawn and (seat is None or seat != s.active):
        theirs = list(s.boards[s.active].drew) if 0 <= s.active < s.n else []
        out = []
        for t in drawn:  # a tile of the draw is hidden; the tile just replaced is public
            if t == HIDDEN or t in theirs:
                out.append(HIDDEN)
                if t in theirs:
                    theirs.remove(t)
            else:
                out.append(t)
        drawn = tuple(out)
    return replace(s, boards=tuple(boards), park_drawn=drawn)


def _matches(cands: list[set[int]], banned: set[int]) -> bool:
    """Can each unknown tile be a different tile of its candidates, none of ``banned``?"""
    match: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for t in sorted(cands[i]):
            if t in banned or t in seen:
                continue
            seen.add(t)
            if t not in match or augment(match[t], seen):
                match[t] = i
                return True
        return False

    return all(augment(i, set()) for i in range(len(cands)))


def _feasible(cands: list[set[int]]) -> list[set[int]]:
    """For each unknown tile, the tiles it can be in some assignment of distinct tiles."""
    k = len(cands)
    if all(len(c) > k for c in cands):  # Hall holds with room to spare: every candidate is possible
        return [set(c) for c in cands]
    out = []
    for i, c in enumerate(cands):
        rest = cands[:i] + cands[i + 1 :]
        out.append({t for t in c if _matches(rest, {t})})
    return out


def _unknowns(m: State, seat: int | None) -> list[tuple[int, int, int, set[int]]]:
    """The unknown tiles of the masked state ``m``: (owner, square, draw index, pool)."""
    unseen = set(range(108)) - in_sight(m)
    mine = m.boards[seat] if seat is not None and 0 <= seat < m.n else None
    out = []
    for i, b in enumerate(m.boards):
        hidden_front = b.secret >= 0 and b.tiles[b.secret] == HIDDEN_PARK
        holding = m.park_drawn and i == m.active and HIDDEN in m.park_drawn
        if not (hidden_front or holding):
            continue
        pool = set(b.pool) & unseen
        if mine is not None and mine.drew and mine.drawn_at > b.drawn_at:
            pool -= set(mine.drew)  # they were in the bag after this draw [GN-1]
        if hidden_front:
            out.append((i, b.secret, -1, pool))
        if holding:
            out += [(i, -1, j, set(pool)) for j, t in enumerate(m.park_drawn) if t == HIDDEN]
    return out


def _know(m: State, seat: int | None) -> tuple[Knowledge, list[tuple[int, int, int, int]]]:
    seen = in_sight(m)  # once, not once per tile
    unseen = tuple(t for t in range(108) if t not in seen)
    found = _unknowns(m, seat)
    can = _feasible([c for *_, c in found])
    forced = [(o, q, j, min(c)) for (o, q, j, _), c in zip(found, can) if len(c) == 1]
    unknown = tuple(
        Unknown(o, q, j, tuple(sorted(c))) for (o, q, j, _), c in zip(found, can) if len(c) != 1
    )
    maybe = set().union(*can) if can else set()
    in_bag = tuple(t for t in unseen if t not in maybe)
    size = len(unseen) - len(found)
    return Knowledge(unseen, unknown, in_bag, size), forced


def knowledge(v: State, seat: int | None) -> Knowledge:
    """What ``seat`` can count from its view ``v`` (or from any state) [GN-1]."""
    return _know(_masked(v, seat), seat)[0]


def view(s: State, seat: int | None) -> State:
    """``s`` as ``seat`` sees it (None: a spectator), with all it can count shown [GN-1]."""
    m = _masked(s, seat)
    k, forced = _know(m, seat)
    boards = list(m.boards)
    drawn = list(m.park_drawn)
    for owner, square, j, t in forced:  # an unknown tile that can be one tile only
        if square >= 0:
            b = boards[owner]
            boards[owner] = replace(b, tiles=b.tiles[:square] + (t,) + b.tiles[square + 1 :])
        else:
            drawn[j] = t
    bag = k.in_bag + (HIDDEN,) * (k.bag_size - len(k.in_bag))
    for i, b in enumerate(boards):
        if b.pool and not any(u.owner == i for u in k.unknown):
            boards[i] = replace(b, pool=())  # nothing of that draw left to count
        elif b.pool:
            boards[i] = replace(b, pool=tuple(t for t in b.pool if t in k.unseen))
    return replace(m, bag=bag, park_drawn=tuple(drawn), boards=tuple(boards))


_NEVER_HIDDEN = classes_outside(ev.Event, ev.ParkTilesDrawn, ev.ParkTilesReturned, ev.ParkReplaced)
"""The events a redaction passes as they are, whoever looks (most of a log)."""


def redact(e: ev.Event, seat: int | None) -> ev.Event:
    """``e`` as ``seat`` sees it: another player's park draw is face down."""
    if type(e) in _NEVER_HIDDEN:
        return e
    if seat == getattr(e, "seat", seat):
        return e
    if isinstance(e, ev.ParkTilesDrawn):
        return replace(e, tiles=_hide(e.tiles))
    if isinstance(e, ev.ParkTilesReturned):
        return replace(e, unused=_hide(e.unused))
    if isinstance(e, ev.ParkReplaced) and e.park:
        return replace(e, tile=HIDDEN_PARK)
    return e
