"""The 108 building tiles as data, with their Goods icons [FC-2].

A tile is an id 0–107.  Its front is a building of one of nine types; its back
is a Park.  Types are written with one letter (the board-file codes):

====  ==============  =====
code  building        tiles
====  ==============  =====
F     Factory         18 (icons: 5 e, 5 f, 4 c, 4 m)
H     House           18
S     Shop            18 (icons: 4 e, 4 f, 5 c, 5 m)
O     Office          18
T     Station         10
W     Warehouse        8 (icons: 2 of each)
G     Public Office    8
E     School           6
N     Fountain         4
P     Park            (the back of every tile)
====  ==============  =====

Goods icons: ``e`` Electrical, ``f`` Food, ``c`` Clothing, ``m`` Medicine.
A square of a board is written as a *cell* string: ``""`` empty, ``"P"`` a Park,
otherwise the type letter plus the icon letter if any (``"Fe"``, ``"H"``).

>>> len(TILES), cell_of(0, park=False), cell_of(0, park=True)
(108, 'Fe', 'P')
"""

from __future__ import annotations

from typing import NamedTuple

BUILDING_ORDER = "FHSOTWGEN"
"""The nine building types in rulebook order (also the order of the cards)."""
PARK = "P"
TYPES = BUILDING_ORDER + PARK
"""The ten tile types of FC-10."""
GOODS = "efcm"
GOODS_NAMES = {"e": "Electrical", "f": "Food", "c": "Clothing", "m": "Medicine"}
TYPE_NAMES = {
    "F": "Factory",
    "H": "House",
    "S": "Shop",
    "O": "Office",
    "T": "Station",
    "W": "Warehouse",
    "G": "Public Office",
    "E": "School",
    "N": "Fountain",
    "P": "Park",
}
WITH_GOODS = "FSW"

_COMPOSITION: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = (
    ("F", (("e", 5), ("f", 5), ("c", 4), ("m", 4))),
    ("H", (("", 18),)),
    ("S", (("e", 4), ("f", 4), ("c", 5), ("m", 5))),
    ("O", (("", 18),)),
    ("T", (("", 10),)),
    ("W", (("e", 2), ("f", 2), ("c", 2), ("m", 2))),
    ("G", (("", 8),)),
    ("E", (("", 6),)),
    ("N", (("", 4),)),
)


class Tile(NamedTuple):
    id: int
    kind: str
    goods: str

    @property
    def code(self) -> str:
        return self.kind + self.goods


def _build() -> tuple[Tile, ...]:
    out: list[Tile] = []
    for kind, parts in _COMPOSITION:
        for goods, count in parts:
            for _ in range(count):
                out.append(Tile(len(out), kind, goods))
    return tuple(out)


TILES: tuple[Tile, ...] = _build()
ALL_TILE_IDS: tuple[int, ...] = tuple(t.id for t in TILES)


def cell_of(tile: int, park: bool) -> str:
    """The cell string of ``tile`` placed with the given face."""
    return PARK if park else TILES[tile].code


def tile_code(tile: int) -> str:
    """``"Fe"``, ``"H"``…; ``"?"`` for a hidden tile (negative id)."""
    return TILES[tile].code if 0 <= tile < len(TILES) else "?"


def tile_label(tile: int) -> str:
    """A human label such as ``#12 Factory (Electrical)``."""
    if not 0 <= tile < len(TILES):
        return "a hidden tile"
    t = TILES[tile]
    extra = f" ({GOODS_NAMES[t.goods]})" if t.goods else ""
    return f"#{tile} {TYPE_NAMES[t.kind]}{extra}"
