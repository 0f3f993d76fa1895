"""Boards typed in from the table: parsing, scoring, and "where may this card go?".

The board-file format [CL-10] (``citylog score --help`` and the README say the same):

* **A bare board**: 5 lines of 5 whitespace-separated tokens — ``H`` City Hall,
  ``R`` Residential, ``C`` Commercial, ``L`` Leisure, ``I`` Industrial, ``P``
  Parking, ``.`` (or ``·``) empty — the city's 5 × 5 [CL-7].
* **A board copied from ``citylog show``**, as it is printed: a header of column
  letters (``C D E F G``), then rows that start with their number (``3`` … ``7``),
  any size within the frame; ``·`` is an empty square; lines around it (the
  player's name, the next player) are left out.  City Hall is at ``E5``.

Blank lines and ``#`` comments are ignored.  Either way, squares are named in
the frame around City Hall that commands use (``E5`` City Hall, ``E4`` the square
above it); boards printed by older versions (numbers ``-2 … 2`` across) still
read.  A city holds no more cards of a kind than the box (a board no game can
produce is refused), and ``where`` answers for the squares of the typed board
only [CL-7].

>>> g = parse_board("H R . . .\\n. . . . .\\n" + ". . . . .\\n" * 3, "b.txt")
>>> sorted(g.items())
[((0, 0), 'H'), ((0, 1), 'R')]
>>> sorted(parse_board("    D  E  F\\n 4  ·  R  ·\\n 5  ·  H  ·\\n", "b.txt").items())
[((0, 1), 'R'), ((1, 1), 'H')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.card_city.cards import BOX, NAMES
from core.card_city.city import (
    Square,
    construction_squares,
    construction_violation,
    frontier,
    neighbours,
)
from core.card_city.scoring import final_score
from core.card_city.squares import COLUMNS, REACH, ROWS, relabel, square_label
from core.words import plurals
from core.boardtext import board_labels, board_tokens, frame_tokens
from core.engine import BadOptions, BoardFileError, BoardScore
from core.markup import escape

TOKENS = {"H", "R", "C", "L", "I", "P", "."}


class _Typed:
    """A typed board: its cards and every typed square, City-Hall-relative, with where each token was."""

    def __init__(self) -> None:
        self.grid: dict[Square, str] = {}
        self.squares: set[Square] = set()
        self.at: dict[Square, tuple[int, int]] = {}
        self.in_file: dict[Square, str] = {}
        """The cards by ``(row, col)`` in the file, from 0 at its top left."""


def _read(text: str, source: str) -> _Typed:
    framed = frame_tokens(text, source, COLUMNS)
    origin: tuple[int, int] | None
    if framed is not None:
        top, first, rows = framed
        origin = (top - REACH - 1, first - REACH)  # file row 0, column 0 in City-Hall-relative squares
        if len(rows) > len(ROWS) or len(rows[0]) > len(COLUMNS) or not 1 <= top <= len(ROWS) - len(rows) + 1:
            raise BoardFileError(source, rows[0][0][0], 1, "rows are numbered 1–9, columns lettered A–I [CL-10]")
    else:
        rows = board_tokens(text, source)
        origin = _old_origin(text)
    seen: dict[str, int] = {}
    halls: list[tuple[Square, tuple[int, int]]] = []
    placed: list[tuple[Square, str, tuple[int, int]]] = []
    for r, row in enumerate(rows):
        for c, (line, column, token) in enumerate(row):
            if token not in TOKENS:
                raise BoardFileError(source, line, column, f"unknown token {token!r} (use H R C L I P or .)")
            placed.append(((r, c), token, (line, column)))
            if token == ".":
                continue
            seen[token] = seen.get(token, 0) + 1  # CL-7: no more than the box holds
            if token != "H" and seen[token] > BOX[token]:
                raise BoardFileError(
                    source, line, column,
                    f"{seen[token]} {NAMES[token]} cards in one city; the box holds {BOX[token]}",
                )
            if token == "H":
                halls.append(((r, c), (line, column)))
    if not halls:
        raise BoardFileError(source, rows[0][0][0], 1, "the board has no City Hall (H)")
    if len(halls) > 1:
        line, column = halls[1][1]
        raise BoardFileError(source, line, column, "a city has only one City Hall")
    (hr, hc), (line, column) = halls[0]
    if origin is None:  # a bare board: City Hall is where it was typed
        origin = (-hr, -hc)
    elif (hr + origin[0], hc + origin[1]) != (0, 0):
        where_ = square_label(hr + origin[0], hc + origin[1])
        raise BoardFileError(source, line, column, f"City Hall is at E5 in the frame, not at {where_} [CL-10]")
    typed = _Typed()
    for (r, c), token, pos in placed:
        sq = (r + origin[0], c + origin[1])
        typed.squares.add(sq)
        typed.at[sq] = pos
        if token != ".":
            typed.grid[sq] = token
            typed.in_file[(r, c)] = token
    _check_connected(typed, source)
    return typed


def _old_origin(text: str) -> tuple[int, int] | None:
    """A board printed by an older ``show`` (City Hall at ``0,0``, numbers across): the file's
    top-left square; None for a bare board."""
    labels = board_labels(text)
    if labels is None:
        return None
    try:
        return int(labels[0][0]), int(labels[1][0])
    except ValueError:
        return None


def parse_board(text: str, source: str) -> dict[Square, str]:
    """The cards of a typed board by ``(row, col)`` in the file, from 0 at its top left
    (scoring does not depend on where the origin is; ``score``/``where`` name squares in the frame)."""
    return _read(text, source).in_file


def _check_connected(typed: _Typed, source: str) -> None:
    """CL-5: a board is one connected city around its City Hall."""
    grid = typed.grid
    seen, stack = {(0, 0)}, [(0, 0)]
    while stack:
        for n in neighbours(stack.pop()):
            if n in grid and n not in seen:
                seen.add(n)
                stack.append(n)
    for sq in sorted(grid):
        if sq not in seen:
            line, column = typed.at[sq]
            raise BoardFileError(source, line, column, "this card is not connected to the city [CL-5]")


def _coins(params: Mapping[str, str]) -> int:
    raw = params.get("coins", "0")
    try:
        coins = int(raw)
    except ValueError:
        raise BadOptions(f"--coins must be a whole number, not {raw!r}") from None
    if coins < 0:
        raise BadOptions("--coins cannot be negative")
    return coins


def _said(detail: str) -> str:
    """A score line's detail as the recorded breakdowns are read out (``core.card_city.game``)."""
    return plurals(relabel(detail))


