"""Older rules versions of Point City that ``verify`` still vouches for [PL-17].

Rules pc-2 read a tier-2/3 Ingenuity face (a card known by its resource side,
such as the resource card of a pick) as two wild symbols, which its payment
planner then never paid with: its list of takes missed every take paying with
such a card, and its PL-7 test ("no legal take", :func:`core.point_city.rules.has_take`)
could end a game while ``decide`` still accepted a take.  ``decide`` itself
judged every command by the real cards, as pc-3 does, so a pc-2 log is
re-decided by today's rules with pc-2's PL-7 test: :func:`pc2_has_take`.
"""

from __future__ import annotations

from core.point_city.cards import CARDS, WILD
from core.point_city.rules import PAIRS, takes
from core.point_city.state import State, deck_size


def pc2_unused(card: int) -> bool:
    """A source pc-2's planner never paid with: a tier-2/3 Ingenuity card known by its
    face only (pc-2 counted it two wild symbols, a class its planner did not use)."""
    c = CARDS[card]
    return card < 0 and c.resource == WILD and c.tier >= 2


def pc2_has_take(s: State, seat: int) -> bool:
    """PL-7's test as rules pc-2 made it: a take of today's, left without the sources
    pc-2's planner never used (:func:`pc2_unused`)."""
    if deck_size(s) >= 2:
        return True
    perms = tuple(x for x in s.seats[seat].buildings if CARDS[x].produces)
    return any(next(takes(s, seat, a, b, perms, pc2_unused), None) is not None for a, b in PAIRS)
