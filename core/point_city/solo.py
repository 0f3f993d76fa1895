"""PC-7: the solo opponent's move.

Two market markers name a column and a row (they start on column A and row
1, PL-9).  The opponent takes the card where they cross and the card below
it (below the bottom row: the top row), whatever side shows, pays nothing,
and takes the leftmost civic token for each civic building it takes.  Then
the column marker moves right and the row marker down, wrapping.
"""

from __future__ import annotations

from core.point_city.cards import CARDS
from core.point_city.events import OpponentTook
from core.point_city.state import State


def opponent_cells(s: State) -> tuple[int, int]:
    col, row = s.marker_col, s.marker_row
    return (row * 4 + col, ((row + 1) % 4) * 4 + col)


def opponent_move(s: State) -> OpponentTook:
    cells = opponent_cells(s)
    slots = [s.market[c] for c in cells]
    cards = (slots[0].card, slots[1].card)
    sides = (slots[0].building, slots[1].building)
    civic = sum(1 for x in slots if x.building and CARDS[x.card].kind == "civic")
    tokens = s.display[:civic]
    return OpponentTook(
        cells=cells, cards=cards, buildings=sides, tokens=tokens,
        col=(s.marker_col + 1) % 4, row=(s.marker_row + 1) % 4,
    )