def score_board(text: str, source: str, params: Mapping[str, str]) -> BoardScore:
    grid = _read(text, source).grid
    coins = _coins(params)
    variant = params.get("variant", "")
    if variant not in ("", "decentralization"):
        raise BadOptions(f"unknown variant {variant!r} (Card City scoring knows: decentralization)")
    b = final_score(0, grid, coins, decentralization=variant == "decentralization")
    data: dict[str, Any] = {
        "source": source,
        "total": b.total,
        "coins_left": coins % 5,
        "breakdown": [{"label": s.label, "points": s.points, "detail": _said(s.detail)} for s in b.lines],
        "residential": [s.points for s in b.lines if s.label == "residential"],
        "empty": 25 - len(grid),
    }
    width = max(len(_said(s.detail)) for s in b.lines)
    out = [f"[bold]{escape(source)}[/]"]
    for line in b.lines:
        out.append(f"  {_said(line.detail):<{width}}  {line.points:>4}")
    left = coins % 5
    out.append(f"  {'total':<{width}}  {b.total:>4}  ({left} coin{'' if left == 1 else 's'} left over)")
    return BoardScore(data=data, text="\n".join(out))


def where(text: str, source: str, card: str, params: Mapping[str, str]) -> BoardScore:
    """Every square where ``card`` may be built now, and why each other one may not (squares named
    in the frame [CL-10])."""
    if card not in NAMES or card == "H":
        raise BadOptions(f"--card must be one of R C L I P, not {card!r}")
    typed = _read(text, source)
    grid = typed.grid
    coins = _coins(params) if "coins" in params else 5  # CL-6: unknown coins: cost not held against it
    legal = [sq for sq in construction_squares(grid, card, coins) if sq in typed.squares]  # CL-7
    illegal: list[dict[str, str]] = []
    for sq in sorted(sq for sq in frontier(grid) if sq in typed.squares):
        found = construction_violation(grid, card, sq, coins)
        if found is not None:
            illegal.append({"square": square_label(*sq), "rule": found[0], "reason": found[1]})
    labels = [square_label(*sq) for sq in sorted(legal)]
    data = {"legal": labels, "illegal": illegal}
    out = [f"[bold]{escape(source)}[/]: where may {'an' if card == 'I' else 'a'} {NAMES[card]} card go? (City Hall is E5)"]
    out.append("  legal: " + (" ".join(labels) or "nowhere ([CC-2]: discard it)"))
    for item in illegal:
        out.append(f"  {item['square']} [{item['rule']}] {item['reason']}")
    return BoardScore(data=data, text="\n".join(out))
