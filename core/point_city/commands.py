"""Commands: what a seat (or chance, seat ``CHANCE``) decides.

Market cells are numbered 0–15 in reading order (row by row); the text form
names them A1–D4 (column letter, row number), see ``text.py``.
"""

from __future__ import annotations

import msgspec


PICKED = -1
"""In a command's payment: the resource card taken in the same pick [PC-3].  A
player sees only its resource side [PL-16], so commands never name it by id;
``decide`` puts the card's id in the event."""


class Pay(msgspec.Struct, frozen=True):
    """How one building taken this turn is paid [PC-3], and its civic token [PC-5]."""

    cell: int
    cards: tuple[int, ...] = ()
    """Resource cards discarded (from hand, or the other card of the pick)."""
    perms: tuple[int, ...] = ()
    """Built producers whose permanent resource is used (each once per turn)."""
    token: int = 0
    """The civic token taken for a civic building (0: none left, PL-6)."""


class Flip(msgspec.Struct, frozen=True, tag="pc.flip"):
    cell: int


class Take(msgspec.Struct, frozen=True, tag="pc.take"):
    cells: tuple[int, int]
    pays: tuple[Pay, ...] = ()
    """One per building taken, in cell order."""


class TakeDeck(msgspec.Struct, frozen=True, tag="pc.take_deck"):
    pass


class LayOut(msgspec.Struct, frozen=True, tag="pc.lay_out"):
    """Chance: the civic tokens laid out at setup, leftmost first [PC-2]."""

    tokens: tuple[int, ...]


class Reveal(msgspec.Struct, frozen=True, tag="pc.reveal"):
    """Chance: the card that turns up on top of the deck."""

    card: int


Command = Flip | Take | TakeDeck | LayOut | Reveal
