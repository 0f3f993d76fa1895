"""The referee's tools for boards typed in from the table: ``score`` and ``where``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.errors import guarded
from cli.inputs import read_small_text
from cli.output import emit_json, say_markup
from cli.options import Json
from core import registry
from core.engine import BoardScore


def score(
    game: Annotated[str, typer.Argument(metavar="KIND", help="A kind of game that scores boards typed in")],
    boards: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Board files")],
    coins: Annotated[Optional[int], typer.Option(help="Coins at the end")] = None,
    variant: Annotated[Optional[str], typer.Option(help="The variant played (decentralization)")] = None,
    sides: Annotated[Optional[str], typer.Option(help="A/B per building card, e.g. ABAAABBAAA")] = None,
    planning: Annotated[Optional[int], typer.Option(help="The Planning card (1-12)")] = None,
    json: Json = False,
) -> None:
    """Score finished boards typed in from the table.

    A board file is a board exactly as citylog show prints it (the column
    letters above, each row starting with its number, · an empty square), or a
    bare 5 × 5: five lines of five squares, top row first. Blank lines and #
    comments are ignored, and so are lines around a copied board (the player's
    name above it, the next player below).

    Card City: H R C L I P, . or · empty; squares are named in the frame the
    commands use, columns A–I and rows 1–9 with City Hall at E5 [CL-10] (a bare
    board's City Hall is E5 wherever it was typed). 5x5 City: F S H E O N T P W
    G, a Factory, Shop or Warehouse with its Goods letter (Fe, Sm, Wc), . or a
    section number empty; squares A1–E5.

    \b
    Example:
      citylog score card-city board.txt --coins 36
      citylog score 5x5-city board.txt --sides ABAAABBAAA --planning 4 --json
    """
    g = registry.get(game)
    params = {
        k: str(v)
        for k, v in {"coins": coins, "variant": variant, "sides": sides, "planning": planning}.items()
        if v is not None
    }
    results: list[BoardScore] = [g.score_board(read_small_text(p), str(p), params) for p in boards]
    for r in results:
        emit_json(r.data) if json else say_markup(r.text)


def where(
    game: Annotated[str, typer.Argument(metavar="KIND", help="A kind of game that answers where a card may go")],
    board: Annotated[Path, typer.Argument(metavar="FILE", help="A board file")],
    card: Annotated[str, typer.Option(help="R, C, L, I or P")],
    coins: Annotated[Optional[int], typer.Option(help="Coins in hand (Leisure costs 5)")] = None,
    json: Json = False,
) -> None:
    """Where may this card be built?

    The legal squares, and the rule that forbids each other one.

    The board file is as for citylog score: a Card City board copied from
    citylog show as printed (column letters, row numbers, · empty), or a bare
    5 × 5 of H R C L I P and . (empty). Squares are answered in the frame the
    commands use, City Hall at E5 [CL-10], for the squares of the typed board
    only [CL-7].

    \b
    Example:
      citylog where card-city board.txt --card R --coins 3
    """
    params = {"coins": str(coins)} if coins is not None else {}
    r = registry.get(game).where_board(read_small_text(board), str(board), card.upper(), params)
    emit_json(r.data) if json else say_markup(r.text)


def register(app: typer.Typer) -> None:
    app.command("score")(guarded(score))
    app.command("where")(guarded(where))
