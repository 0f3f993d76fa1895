"""Boards typed in from the table: parsing, scoring, and "where may this card go?".

A board file is 5 lines of 5 whitespace-separated tokens — ``H`` City Hall,
``R`` Residential, ``C`` Commercial, ``L`` Leisure, ``I`` Industrial, ``P``
Parking, ``.`` empty.  Blank lines and ``#`` comments are ignored.  Squares are
``(row, col)`` from 0 at the top left, as in the file.  A city holds no more
cards of a kind than the box (a board no game can produce is refused), and
``where`` answers for the squares of the typed 5 × 5 only (CL-7).

>>> g = parse_board("H R . . .\\n. . . . .\\n" + ". . . . .\\n" * 3, "b.txt")
>>> sorted(g.items())
[((0, 0), 'H'), ((0, 1), 'R')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.card_city.cards import BOX, NAMES
from core.card_city.city import (
    Grid,
    Square,
    construction_squares,
    construction_violation,
    frontier,
    neighbours,
)
from core.card_city.scoring import final_score
from core.boardtext import Token, board_tokens
from core.engine import BadOptions, BoardFileError, BoardScore
from core.markup import escape

TOKENS = {"H", "R", "C", "L", "I", "P", "."}


def parse_board(text: str, source: str) -> dict[Square, str]:
    rows = board_tokens(text, source)
    grid: dict[Square, str] = {}
    halls: list[tuple[int, int]] = []
    seen: dict[str, int] = {}
    for r, row in enumerate(rows):
        for c, (line, column, token) in enumerate(row):
            if token not in TOKENS:
                raise BoardFileError(source, line, column, f"unknown token {token!r} (use H R C L I P or .)")
            if token == ".":
                continue
            grid[(r, c)] = token
            seen[token] = seen.get(token, 0) + 1  # CL-7: no more than the box holds
            if token != "H" and seen[token] > BOX[token]:
                raise BoardFileError(
                    source, line, column,
                    f"{seen[token]} {NAMES[token]} cards in one city; the box holds {BOX[token]}",
                )
            if token == "H":
                halls.append((line, column))
    if not halls:
        raise BoardFileError(source, rows[0][0][0], 1, "the board has no City Hall (H)")
    if len(halls) > 1:
        line, column = halls[1]
        raise BoardFileError(source, line, column, "a city has only one City Hall")
    _check_connected(grid, rows, source)
    return grid


def _check_connected(grid: Grid, rows: list[list[Token]], source: str) -> None:
    """CL-5: a board is one connected city around its City Hall."""
    hall = next(sq for sq, k in grid.items() if k == "H")
    seen, stack = {hall}, [hall]
    while stack:
        for n in neighbours(stack.pop()):
            if n in grid and n not in seen:
                seen.add(n)
                stack.append(n)
    for sq in sorted(grid):
        if sq not in seen:
            line, column, _ = rows[sq[0]][sq[1]]
            raise BoardFileError(source, line, column, "this card is not connected to the city (CL-5)")


def _coins(params: Mapping[str, str]) -> int:
    raw = params.get("coins", "0")
    try:
        coins = int(raw)
    except ValueError:
        raise BadOptions(f"--coins must be a whole number, not {raw!r}") from None
    if coins < 0:
        raise BadOptions("--coins cannot be negative")
    return coins


def score_board(text: str, source: str, params: Mapping[str, str]) -> BoardScore:
    grid = parse_board(text, source)
    coins = _coins(params)
    variant = params.get("variant", "")
    if variant not in ("", "decentralization"):
        raise BadOptions(f"unknown variant {variant!r} (Card City scoring knows: decentralization)")
    b = final_score(0, grid, coins, decentralization=variant == "decentralization")
    data: dict[str, Any] = {
        "source": source,
        "total": b.total,
        "coins_left": coins % 5,
        "breakdown": [{"label": l.label, "points": l.points, "detail": l.detail} for l in b.lines],
        "residential": [l.points for l in b.lines if l.label == "residential"],
        "empty": 25 - len(grid),
    }
    width = max(len(l.detail) for l in b.lines)
    out = [f"[bold]{escape(source)}[/]"]
    for line in b.lines:
        out.append(f"  {line.detail:<{width}}  {line.points:>4}")
    out.append(f"  {'total':<{width}}  {b.total:>4}  ({coins % 5} coin(s) left)")
    return BoardScore(data=data, text="\n".join(out))


def _typed(sq: Square) -> bool:
    """CL-7: the squares of a typed board are its 5 × 5."""
    return 0 <= sq[0] < 5 and 0 <= sq[1] < 5


def where(text: str, source: str, card: str, params: Mapping[str, str]) -> BoardScore:
    """Every square where ``card`` may be built now, and why each other one may not."""
    if card not in NAMES or card == "H":
        raise BadOptions(f"--card must be one of R C L I P, not {card!r}")
    grid = parse_board(text, source)
    coins = _coins(params) if "coins" in params else 5  # CL-6: unknown coins: cost not held against it
    legal = [sq for sq in construction_squares(grid, card, coins) if _typed(sq)]
    illegal = []
    for sq in filter(_typed, frontier(grid)):
        found = construction_violation(grid, card, sq, coins)
        if found is not None:
            illegal.append({"square": [sq[0], sq[1]], "rule": found[0], "reason": found[1]})
    data = {"legal": [[r, c] for r, c in legal], "illegal": illegal}
    out = [f"[bold]{escape(source)}[/]: where may a {NAMES[card]} card go?"]
    out.append("  legal: " + (" ".join(f"({r},{c})" for r, c in legal) or "nowhere (CC-2: discard it)"))
    for item in illegal:
        r, c = item["square"]
        out.append(f"  ({r},{c}) [{item['rule']}] {item['reason']}")
    return BoardScore(data=data, text="\n".join(out))
