"""Card City's squares as players name them: a fixed, labelled 9 × 9 frame [CL-10].

A city grows from City Hall and stays within 5 × 5 [CC-1], so no card is ever
more than 4 squares from City Hall in any direction.  Every board citylog
prints, every command and every answer of ``score``/``where`` names a square in
one frame around City Hall: columns ``A``–``I`` left to right, rows ``1``–``9``
top to bottom, City Hall always at ``E5``.  A printed board may show only part
of the frame (the city and the squares it may still grow into), but a square's
name never changes from one turn to the next.

Events keep the City-Hall-relative ``(row, col)`` they always held (``0,0`` is
City Hall, rows down, columns right), and commands still read that old form
(``build R -1,0`` is ``build R E4``) so that scripts and logs keep working.

>>> square_label(0, 0), square_label(-1, -2), square_label(4, 4)
('E5', 'C4', 'I9')
>>> parse_square("c4"), parse_square("-1,-2")
((-1, -2), (-1, -2))
>>> relabel("Residential district of 3 at -1,-2")
'Residential district of 3 at C4'
>>> window([(0, 0, "H")])
(-1, -1, 3, 3)
>>> window([(0, -3, "R"), (0, 0, "H")])
(-1, -4, 3, 6)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.engine import BadCommandSyntax

REACH = 4
"""How far from City Hall a card may lie [CC-1]: the frame is ``2 × REACH + 1`` squares wide."""
COLUMNS = "ABCDEFGHI"
ROWS = tuple(str(n) for n in range(1, 2 * REACH + 2))
_LABEL = re.compile(r"^([A-Ia-i])([1-9])$")
_OLD = re.compile(r"^(-?\d+),(-?\d+)$")
_AT = re.compile(r"\bat (-?\d+),(-?\d+)\b")


def in_frame(row: int, col: int) -> bool:
    return -REACH <= row <= REACH and -REACH <= col <= REACH


def column_label(col: int) -> str:
    return COLUMNS[col + REACH] if -REACH <= col <= REACH else str(col)


def row_label(row: int) -> str:
    return str(row + REACH + 1) if -REACH <= row <= REACH else str(row)


def square_label(row: int, col: int) -> str:
    """``E5`` for City Hall; a square outside the frame (no legal move names one) keeps ``row,col``."""
    if not in_frame(row, col):
        return f"{row},{col}"
    return f"{column_label(col)}{row_label(row)}"


def label_square(label: str) -> tuple[int, int] | None:
    """The City-Hall-relative ``(row, col)`` of ``D4``; None when ``label`` is not a frame square."""
    m = _LABEL.match(label.strip())
    if m is None:
        return None
    return int(m.group(2)) - REACH - 1, COLUMNS.index(m.group(1).upper()) - REACH


def parse_square(token: str) -> tuple[int, int]:
    """A square as a command writes it: ``D4`` (the frame) or the old ``-1,0`` (City Hall at 0,0)."""
    found = label_square(token)
    if found is not None:
        return found
    m = _OLD.match(token.strip())
    if m is None:
        raise BadCommandSyntax(
            f"{token!r} is not a square; write a column A–I and a row 1–9 such as D4 "
            "(City Hall is E5) [CL-10]"
        )
    return int(m.group(1)), int(m.group(2))


def relabel(text: str) -> str:
    """``at -1,-2`` in a recorded sentence (a score line) said in the frame: ``at C4``."""
    return _AT.sub(lambda m: "at " + square_label(int(m.group(1)), int(m.group(2))), text)


def _span(values: list[int]) -> tuple[int, int]:
    """First and last index along one axis: the occupied extent and every square it may still grow into."""
    lo, hi = min(values), max(values)
    first = max(lo - 1, hi - REACH, -REACH)
    last = min(hi + 1, lo + REACH, REACH)
    return first, last


def window(cells: Iterable[tuple[int, int, str]]) -> tuple[int, int, int, int]:
    """``(top, left, rows, cols)`` of the part of the frame a printed board shows.

    The city and every square a card could still go (one beyond the city, within
    5 × 5); always within the frame, so the labels are the frame's.
    """
    listed = list(cells) or [(0, 0, "H")]
    top, bottom = _span([r for r, _, _ in listed])
    left, right = _span([c for _, c, _ in listed])
    return top, left, bottom - top + 1, right - left + 1
