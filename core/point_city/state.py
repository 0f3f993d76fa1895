"""The table as a frozen value: market, tableaux, deck counts, tokens.

The deck is never stored in order (rules model, PL-1): for each tier the
state keeps the sorted multiset of cards nobody has seen (``unseen``: the
undrawn deck *and* the cards removed at setup) and how many of them are still
in the deck (``hidden``).  A draw reveals a random unseen card of the topmost
tier that still has cards, which is the same as drawing from a shuffled,
stacked deck.  The top card of the deck lies resource side up, so it is
known (``top``) whenever the deck is not empty.
"""

from __future__ import annotations

import msgspec

from core.point_city.cards import CARDS, TYPES, WILD

BOT = -2
"""The ``mover`` of the solo opponent's take [PC-7]."""


class Slot(msgspec.Struct, frozen=True):
    card: int = 0
    """0: an empty gap."""
    building: bool = False
    """True when the building side shows."""


class Seat(msgspec.Struct, frozen=True):
    resources: tuple[int, ...] = ()
    """Unspent resource cards, sorted."""
    buildings: tuple[int, ...] = ()
    """Built buildings, in build order."""
    tokens: tuple[int, ...] = ()
    """Civic tokens, in taking order."""
    paid: tuple[int, ...] = ()
    """The resource cards this seat has discarded, sorted: it held them, so it
    knows them in the discard pile [GN-1] [PL-16]."""


class State(msgspec.Struct, frozen=True):
    players: tuple[str, ...]
    solo_level: int = 0
    """0: no solo opponent; 1–3: PC-7 level."""
    table: bool = False
    step: str = "tokens"
    """tokens → remove → start → deal → (turn → second|refill → after)* → ended → over."""
    unseen: tuple[tuple[int, ...], ...] = ((), (), ())
    hidden: tuple[int, int, int] = (0, 0, 0)
    top: int = 0
    market: tuple[Slot, ...] = tuple(Slot() for _ in range(16))
    seats: tuple[Seat, ...] = ()
    opponent: Seat = Seat()
    marker_col: int = 0
    marker_row: int = 0
    display: tuple[int, ...] = ()
    """Civic tokens still on the table, leftmost first."""
    discard: tuple[int, ...] = ()
    turn: int = 0
    round: int = 0
    flipped: bool = False
    """The one flip of this turn has been made [PC-3]."""
    mover: int = 0
    """Who made the last take (a seat, or BOT)."""
    gaps: tuple[int, ...] = ()
    gap_was_building: tuple[bool, ...] = ()
    """For each gap, whether the card taken from it showed its building side."""
    end_reason: str = ""
    final: tuple[int, ...] = ()
    """The scores and winners as recorded (the Scored event): the result a log holds."""
    final_winners: tuple[int, ...] = ()


def deck_size(s: State) -> int:
    return sum(s.hidden) + (1 if s.top else 0)


def top_tier(s: State) -> int:
    """Index (0–2) of the topmost tier that still has face-down cards; -1 if none."""
    for i, n in enumerate(s.hidden):
        if n > 0:
            return i
    return -1


def needs_reveal(s: State) -> bool:
    """The deck's top card must be turned up before play goes on."""
    return s.top == 0 and s.step in ("deal", "second", "refill", "after") and sum(s.hidden) > 0


def permanents(buildings: tuple[int, ...]) -> tuple[int, ...]:
    """Permanent resources per type (TYPES order)."""
    counts = [0] * len(TYPES)
    for b in buildings:
        p = CARDS[b].produces
        if p:
            counts[TYPES.index(p)] += 1
    return tuple(counts)


def ingenuity_cards(resources: tuple[int, ...]) -> int:
    return sum(1 for c in resources if CARDS[c].resource == WILD)


def all_cards(s: State) -> list[int]:
    """Every card id somewhere in the state (for conservation checks)."""
    out: list[int] = [c for tier in s.unseen for c in tier]
    if s.top:
        out.append(s.top)
    out += [x.card for x in s.market if x.card]
    for seat in (*s.seats, s.opponent):
        out += seat.resources
        out += seat.buildings
    out += s.discard
    return out
