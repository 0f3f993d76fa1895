"""Point City's display names: resource abbreviations, colours, cell names, the legend.

A small module that imports nothing of the game but its card data, so the
rules (a refusal names a cost), the text and the scene can all read it without
importing one another (no rules -> text -> scene -> rules cycle).

>>> cell_name(0), cell_name(15)
('A1', 'D4')
"""

from __future__ import annotations

from core.point_city.cards import WILD, Card

COLOUR = {"community": "cyan", "economy": "yellow", "energy": "red", "ecology": "green",
          "industry": "bright_black", WILD: "magenta"}
ABBR = {"community": "Com", "economy": "Eco", "energy": "Ene", "ecology": "Ecl",
        "industry": "Ind", WILD: "Ing"}

LEGEND = (
    "market cells A1–D4 (column letter, row number); a resource side shows #id and its symbols (Eco×2), "
    "a building side #id, →what it produces and its VP (or its VP alone), then its cost (2Eco Ene: two Economy "
    "and one Energy) · a player's buildings (row B of a board) and resource cards (row R) · "
    "t4 civic token 4 · pay B1=12,15,p40,t7: building B1 paid with resource cards 12 and 15, "
    "building 40's permanent resource and token 7 [PC-3]"
)


def cell_name(cell: int) -> str:
    return "ABCD"[cell % 4] + str(cell // 4 + 1)


def symbol_text(kind: str, n: int = 1, markup: bool = True) -> str:
    """``Eco×2``, coloured by its type when ``markup``.

    >>> symbol_text("economy", 2, markup=False)
    'Eco×2'
    """
    label = ABBR[kind] + (f"×{n}" if n > 1 else "")
    return f"[{COLOUR[kind]}]{label}[/]" if markup else label


def resource_text(card: Card, markup: bool = False) -> str:
    return symbol_text(card.resource, card.symbols, markup)


def cost_text(card: Card, markup: bool = False) -> str:
    return " ".join(symbol_text(t, n, markup) for t, n in card.cost)
