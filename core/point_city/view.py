"""What a seat may see [PL-1] [PL-16].

The knowledge model: nobody sees the unseen cards (the deck below its top card
and the cards removed at setup, PL-1).  A card lying resource side up shows
its resource side only: in the market, on top of the deck, in another player's
hand, in the solo opponent's hand and in the discard pile it is known by its
face (:func:`face_of`: tier and resource), never by its id, which would name
its building side.  A player knows both sides of the resource cards in their
own hand [PL-16].  A card's identity is public from the moment its building
side is (a flip, a refill building side up, a building taken).
"""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from core.point_city import events as ev
from core.point_city.cards import face_of
from core.point_city.commands import Pay
from core.point_city.state import Seat, Slot, State


def _faces(cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(face_of(c) for c in cards))


def _slot(x: Slot) -> Slot:
    return x if x.building or not x.card else Slot(face_of(x.card), False)


def _seat(x: Seat) -> Seat:
    return replace(x, resources=_faces(x.resources))


def view(s: State, seat: int | None) -> State:
    return msgspec.structs.replace(
        s,
        unseen=((), (), ()),
        top=face_of(s.top) if s.top else 0,
        market=tuple(_slot(x) for x in s.market),
        seats=tuple(x if i == seat else _seat(x) for i, x in enumerate(s.seats)),
        opponent=_seat(s.opponent),
        discard=_faces(s.discard),
    )


def _taken(cards: tuple[int, ...], buildings: tuple[bool, ...]) -> tuple[int, ...]:
    return tuple(c if b else face_of(c) for c, b in zip(cards, buildings, strict=True))


def _pays(pays: tuple[Pay, ...]) -> tuple[Pay, ...]:
    return tuple(replace(p, cards=tuple(face_of(c) for c in p.cards)) for p in pays)


def redact(e: object, seat: int | None) -> object:
    """``e`` as ``seat`` may see it: resource sides only, but for the seat's own cards."""
    match e:
        case ev.CardRevealed(card=c):
            return replace(e, card=face_of(c))
        case ev.MarketDealt(card=c):
            return replace(e, card=face_of(c))
        case ev.Refilled(card=c, building=False):
            return replace(e, card=face_of(c))
        case ev.CardsTaken(seat=who) if who != seat:
            return replace(e, cards=_taken(e.cards, e.buildings), pays=_pays(e.pays))
        case ev.DeckTaken(seat=who) | ev.SecondTaken(seat=who) if who != seat:
            return replace(e, card=face_of(e.card))
        case ev.OpponentTook():
            return replace(e, cards=_taken(e.cards, e.buildings))
    return e
