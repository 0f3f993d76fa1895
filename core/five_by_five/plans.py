"""The 12 Building Plans [FC-1]: the project's own section layouts.

Each plan splits the 25 squares of a City board into 12 orthogonally connected
sections of 1, 2 or 3 squares, numbered 1–12.  Plans come on 6 double-sided
cards (1/2, 3/4, … 11/12); all players use the plan whose number matches the
Building Plot card drawn at setup.

Squares are numbered 0–24 in reading order (row * 5 + column); in text they are
written column letter + row digit, ``A1`` top left, ``E5`` bottom right.

>>> section_squares(1, 3)
(20, 21, 22)
>>> square_name(7), square_index("C2")
('C2', 7)
"""

from __future__ import annotations

from functools import cache

_LAYOUTS: dict[int, tuple[str, ...]] = {
    1: (
" 4 10 12 12  1",
        " 4  9 12  8  1",
        " 4  9  7  8  8",
        "11  9  6  2  5",
        " 3  3  3  5  5",
    ),
    2: (
" 1  6  6  5 11",
        " 1  6  9 11 11",
        " 8  7  2  2  4",
        " 8  8 10 10  3",
        "12 12 12  3  3",
    ),
    3: (
" 2  9  7  4  4",
        " 6 11 11 11  4",
        " 6 10  1  1  3",
        " 6 10  8  3  3",
        " 5  5  8 12 12",
    ),
    4: (
" 1  1 12 12  2",
        " 9  6  6  4  2",
        " 9  9  6  4  2",
        "11 10 10  8  8",
        " 3  3  5  5  7",
    ),
    5: (
" 2  2  1  1  1",
        " 5  5  6  6  8",
        "10 10  7  7  8",
        " 4  4 11 11 12",
        " 4  3  3  9 12",
    ),
    6: (
" 4  4  1 12  6",
        " 3  3  1 12  6",
        " 3  7  7  8  8",
        "11 11  2  2  5",
        "10 10  9  9  5",
    ),
    7: (
" 1  1  6  9  9",
        " 1  3  6  6  9",
        "10  2 12 12 12",
        " 7  2  2 11  5",
        " 7  7  8  4  4",
    ),
    8: (
" 2  1  7  6 11",
        "12  9  6  6 10",
        "12  9  3  5 10",
        "12  9  3  5  8",
        " 4  4  3  8  8",
    ),
    9: (
" 8  8  7 11 11",
        " 5  7  7  6 12",
        " 5  5  3  6 12",
        " 4  3  3  6  2",
        " 1  1  9 10  2",
    ),
    10: (
" 1 10 10  7  7",
        " 1  3  3  6  6",
        " 1 12  8 11  5",
        " 4 12  8  9  5",
        " 4  2  9  9  5",
    ),
    11: (
" 7 12 12  1  1",
        " 7 10 10  9  9",
        " 5  6  3  3  4",
        " 5  6  3  8  4",
        "11  2  2  8  8",
    ),
    12: (
"10 10 10  5  2",
        " 9  3  3  5  2",
        " 9  7  4 12  6",
        "11  7  4 12  6",
        "11  8  8  1  1",
    ),
}

PLAN_NUMBERS: tuple[int, ...] = tuple(range(1, 13))
COLUMNS = "ABCDE"


def card_of(plan: int) -> tuple[int, int]:
    """The double-sided card holding ``plan``: (odd, even) side numbers."""
    odd = plan if plan % 2 else plan - 1
    return (odd, odd + 1)


@cache
def layout(plan: int) -> tuple[int, ...]:
    """The section number of each of the 25 squares of ``plan``."""
    rows = _LAYOUTS[plan]
    return tuple(int(tok) for row in rows for tok in row.split())


@cache
def section_squares(plan: int, section: int) -> tuple[int, ...]:
    """The squares of ``section`` on ``plan``, in reading order."""
    return tuple(i for i, s in enumerate(layout(plan)) if s == section)


def section_size(plan: int, section: int) -> int:
    return len(section_squares(plan, section))


def square_name(square: int) -> str:
    row, col = divmod(square, 5)
    return f"{COLUMNS[col]}{row + 1}"


def square_index(name: str) -> int:
    """Inverse of :func:`square_name`; ``ValueError`` when it is not a square."""
    text = name.strip().upper()
    if len(text) != 2 or text[0] not in COLUMNS or text[1] not in "12345":
        raise ValueError(f"not a square: {name!r} (use A1 … E5)")
    return (int(text[1]) - 1) * 5 + COLUMNS.index(text[0])
