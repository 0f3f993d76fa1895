"""A true state consistent with a seat's view, sampled (information-set search).

The seat knows every card's place but for the ``HIDDEN`` ones (other hands'
face-down cards, a divider's holding, an offer's face-down half, CC-7/CL-7)
and the pool's make-up.  Counting what is in sight — cities, the reserve's
change since setup, known hand cards, set-aside Leisure, the solo bottom —
against the setup pool leaves the unseen multiset; the hidden cards are drawn
from it without replacement and the rest is the pool.  The sample's view is the
given view (tests/test_determinize.py).
"""

from __future__ import annotations

from collections import Counter

from msgspec.structs import replace

from core.card_city.cards import KINDS, pool_counts, reserve_counts
from core.card_city.state import HIDDEN, Hand, State
from core.rng import Rng


def unseen_cards(view: State) -> list[str]:
    """The cards ``view`` does not place: its hidden cards and the unseen pool, sorted."""
    n = view.n
    left = Counter(pool_counts(n))
    start_reserve = reserve_counts(n)
    for p in view.players:
        left.subtract(k for _, _, k in p.city if k != "H")
        left.subtract(c for c in p.hand.cards if c != HIDDEN)
    for k, now in zip(KINDS, view.reserve, strict=True):
        left[k] -= now - start_reserve[k]  # discards in, developments and purchases out
    held = view.holding.cards
    offer = view.offer
    if offer is not None:
        held += offer.pair + offer.up + offer.down
    left.subtract(c for c in held if c != HIDDEN)
    left.subtract(view.set_aside)
    left.subtract(view.bottom)
    if any(v < 0 for v in left.values()):
        raise ValueError(f"the view places more cards than the game has: {dict(left)}")
    return [k for k in KINDS for _ in range(left[k])]


def determinize(view: State, seat: int, rng: Rng) -> State:
    """A state whose ``view(·, seat)`` is ``view``, its hidden cards drawn from the unseen ones."""
    unseen = rng.shuffled(unseen_cards(view))
    hidden = sum(
        c == HIDDEN
        for hand in (*(p.hand for p in view.players), view.holding)
        for c in hand.down
    ) + (view.offer.down.count(HIDDEN) if view.offer is not None else 0)
    if len(unseen) != hidden + view.pool_size - len(view.bottom):
        raise ValueError("the view's hidden cards and pool size do not add up")

    def fill(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(unseen.pop() if c == HIDDEN else c for c in cards)

    def hand(h: Hand) -> Hand:
        return h if HIDDEN not in h.down else Hand(h.up, fill(h.down), h.known_to)

    players = tuple(replace(p, hand=hand(p.hand)) for p in view.players)
    holding = hand(view.holding)
    offer = view.offer
    if offer is not None and HIDDEN in offer.down:
        offer = replace(offer, down=fill(offer.down))
    pool = Counter(unseen)
    return replace(
        view,
        players=players,
        holding=holding,
        offer=offer,
        pool=tuple(pool[k] for k in KINDS),
    )
