"""What each seat may see (docs/architecture.md, property 5, CC-7, CL-8, GN-1).

The knowledge model: the cards drawn are seen by the drawer; the face-down
cards of a split are known to its divider, to every earlier divider of those
cards (the drawer knows every card of the round, CL-8) and, once taken, to the
taker; everyone sees a card once it is built, discarded [CL-8] or developed.
Each event that carries face-down cards names the seats that know them
(``known_to``), so ``redact`` needs no state.

A seat also knows what it can work out by counting [GN-1] (``knowledge.py``):
the pool's make-up (exact, or each kind between two counts while a face-down
group is open), and face-down cards that the face-up ones and the counts leave
no doubt about — those are shown as known.  That needs more than one event
(earlier splits, the pool), so ``redact`` still masks every face-down card a
seat did not see, and ``view`` works the rest out from the fold, which keeps
the public part (``State.counted``): a player's exported view folds to exactly
what ``view`` shows.
"""

from __future__ import annotations

from msgspec.structs import replace

from core.card_city import events as ev
from core.card_city.cards import KINDS
from core.card_city.knowledge import deduce, fill
from core.card_city.state import HIDDEN, Hand, State
from core.dispatch import classes_outside


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
    masked = replace(
        s,
        players=players,
        holding=_hand(s.holding, s.divider, seat),
        offer=offer,
    )
    # GN-1: what counting gives — the face-down cards beyond doubt, the pool's make-up
    known, least, most = deduce(masked)  # a seat that sees the group has nothing to deduce
    pool = tuple(least[k] for k in KINDS)
    pool_most = tuple(most[k] for k in KINDS)
    return replace(fill(masked, known), pool=pool, pool_most=() if pool_most == pool else pool_most)


_NEVER_HIDDEN = classes_outside(ev.Event, ev.CardsDrawn, ev.Split, ev.Kept, ev.Holding)
"""The events a redaction passes as they are, whoever looks (most of a log)."""


def redact(e: ev.Event, seat: int | None) -> ev.Event:
    """``e`` as ``seat`` may see it in an export."""
    if type(e) in _NEVER_HIDDEN:
        return e
    if isinstance(e, ev.CardsDrawn) and e.seat != seat:
        return replace(e, cards=_mask(e.cards))
    if isinstance(e, ev.Split) and e.seat != seat and seat not in e.known_to:
        return replace(e, down=_mask(e.down))
    if isinstance(e, (ev.Kept, ev.Holding)) and seat != e.seat and seat not in e.known_to:
        return replace(e, down=_mask(e.down))
    return e
