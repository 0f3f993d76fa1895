"""Card City's components as data: card kinds, colours, the box, pool and reserve.

>>> pool_counts(3)
{'R': 18, 'C': 9, 'L': 9, 'I': 12, 'P': 12}
>>> reserve_counts(3)
{'R': 16, 'C': 15, 'L': 0, 'I': 8, 'P': 0}
"""

from __future__ import annotations

from typing import Final

KINDS: Final = ("R", "C", "L", "I", "P")
"""Kinds that circulate (pool, reserve, hands), in the order counts are kept."""

NAMES: Final = {
    "H": "City Hall",
    "R": "Residential",
    "C": "Commercial",
    "L": "Leisure",
    "I": "Industrial",
    "P": "Parking",
}

BOX: Final = {"R": 34, "C": 24, "L": 12, "H": 4, "I": 20, "P": 16}
"""The cards in the box (rulebook, Table of Contents)."""

PER_PLAYER_POOL: Final = {"R": 6, "C": 3, "L": 3, "I": 4, "P": 4}
"""Setup: the pool holds this many cards of each kind per player [CC-9] [CC-12]."""

DEVELOPMENT_KINDS: Final = frozenset({"R", "C"})
CULTURAL_KINDS: Final = frozenset({"H", "L"})

COLOURS: Final = {
    "R": ("green",),
    "C": ("blue",),
    "L": ("red",),
    "H": ("red", "purple"),  # City Hall counts as two colours (Variants, CC-13)
    "I": ("yellow",),
    "P": ("black",),
}

LEISURE_COST: Final = 5
START_COINS: Final = 3
ROUNDS: Final = 10


def pool_counts(players: int) -> dict[str, int]:
    """Cards of each kind in the pool at setup (solo: N = 1, CC-9)."""
    return {k: PER_PLAYER_POOL[k] * players for k in KINDS}


def reserve_counts(players: int) -> dict[str, int]:
    """CC-12: the reserve holds the R, C and I not in the pool; L and P start at 0."""
    pool = pool_counts(players)
    return {k: (BOX[k] - pool[k] if k in ("R", "C", "I") else 0) for k in KINDS}


def unused_counts(players: int) -> dict[str, int]:
    """Cards left in the box all game: spare City Halls, Leisure and Parking."""
    pool, reserve = pool_counts(players), reserve_counts(players)
    out = {k: BOX[k] - pool[k] - reserve[k] for k in KINDS}
    out["H"] = BOX["H"] - players
    return out


def triangular(n: int) -> int:
    """The player aid: 1, 3, 6, 10, 15, … for a district of n cards."""
    return n * (n + 1) // 2


def industrial_cost(owned: int) -> int:
    """CC-10: 5 × (Industrial cards in the city + 1)."""
    return 5 * (owned + 1)
