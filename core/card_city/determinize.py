"""A true state consistent with a seat's view, sampled (information-set search).

The seat knows every card's place but for the ``HIDDEN`` ones (other hands'
face-down cards, a divider's holding, an offer's face-down half, CC-7/CL-7);
what counting gives it is already in the view [GN-1]: face-down cards beyond
doubt are shown, and the pool's make-up follows.  Counting what is in sight —
cities, the reserve's change since setup, known hand cards, set-aside Leisure,
the solo bottom — against the setup pool leaves the unseen multiset
(``knowledge.unseen_cards``); the hidden cards are drawn from it without
replacement — never a kind the view rules out (round 1's Leisure, CC-8; in
construction a kind the holder could not build, CL-2) — and
the rest is the pool.  So every sample is a world the seat cannot rule out, and
its view is the given view (tests/test_determinize.py,
tests/card_city/test_knowledge_law.py).
"""

from __future__ import annotations

from collections import Counter

from msgspec.structs import replace

from core.card_city.cards import KINDS
from core.card_city.knowledge import excluded, hidden_count, unseen_cards
from core.card_city.state import HIDDEN, Hand, State
from core.rng import Rng

__all__ = ["determinize", "unseen_cards"]


def determinize(view: State, seat: int, rng: Rng) -> State:
    """A state whose ``view(·, seat)`` is ``view``, its hidden cards drawn from the unseen ones."""
    unseen = unseen_cards(view)
    hidden = hidden_count(view)
    if len(unseen) != hidden + view.pool_size - len(view.bottom):
        raise ValueError("the view's hidden cards and pool size do not add up")
    ruled_out = excluded(view)
    candidates = [c for c in unseen if c not in ruled_out]
    if len(candidates) < hidden:  # between an event and its automatic step: no seat decides there
        candidates = unseen
    candidates = rng.shuffled(candidates)
    drawn = candidates[len(candidates) - hidden :]
    pool = Counter(unseen)
    pool.subtract(drawn)

    def fill(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(drawn.pop() if c == HIDDEN else c for c in cards)

    def hand(h: Hand) -> Hand:
        return h if HIDDEN not in h.down else Hand(h.up, fill(h.down), h.known_to)

    players = tuple(replace(p, hand=hand(p.hand)) for p in view.players)
    holding = hand(view.holding)
    offer = view.offer
    if offer is not None and HIDDEN in offer.down:
        offer = replace(offer, down=fill(offer.down))
    return replace(
        view,
        players=players,
        holding=holding,
        offer=offer,
        pool=tuple(pool[k] for k in KINDS),
        pool_most=(),
    )
