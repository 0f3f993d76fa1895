"""Board files for ``citylog score 5x5-city BOARD_FILE``: parse and score a finished board.

A board file is 5 lines of 5 whitespace-separated tokens, top row first:
``F`` Factory, ``S`` Shop, ``H`` House, ``E`` School, ``O`` Office, ``N``
Fountain, ``T`` Station, ``P`` Park, ``W`` Warehouse, ``G`` Public Office,
``.`` empty.  ``F``, ``S`` and ``W`` carry their Goods letter ``e``/``f``/``c``/``m``
(``Fe``, ``Wm``): every one has an icon [FC-2].  A board holds no more tiles of a
kind (and icon) than the game has (5 Fountains, 3 ``We`` are refused).  Blank
lines and ``#`` comments are ignored.  A board copied
from ``citylog show`` reads as it is: the ``A``–``E`` header and ``1``–``5``
row labels are skipped, and an empty square's section number means empty.

>>> parse_board("Fe Fe Ff Fm .\\n. . P P .\\n" + ". . . . .\\n" * 3, "b.txt")[:5]
('Fe', 'Fe', 'Ff', 'Fm', '')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from core.boardtext import board_tokens
from core.engine import BadOptions, BoardFileError, BoardScore
from core.five_by_five.cards import BUILDING_CARDS, PLANNING_CARDS, expand_sides
from core.five_by_five.scoring import score_board
from core.five_by_five.tiles import GOODS, GOODS_NAMES, PARK, TILES, TYPE_NAMES, TYPES, WITH_GOODS
from core.markup import escape

IN_THE_BOX: Counter[str] = Counter(t.code for t in TILES)
"""Tiles per cell code (``Fe``, ``H``…): 108 in all (the rulebook's components, FC-2)."""


def _token(tok: str, source: str, line: int, col: int) -> str:
    if tok == "." or tok.isdigit():  # a section number, as ``show`` prints an empty square
        return ""
    kind, goods = tok[:1], tok[1:]
    if kind not in TYPES:
        raise BoardFileError(source, line, col, f"unknown tile {tok!r} (use F S H E O N T P W G or .)")
    if goods:
        if kind not in WITH_GOODS:
            raise BoardFileError(source, line, col, f"{tok!r}: only F, S and W carry a Goods letter")
        if len(goods) != 1 or goods not in GOODS:
            raise BoardFileError(source, line, col, f"{tok!r}: Goods letter is one of e f c m")
    elif kind in WITH_GOODS:
        raise BoardFileError(
            source, line, col,
            f"{tok!r}: every {TYPE_NAMES[kind]} carries a Goods icon [FC-2]; "
            f"write {', '.join(kind + g for g in GOODS)}",
        )
    return tok


def _name(code: str) -> str:
    kind, goods = code[:1], code[1:]
    return TYPE_NAMES[kind] + (f" with the {GOODS_NAMES[goods]} icon" if goods else "")


def parse_board(text: str, source: str) -> tuple[str, ...]:
    """The 25 cells of a board file; ``BoardFileError`` names line and column."""
    cells: list[str] = []
    seen: Counter[str] = Counter()
    for row in board_tokens(text, source):
        for line, col, tok in row:
            code = _token(tok, source, line, col)
            if code and code != PARK:  # a Park is the back of any tile
                seen[code] += 1
                if seen[code] > IN_THE_BOX[code]:
                    raise BoardFileError(
                        source, line, col,
                        f"{tok!r}: {seen[code]} tiles of {_name(code)} on one board; "
                        f"the game has {IN_THE_BOX[code]} [FC-2]",
                    )
            cells.append(code)
    return tuple(cells)


def score_text(text: str, source: str, params: Mapping[str, str]) -> BoardScore:
    try:
        sides = expand_sides(params.get("sides") or "A")
    except ValueError as exc:
        raise BadOptions(str(exc)) from None
    if not sides:
        raise BadOptions("sides: give the 10 letters used at the table, not 'random'")
    planning: int | None = None
    if params.get("planning"):
        try:
            planning = int(params["planning"])
        except ValueError:
            planning = 0
        if planning not in PLANNING_CARDS:
            raise BadOptions(f"planning {params['planning']!r}: a Planning card number 1–12")
    cells = parse_board(text, source)
    sc = score_board(cells, sides, planning)
    lines = [f"[bold]{escape(source)}[/]"]
    for card, side in zip(BUILDING_CARDS, sides):
        pts = sc.categories[card.key]
        lines.append(f"{card.number:>2}. {card.name:<15} {side} {pts:>4}   {sc.details[card.key]}")
    if planning:
        lines.append(f"    Planning {planning:<10}   {sc.planning_points:>4}   {PLANNING_CARDS[planning]}")
    lines.append(f"    [bold]Total{'':<15}{sc.total:>4}[/]")
    data = {
        "total": sc.total,
        "categories": dict(sc.categories),
        "planning": sc.planning_points if planning else None,
        "planning_card": planning,
        "sides": sides,
        "details": dict(sc.details),
    }
    return BoardScore(data=data, text="\n".join(lines))
