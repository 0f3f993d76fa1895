"""What each seat may see (DESIGN.md property 5, CC-7, CL-8).

The knowledge model: the pool's make-up is hidden (players may count it, not
look at it); the cards drawn are seen by the drawer; the face-down cards of a
split are known to its divider, to every earlier divider of those cards (the
drawer knows every card of the round, CL-8) and, once taken, to the taker;
everyone sees a card once it is built, discarded [CL-8] or developed.  Each
event that carries face-down cards names the seats that know them
(``known_to``), so ``redact`` needs no state and a player's exported view
folds to exactly what ``view`` shows.
"""

from __future__ import annotations

from msgspec.structs import replace

from core.card_city import events as ev
from core.card_city.state import HIDDEN, Hand, State


def _mask(cards: tuple[str, ...]) -> tuple[str, ...]:
    return (HIDDEN,) * len(cards)


def _hand(hand: Hand, holder: int, seat: int | None) -> Hand:
    if seat is not None and (seat == holder or seat in hand.known_to):
        return hand
    return Hand(hand.up, _mask(hand.down), hand.known_to)


def view(s: State, seat: int | None) -> State:
    """``s`` as ``seat`` sees it; ``None`` is a spectator."""
    players = tuple(replace(p, hand=_hand(p.hand, i, seat)) for i, p in enumerate(s.players))
    offer = s.offer
    if offer is not None and seat != offer.divider and seat not in offer.known_to:
        offer = replace(offer, down=_mask(offer.down))
    return replace(
        s,
        players=players,
        pool=(),  # the make-up of the pool is hidden; pool_size stays
        holding=_hand(s.holding, s.divider, seat),
        offer=offer,
    )


def redact(e: ev.Event, seat: int | None) -> ev.Event:
    """``e`` as ``seat`` may see it in an export."""
    if isinstance(e, ev.CardsDrawn) and e.seat != seat:
        return replace(e, cards=_mask(e.cards))
    if isinstance(e, ev.Split) and e.seat != seat and seat not in e.known_to:
        return replace(e, down=_mask(e.down))
    if isinstance(e, (ev.Kept, ev.Holding)) and seat != e.seat and seat not in e.known_to:
        return replace(e, down=_mask(e.down))
    return e
