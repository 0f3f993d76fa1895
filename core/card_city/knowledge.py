"""What a seat can work out by counting [GN-1] [CL-8].

A seat sees the face-up cards; it may count the cards in the pool at any time.
At the start of a round every card drawn before has been built or discarded,
so the pool's make-up is public (the setup counts less every card seen leaving
it).  During a round at most one group of cards is face down to anyone: the
drawer's holding, an offer's face-down half, or the hand that took the last
rest.  A seat that saw the cards of the round's draw (the drawer, every
divider, the taker of the last rest: ``known_to``) knows that group.  Any other
seat knows of it:

* the cards ``counted`` (``State.counted``, kept by the fold from face-up cards
  only): cards shown face up in an earlier split of the same cards and not
  shown again, and in the solo game draws off the known bottom;
* that the rest are among the *unseen* cards — everything the seat cannot see
  less what it placed — and none of a kind an automatic step would have shown:
  in round 1 not Leisure (CC-8 sets every drawn Leisure aside); in construction,
  while a hand's face-up cards have no legal square, a kind its holder can
  build (a hand with none is discarded at once, CL-2).

Every multiset of the right size within those bounds is a consistent draw
(the divider could have split any of them as shown), so a kind that the unseen
cards hold too few others to avoid is certainly there: those cards are shown as
known, "by counting", and exactly the rest stay hidden (``?``).  The pool then
holds the unseen cards less the group: each kind exactly, or between two counts.
tests/card_city/test_knowledge_law.py checks this against every consistent
completion of small positions.
"""

from __future__ import annotations

from collections import Counter

from msgspec.structs import replace

from core.card_city.cards import KINDS, pool_counts, reserve_counts
from core.card_city.city import cells_can_construct
from core.card_city.state import HIDDEN, Hand, State


def unseen_cards(view: State) -> list[str]:
    """The cards ``view`` does not place: its hidden cards and the unseen pool, sorted.

    Counted against the setup pool: cities, the reserve's change since setup,
    known hand cards, the holding and the offer, set-aside Leisure, the solo bottom.
    """
    left = unseen_counts(view)
    return [k for k in KINDS for _ in range(left[k])]


def unseen_counts(view: State) -> Counter[str]:
    """:func:`unseen_cards` as counts per kind."""
    pool, start_reserve = _setup(view.n)
    left = Counter(pool)
    # one card at a time (as Counter.subtract would, without its per-call cost: views fold this per event)
    for p in view.players:
        for _, _, k in p.city:
            if k != "H":
                left[k] -= 1
        for c in p.hand.cards:
            if c != HIDDEN:
                left[c] -= 1
    for k, now in zip(KINDS, view.reserve, strict=True):
        left[k] -= now - start_reserve[k]  # discards in, developments and purchases out
    held = view.holding.cards
    offer = view.offer
    if offer is not None:
        held += offer.pair + offer.up + offer.down
    for c in (*(c for c in held if c != HIDDEN), *view.set_aside, *view.bottom):
        left[c] -= 1
    if any(v < 0 for v in left.values()):
        raise ValueError(f"the view places more cards than the game has: {dict(left)}")
    return left


def _setup(n: int) -> tuple[dict[str, int], dict[str, int]]:
    """(pool, reserve) counts at setup for ``n`` players, made once per ``n`` (read only)."""
    got = _SETUPS.get(n)
    if got is None:
        got = _SETUPS[n] = (pool_counts(n), reserve_counts(n))
    return got


_SETUPS: dict[int, tuple[dict[str, int], dict[str, int]]] = {}


def hidden_count(view: State) -> int:
    """How many cards ``view`` shows as ``HIDDEN``."""
    hands = (*(p.hand for p in view.players), view.holding)
    n = sum(c == HIDDEN for h in hands for c in h.down)
    return n + (view.offer.down.count(HIDDEN) if view.offer is not None else 0)


def excluded(view: State) -> frozenset[str]:
    """Kinds the face-down cards cannot be, by the rules' automatic steps:

    * in round 1 every Leisure drawn is set aside and replaced (CC-8), so none is
      face down;
    * in construction a hand whose cards all lack a legal square is discarded at
      once (CL-2, CC-2): while the hand's face-up cards have none, its face-down
      card has one — it is none of the kinds its holder could not build now.
    """
    out = {"L"} if view.round == 1 else set()
    where, holder = group_of(view)
    if view.phase == "construction" and where == "hand":
        p = view.players[holder]
        if not any(cells_can_construct(p.city, c, p.coins) for c in p.hand.up):
            out |= {k for k in KINDS if not cells_can_construct(p.city, k, p.coins)}
    return frozenset(out)


