"""Card City's state: frozen Structs of tuples, compared by value.

The state is only ever built by folding events (``fold.py``).  It holds no
random generator: the pool is a multiset of counts, and draws are chance events.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from core.card_city.cards import KINDS
from core.card_city.city import Square
from core.engine import Breakdown

Cell = tuple[int, int, str]
"""(row, col, kind) with City Hall at (0, 0) [CC-1]."""

HIDDEN = "?"
"""A card a viewer may not see [CC-7]."""


class Options(msgspec.Struct, frozen=True):
    decentralization: bool = False
    parking_meters: bool = False


class Hand(msgspec.Struct, frozen=True):
    """Cards held: ``up`` are known to all, ``down`` only to the holder [CC-7]."""

    up: tuple[str, ...] = ()
    down: tuple[str, ...] = ()
    known_to: tuple[int, ...] = ()
    """Seats besides the holder that have seen ``down`` (the divider, CC-7)."""

    @property
    def cards(self) -> tuple[str, ...]:
        return self.up + self.down

    def __len__(self) -> int:
        return len(self.up) + len(self.down)

    def without(self, card: str) -> Hand:
        """The hand less one ``card``, taken from the face-up part first.

        In a player's view another player's face-down cards are ``HIDDEN``: a card
        built or discarded from among them leaves one ``HIDDEN`` [CL-8].
        """
        if card in self.up:
            i = self.up.index(card)
            return Hand(self.up[:i] + self.up[i + 1 :], self.down, self.known_to)
        i = self.down.index(card) if card in self.down else self.down.index(HIDDEN)
        return Hand(self.up, self.down[:i] + self.down[i + 1 :], self.known_to)


class Offer(msgspec.Struct, frozen=True):
    """A split on the table (Phase 1): a face-up pair against the rest."""

    divider: int
    to: int
    pair: tuple[str, ...]
    up: tuple[str, ...]
    down: tuple[str, ...]
    known_to: tuple[int, ...] = ()
    """Seats besides the divider that know ``down`` [CL-8]."""


class Player(msgspec.Struct, frozen=True):
    name: str
    coins: int
    city: tuple[Cell, ...]
    hand: Hand = Hand()
    """Cards acquired this round, still to build (Phase 2)."""

    def grid(self) -> dict[Square, str]:
        return {(r, c): k for r, c, k in self.city}


class State(msgspec.Struct, frozen=True):
    players: tuple[Player, ...]
    options: Options
    table: bool
    round: int
    phase: str
    """acquisition | construction | development | income | purchase | over"""
    first: int
    """The seat holding the first mayor pawn."""
    pool: tuple[int, ...]
    """Unseen pool cards per kind, in ``KINDS`` order (hidden in views)."""
    pool_size: int
    bottom: tuple[str, ...] = ()
    """Solo [CC-9]: cards put under the pool, in the order they went there."""
    reserve: tuple[int, ...] = (0, 0, 0, 0, 0)
    need_draw: int = 0
    """Cards the pending chance event must draw."""
    divider: int = -1
    holding: Hand = Hand()
    """The divider's cards, not yet split (Phase 1)."""
    set_aside: tuple[str, ...] = ()
    """CC-8: Leisure cards drawn in round 1, set aside until the draw holds none."""
    offer: Offer | None = None
    turn: int = -1
    """The seat to decide in development and purchase; -1 while none is assigned."""
    dev_next: int = -1
    """CC-6: where the reverse-order round robin looks next."""
    purchase_next: int = -1
    purchase_left: int = 0
    scores: tuple[Breakdown, ...] = ()
    winners: tuple[int, ...] = ()
    counted: tuple[str, ...] = ()
    """The round's face-down group (a holding, an offer's face-down half, or a hand's
    face-down cards) holds these cards, and every seat can tell from the face-up
    cards alone: one shown in an earlier split of the same cards and not shown
    again, or a solo draw off the known bottom [GN-1] [CL-8].  Sorted; the fold
    keeps it from the public parts of events, so a redacted log folds to the same."""
    pool_most: tuple[int, ...] = ()
    """In a seat's view where counting leaves the pool's make-up open: the most of
    each kind the pool may hold, ``pool`` then holding the least [GN-1]; () when
    ``pool`` is exact (always, in a true state)."""

    @property
    def n(self) -> int:
        return len(self.players)


def counts_of(cards: Iterable[str]) -> tuple[int, ...]:
    cards = list(cards)
    return tuple(cards.count(k) for k in KINDS)


def add_counts(a: tuple[int, ...], b: tuple[int, ...], sign: int = 1) -> tuple[int, ...]:
    return tuple(x + sign * y for x, y in zip(a, b, strict=True))


def expand(counts: tuple[int, ...]) -> list[str]:
    """A multiset of counts as a sorted list of cards."""
    return [k for k, n in zip(KINDS, counts, strict=True) for _ in range(n)]
