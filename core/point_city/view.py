"""What a seat may see [PL-1] [PL-16].

The knowledge model: nobody sees the unseen cards (the deck below its top card
and the cards removed at setup, PL-1).  A card lying resource side up shows
its resource side only: in the market, on top of the deck, in another player's
hand, in the solo opponent's hand and in the discard pile it is known by its
face (:func:`face_of`: tier and resource), never by its id, which would name
its building side.  A player knows both sides of the resource cards in their
own hand [PL-16].  A card's identity is public from the moment its building
side is (a flip, a refill building side up, a building taken).

Counting [GN-1]: a seat also knows the cards it paid (``Seat.paid``: it held
them), so they lie in its view of the discard pile by id.  And for each face
the cards of that face not known by id are spread over the places showing
that face and the unseen stock (the deck and the cards removed at setup,
``unseen``), whose make-up by face is the tier less all in sight; where all of
them are in one place (one market cell, the top card, one hand, the discard
pile, or the stock), that place holds exactly those cards, and shows them by
id.  The stock shows each of its cards by id where it can be counted so, by
face otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec.structs import replace

from core.dispatch import handler
from core.point_city import events as ev
from core.point_city.cards import TIER_CARDS, face_of
from core.point_city.commands import Pay
from core.point_city.state import Seat, Slot, State


def _faces(cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(face_of(c) for c in cards))


def _slot(x: Slot) -> Slot:
    return x if x.building or not x.card else Slot(face_of(x.card), False)


def _seat(x: Seat) -> Seat:
    return replace(x, resources=_faces(x.resources), paid=())


FACE_CARDS: dict[int, tuple[int, ...]] = {}
"""Face → the cards of tiers 1–3 with that resource side, sorted."""
for _t in (1, 2, 3):
    for _c in TIER_CARDS[_t]:
        FACE_CARDS.setdefault(face_of(_c), ())
        FACE_CARDS[face_of(_c)] += (_c,)


def _known_ids(v: State) -> set[int]:
    ids = {x.card for x in v.market if x.card > 0}
    for x in (*v.seats, v.opponent):
        ids.update(c for c in x.resources if c > 0)
        ids.update(x.buildings)
    ids.update(c for c in v.discard if c > 0)
    if v.top > 0:
        ids.add(v.top)
    return ids


def _places(v: State) -> dict[int, dict[tuple[str, int], int]]:
    """Face → {place: how many cards of that face it shows by face}."""
    out: dict[int, dict[tuple[str, int], int]] = {}
    shown = [(x.card, ("cell", i)) for i, x in enumerate(v.market) if x.card and not x.building]
    if v.top:
        shown.append((v.top, ("top", 0)))
    for i, x in enumerate(v.seats):
        place = ("seat", i)
        shown += [(c, place) for c in x.resources]
    shown += [(c, ("opponent", 0)) for c in v.opponent.resources]
    shown += [(c, ("discard", 0)) for c in v.discard]
    for face, place in shown:
        if face < 0:  # a card shown by its face only
            at = out.get(face)
            if at is None:
                at = out[face] = {}
            at[place] = at.get(place, 0) + 1
    return out


def _counted(v: State) -> State:
    """``v`` with every card it can count shown by id, and the stock's make-up [GN-1]."""
    known = _known_ids(v)
    places = _places(v)
    named: dict[tuple[str, int], dict[int, tuple[int, ...]]] = {}
    stock: dict[int, list[int]] = {1: [], 2: [], 3: []}
    in_stock = ("stock", 0)
    for face, cards in FACE_CARDS.items():
        free = tuple([c for c in cards if c not in known])
        at = places.get(face)
        if at:
            left = len(free) - sum(at.values())  # in the stock
            where = [p for p, n in at.items() if n]
        else:
            left, where = len(free), []
        if left > 0:
            where.append(in_stock)
        if len(where) == 1 and where[0] != in_stock:
            named.setdefault(where[0], {})[face] = free
        if left > 0:
            stock[-face // 10] += list(free) if where == [in_stock] else [face] * left

    def names(cards: tuple[int, ...], place: tuple[str, int]) -> tuple[int, ...]:
        got = named.get(place)
        if not got:
            return cards
        return tuple(sorted(tuple(c for c in cards if c not in got) + tuple(c for f in got for c in got[f])))

    market = tuple(
        Slot(named[("cell", i)][x.card][0], False) if ("cell", i) in named else x for i, x in enumerate(v.market)
    )
    top = named[("top", 0)][v.top][0] if ("top", 0) in named else v.top
    seats = tuple(replace(x, resources=names(x.resources, ("seat", i))) for i, x in enumerate(v.seats))
    opponent = replace(v.opponent, resources=names(v.opponent.resources, ("opponent", 0)))
    unseen = tuple(tuple(sorted(stock[t])) for t in (1, 2, 3))
    return replace(
        v, market=market, top=top, seats=seats, opponent=opponent,
        discard=names(v.discard, ("discard", 0)), unseen=unseen,
    )


def view(s: State, seat: int | None) -> State:
    """``s`` as ``seat`` sees it, with all it can count shown [PL-16] [GN-1]."""
    mine = s.seats[seat].paid if seat is not None and 0 <= seat < len(s.seats) else ()
    held = list(mine)
    discard = []
    for c in s.discard:
        if c in held:
            held.remove(c)
            discard.append(c)
        else:
            discard.append(face_of(c))
    return _counted(msgspec.structs.replace(
        s,
        top=face_of(s.top) if s.top else 0,
        market=tuple(_slot(x) for x in s.market),
        seats=tuple(x if i == seat else _seat(x) for i, x in enumerate(s.seats)),
        opponent=_seat(s.opponent),
        discard=tuple(sorted(discard)),
    ))


def _taken(cards: tuple[int, ...], buildings: tuple[bool, ...]) -> tuple[int, ...]:
    return tuple(c if b else face_of(c) for c, b in zip(cards, buildings, strict=True))


def _pays(pays: tuple[Pay, ...]) -> tuple[Pay, ...]:
    """Faces sorted: in the order of the cards they would tell the cards apart [GN-1]."""
    return tuple(replace(p, cards=tuple(sorted(face_of(c) for c in p.cards))) for p in pays)


def _face_up(e: Any, seat: int | None) -> Any:
    return replace(e, card=face_of(e.card))


def _refilled(e: ev.Refilled, seat: int | None) -> ev.Refilled:
    return e if e.building else replace(e, card=face_of(e.card))


def _cards_taken(e: ev.CardsTaken, seat: int | None) -> ev.CardsTaken:
    return e if e.seat == seat else replace(e, cards=_taken(e.cards, e.buildings), pays=_pays(e.pays))


def _deck_taken(e: Any, seat: int | None) -> Any:
    return e if e.seat == seat else replace(e, card=face_of(e.card))


def _opponent_took(e: ev.OpponentTook, seat: int | None) -> ev.OpponentTook:
    return replace(e, cards=_taken(e.cards, e.buildings))


_HIDE: dict[type, Callable[[Any, int | None], Any]] = {
    ev.CardRevealed: _face_up, ev.MarketDealt: _face_up, ev.Refilled: _refilled, ev.CardsTaken: _cards_taken,
    ev.DeckTaken: _deck_taken, ev.SecondTaken: _deck_taken, ev.OpponentTook: _opponent_took,
}  # fmt: skip
"""What a redaction does to each kind of event it may change (any other passes as
it is): one look-up an event, not a ``match`` through the classes (:mod:`core.dispatch`)."""


def redact(e: object, seat: int | None) -> object:
    """``e`` as ``seat`` may see it: resource sides only, but for the seat's own cards.

    A card dealt, revealed or refilled resource side up shows its face; another
    seat's taken cards show their faces but for the buildings (their payments'
    cards sorted); the deck's cards another seat takes, and the solo opponent's
    cards but for buildings, likewise."""
    hide = _HIDE.get(type(e)) or handler(_HIDE, e)
    return e if hide is None else hide(e, seat)
