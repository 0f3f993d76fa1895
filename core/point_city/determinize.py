"""A true state consistent with a seat's view, sampled (information-set search).

A seat knows a card by id once its building side has been seen, and its own
hand [PL-13]; every other card in sight lies resource side up and shows only
its face (tier and resource, :func:`core.point_city.cards.face_of`); the deck
below its top and the cards removed at setup are unseen [PL-1].  Each face is
filled with a card of that face nobody has placed, drawn without replacement;
what is left of each tier is the unseen stock (the deck's ``hidden`` counts
are public).  The sample's view is the given view (tests/test_determinize.py).
"""

from __future__ import annotations

from collections import defaultdict

from msgspec.structs import replace

from core.point_city.cards import CARDS, TIER_CARDS, face_of
from core.point_city.state import Seat, Slot, State
from core.rng import Rng


def _known(view: State) -> set[int]:
    ids = {x.card for x in view.market if x.card > 0}
    for s in (*view.seats, view.opponent):
        ids.update(c for c in s.resources if c > 0)
        ids.update(s.buildings)
    ids.update(c for c in view.discard if c > 0)
    if view.top > 0:
        ids.add(view.top)
    return ids


def determinize(view: State, seat: int, rng: Rng) -> State:
    """A state whose ``view(·, seat)`` is ``view``: faces filled, unseen stock rebuilt."""
    known = _known(view)
    free: dict[int, list[int]] = defaultdict(list)  # face -> cards with that face, shuffled
    for tier in (1, 2, 3):
        for c in rng.shuffled([c for c in TIER_CARDS[tier] if c not in known]):
            free[face_of(c)].append(c)

    def fill(card: int) -> int:
        if card >= 0:
            return card
        pile = free.get(card)
        if not pile:
            raise ValueError(f"no unseen card left for face {card}")
        return pile.pop()

    def hand(s: Seat) -> Seat:
        if all(c > 0 for c in s.resources):
            return s
        return replace(s, resources=tuple(sorted(fill(c) for c in s.resources)))

    market = tuple(x if x.card >= 0 else Slot(fill(x.card), x.building) for x in view.market)
    seats = tuple(hand(s) for s in view.seats)
    opponent = hand(view.opponent)
    discard = tuple(sorted(fill(c) for c in view.discard))
    top = fill(view.top) if view.top < 0 else view.top
    rest = [c for pile in free.values() for c in pile]
    unseen = tuple(tuple(sorted(c for c in rest if CARDS[c].tier == t)) for t in (1, 2, 3))
    return replace(
        view, market=market, seats=seats, opponent=opponent, discard=discard, top=top, unseen=unseen
    )