def deduce(masked: State) -> tuple[tuple[str, ...], Counter[str], Counter[str]]:
    """For a view whose face-down group is masked: the group's cards known by
    counting (sorted, ``counted`` first), and the least and most the pool holds
    of each kind."""
    unseen = unseen_counts(masked)
    hidden = hidden_count(masked)
    counted = Counter(masked.counted) if hidden else Counter()
    free = hidden - sum(counted.values())
    cap = _candidates(masked, unseen, counted, free)
    room = sum(cap.values())
    if not free and not counted:  # nothing face down to deduce: the pool is the unseen cards
        pool = Counter({k: unseen[k] for k in KINDS})
        return (), pool, pool.copy()
    forced = Counter({k: max(0, free - (room - cap[k])) for k in KINDS})
    open_ = free - sum(forced.values())
    least = counted + forced  # in every consistent group
    most = Counter({k: least[k] + min(cap[k] - forced[k], open_) for k in KINDS})
    pool_least = Counter({k: unseen[k] - most[k] for k in KINDS})
    pool_most = Counter({k: unseen[k] - least[k] for k in KINDS})
    known = tuple(sorted(least.elements()))
    return known, pool_least, pool_most


def group_of(s: State) -> tuple[str, int]:
    """Where the round's face-down group is: ``("offer", divider)``, ``("holding",
    divider)``, ``("hand", holder)``, or ``("", -1)`` when there is none."""
    if s.offer is not None and s.offer.down:
        return "offer", s.offer.divider
    if s.holding.down:
        return "holding", s.divider
    for i, p in enumerate(s.players):
        if p.hand.down:
            return "hand", i
    return "", -1


def group_cards(s: State) -> tuple[str, ...]:
    """The face-down group's cards as ``s`` has them (``HIDDEN`` in a view)."""
    where, seat = group_of(s)
    if where == "offer":
        return s.offer.down if s.offer is not None else ()
    if where == "holding":
        return s.holding.down
    return s.players[seat].hand.down if where == "hand" else ()


def _candidates(masked: State, unseen: Counter[str], counted: Counter[str], free: int) -> Counter[str]:
    """The unseen cards the open face-down ones may be: less the counted ones and
    the kinds ruled out.  (Between one event and the automatic step it calls for —
    a Leisure just drawn, a hand about to be discarded — too few may be left: then
    nothing is ruled out; no seat decides there.)"""
    left = Counter({k: unseen[k] - counted[k] for k in KINDS})
    if any(v < 0 for v in left.values()):
        raise ValueError("the counted cards are not among the unseen ones")
    out = _ruled(left, excluded(masked))
    return out if sum(out.values()) >= free else left


def _ruled(cards: Counter[str], out: frozenset[str]) -> Counter[str]:
    return Counter({k: 0 if k in out else cards[k] for k in KINDS})


def knows_group(s: State, seat: int | None) -> bool:
    """Does ``seat`` see the face-down group of ``s`` (as holder, divider or earlier divider)?"""
    where, first = group_of(s)
    if not where:
        return True
    if seat is None:
        return False
    if where == "offer" and s.offer is not None:
        return seat == first or seat in s.offer.known_to
    hand = s.holding if where == "holding" else s.players[first].hand
    return seat == first or seat in hand.known_to


def fill(masked: State, known: tuple[str, ...]) -> State:
    """``masked`` with its face-down group showing ``known`` first, then ``HIDDEN``."""
    if not known:
        return masked

    def shown(down: tuple[str, ...]) -> tuple[str, ...]:
        return known + (HIDDEN,) * (len(down) - len(known))

    if masked.offer is not None and HIDDEN in masked.offer.down:
        return replace(masked, offer=replace(masked.offer, down=shown(masked.offer.down)))
    if HIDDEN in masked.holding.down:
        h = masked.holding
        return replace(masked, holding=Hand(h.up, shown(h.down), h.known_to))
    players = tuple(
        replace(p, hand=Hand(p.hand.up, shown(p.hand.down), p.hand.known_to)) if HIDDEN in p.hand.down else p
        for p in masked.players
    )
    return replace(masked, players=players)


def by_counting(s: State, seat: int | None) -> tuple[str, ...]:
    """The face-down cards ``seat`` is shown in its view ``s`` only by counting (GN-1);
    none for the spectator's or the referee's (``None``) rendering."""
    if seat is None or knows_group(s, seat):
        return ()
    return tuple(c for c in group_cards(s) if c != HIDDEN)
