"""The 10 Building cards (A/B sides), the 12 Planning cards and the 12 Building Plot cards.

Building cards are in rulebook order; the ``sides`` string of a game gives
one letter per card in this order (``"AAAAAAAAAA"``: all A sides).
"""

from __future__ import annotations

from typing import NamedTuple


class BuildingCard(NamedTuple):
    number: int
    key: str
    """The category key used in breakdowns and JSON."""
    name: str
    kind: str
    """The tile type letter it scores (``P`` for the Park card)."""
    a: str
    b: str


BUILDING_CARDS: tuple[BuildingCard, ...] = (
    BuildingCard(1, "factories", "Factories", "F",
                 "by count: 1/2/3/4/5/6+ → 3/8/13/19/24/30",
                 "5 each on the circumference, 2 otherwise"),
    BuildingCard(2, "houses", "Houses", "H",
                 "no adjacent Factory / adjacent Park: both 5, one 2",
                 "adjacent House / adjacent Park: both 5, one 2"),
    BuildingCard(3, "shops", "Shops", "S",
                 "per row: 1/2/3/4/5 → 2/6/11/16/25",
                 "per column: 1/2/3/4/5 → 2/6/11/16/25"),
    BuildingCard(4, "offices", "Offices", "O",
                 "per chain: 1/2/3/4/5/6+ → 2/6/11/16/23/30",
                 "rows with an Office: 1/2/3/4/5 → 2/6/10/15/20"),
    BuildingCard(5, "stations", "Stations", "T",
                 "4 if alone in its row and column, else 1 [FC-4]",
                 "4 if another shares its row or column, else 1 [FC-4]"),
    BuildingCard(6, "warehouses", "Warehouses", "W",
                 "1 per building with the same Goods icon, itself included",
                 "Shop and Factory with its icon: 4, either: 2"),
    BuildingCard(7, "public_offices", "Public Offices", "G",
                 "1 per distinct adjacent type, Park included [FC-5]",
                 "1 per adjacent Factory/Shop/Office/House [FC-5]"),
    BuildingCard(8, "schools", "Schools", "E",
                 "4 if adjacent to a House",
                 "4 if adjacent to an Office"),
    BuildingCard(9, "fountains", "Fountains", "N",
                 "size of its Fountain+Park chain, max 8 [FC-6]",
                 "by Fountains+Parks: 1/2-3/4-5/6-7/8+ → 1/2/3/4/5 each [FC-6]"),
    BuildingCard(10, "parks", "Park", "P",
                 "park action: swap two tiles; penalty Factories − Parks",
                 "park action: draw two, may replace one; penalty Factories − Parks"),
)

CATEGORY_KEYS: tuple[str, ...] = tuple(c.key for c in BUILDING_CARDS)
"""Category keys in FC-9 tie-break order."""

PLANNING_CARDS: dict[int, str] = {
    1: "2 VP × the count of your most common tile type [FC-8]",
    2: "1 VP per Park",
    3: "2 VP per chain of exactly 2 [FC-8]",
    4: "3 VP per chain of exactly 3 [FC-8]",
    5: "3 VP per chain of 4 or more [FC-8]",
    6: "4 VP per diagonal of 5 different types [FC-11]",
    7: "3 VP per row of 5 different types [FC-11]",
    8: "3 VP per column of 5 different types [FC-11]",
    9: "3 VP per set of Factory, Shop, House and Office [FC-11]",
    10: "1 VP per tile of the same type as the centre tile [FC-8]",
    11: "2 VP per different type in the leftmost and rightmost columns [FC-11]",
    12: "2 VP per different type in the middle 9 squares [FC-11]",
}

PLOT_CARDS: tuple[int, ...] = tuple(range(1, 13))

SIDE_LETTERS = "AB"


def expand_sides(option: str) -> str:
    """The ``sides`` option as 10 letters; ``""`` for ``random`` (drawn later).

    >>> expand_sides("B"), expand_sides("random")
    ('BBBBBBBBBB', '')
    """
    value = option.strip().upper()
    if value == "RANDOM":
        return ""
    if value in ("A", "B"):
        return value * len(BUILDING_CARDS)
    if len(value) == len(BUILDING_CARDS) and set(value) <= set(SIDE_LETTERS):
        return value
    raise ValueError(
        f"sides {option!r}: use A, B, random or {len(BUILDING_CARDS)} letters A/B (Factories…Park)"
    )


def side_of(sides: str, key: str) -> str:
    """The side (``A``/``B``) of the card ``key`` in ``sides``."""
    return sides[CATEGORY_KEYS.index(key)]
