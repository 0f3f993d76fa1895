"""Text: command syntax round trips, describe/explain/render, board files."""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from tests.helpers.five_by_five import play_5x5
from core.engine import CHANCE, BadCommandSyntax, BadOptions, BoardFileError
from core.five_by_five import commands as cm
from core.five_by_five import events as ev
from core.five_by_five.game import GAME
from core.five_by_five.plans import square_index

ALL_COMMANDS = [
    cm.Choose(3), cm.Place(7, 7, True), cm.Place(107, 24), cm.Swap(0, 24), cm.UsePark(), cm.Decline(),
    cm.Replace(12, 5, True), cm.Replace(12, 5), cm.Keep(), cm.DrawSides("ABABABABAB"), cm.DrawPlan(12),
    cm.DrawPlanning(1), cm.DrawPlot(4), cm.DrawTiles((12, 45, 78)),
]


@pytest.fixture(scope="module")
def game() -> tuple:
    return play_5x5("text", ("ann", "bob", "cat"), {"advanced": "yes", "sides": "random"}, ["greedy", "random", "greedy"])


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_format_parse_round_trip(command: cm.Command, game: tuple) -> None:
    s, _ = game
    text = GAME.format_command(command)
    assert GAME.parse_command(s, 0, text) == command
    assert GAME.parse_command(s, 0, "  " + text.upper() + " ") == command


def test_documented_examples() -> None:
    s, _ = play_5x5("doc", ("ann",))
    assert GAME.parse_command(s, 0, "choose 2") == cm.Choose(2)
    assert GAME.parse_command(s, 0, "place 7 B3 park") == cm.Place(7, square_index("B3"), True)
    assert GAME.parse_command(s, 0, "place 7 B3 building") == cm.Place(7, 11, False)
    assert GAME.format_command(cm.Swap(0, 6)) == "swap A1 B2"
    assert GAME.format_command(cm.DrawTiles((12, 45, 78))) == "draw 12 45 78"


def test_codes_resolve_to_tiles_in_the_bag_and_hand() -> None:
    s = GAME.apply(None, GAME.create(["ann"], {}, table=True))
    s = GAME.fold(GAME.decide(s, CHANCE, cm.DrawPlan(1)), s)
    s = GAME.fold(GAME.decide(s, CHANCE, cm.DrawPlot(6)), s)  # one square: 2 sets of 1
    c = GAME.parse_command(s, CHANCE, "draw Fe H")
    assert c == cm.DrawTiles((0, 18))
    assert GAME.parse_command(s, CHANCE, "draw Fe Fe") == cm.DrawTiles((0, 1))
    s = GAME.fold(GAME.decide(s, CHANCE, c), s)
    s = GAME.fold(GAME.decide(s, 0, cm.Choose(2)), s)
    assert GAME.parse_command(s, 0, "place h C4") == cm.Place(18, square_index("C4"))
    with pytest.raises(BadCommandSyntax):
        GAME.parse_command(s, 0, "place Fe C4")  # no Factory in the hand


@pytest.mark.parametrize(
    "text",
    ["", "fly", "choose", "choose two", "place 7", "place 7 Z9", "place 7 B3 sideways", "swap A1",
     "use now", "draw", "plot", "place 7 B3 park extra"],
)
def test_bad_syntax(text: str, game: tuple) -> None:
    with pytest.raises(BadCommandSyntax):
        GAME.parse_command(game[0], 0, text)


def test_describe_every_event_and_explain_with_rule_ids(game: tuple) -> None:
    s, events = game
    lines = [GAME.describe(e, s.players) for e in events]
    assert all(line and "\n" not in line for line in lines)
    assert len(set(type(e) for e in events)) >= 15
    before = GAME.apply(None, events[0])
    cited = 0
    for e in events[1:]:
        why = GAME.explain(before, e, s.players)
        assert why.startswith(GAME.describe(e, s.players))
        cited += bool(re.search(r"\[(FC|FL|FB)-\d+\]", why))  # [GL-2]
        before = GAME.apply(before, e)
    assert cited > len(events) // 2
    placed = next(e for e in events if isinstance(e, ev.TilePlaced))
    assert s.players[placed.seat] in GAME.describe(placed, s.players)


def test_render_shows_boards_round_and_turn(game: tuple) -> None:
    s, events = game
    mid = GAME.fold(events[: len(events) // 2])
    text = GAME.render(mid, 1)
    assert f"round {mid.round}/12" in text and ("To act" in text or "Waiting" in text)
    assert text.count("     A   B   C   D   E") == 3
    assert text.index("[bold]bob[/]") < text.index("[bold]ann[/]")  # the viewer's board first
    assert "[bold red]" in GAME.render(s, None) or "[bold green]" in GAME.render(s, None)
    assert "Game over" in GAME.render(s, None)


# -- board files ---------------------------------------------------------------------------------
BOOK_PARK_EXAMPLE = """\
# the -4 Park example: four factories, two parks
Fe Ff .  .  .
Fc Fm .  .  .
P  P  .  .  .

.  .  .  .  .
.  .  .  .  .   # trailing comment
"""


def test_score_board_park_penalty_and_json() -> None:
    sc = GAME.score_board(BOOK_PARK_EXAMPLE, "park.txt", {})
    assert sc.data["categories"]["parks"] == -4
    assert sc.data["categories"]["factories"] == 19
    assert sc.data["total"] == 19 - 4 and sc.data["planning"] is None
    assert set(sc.data["categories"]) == {
        "factories", "houses", "shops", "offices", "stations", "warehouses",
        "public_offices", "schools", "fountains", "parks",
    }
    json.dumps(sc.data)
    assert "-4" in sc.text and "park.txt" in sc.text
    assert msgspec.json.decode(msgspec.json.encode(sc.data))["total"] == 15


def test_score_board_sides_and_planning() -> None:
    b = GAME.score_board(BOOK_PARK_EXAMPLE, "p.txt", {"sides": "BAAAAAAAAA", "planning": "2"})
    assert b.data["categories"]["factories"] == 3 * 5 + 2  # A1 B1 A2 on the circumference, B2 inside
    assert b.data["planning"] == 2 and b.data["total"] == 17 - 4 + 2
    for bad in ({"sides": "AB"}, {"planning": "13"}, {"planning": "x"}, {"sides": "random"}):
        with pytest.raises(BadOptions):
            GAME.score_board(BOOK_PARK_EXAMPLE, "p.txt", bad)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("Fe Fe Ff Ff Fc\nFc Fm Fm Se X\n" + ". . . . .\n" * 3, 2, 13),
        ("Fe Fe Fe Fe\n" + ". . . . .\n" * 4, 1, 12),
        (". . . . . .\n" + ". . . . .\n" * 4, 1, 11),
        ("Hx . . . .\n" + ". . . . .\n" * 4, 1, 1),
        (". . Fz . .\n" + ". . . . .\n" * 4, 1, 5),
        (". . . . .\n" * 4, 5, 1),
        (". . . . .\n" * 6, 6, 1),
    ],
)
def test_board_file_errors(text: str, line: int, column: int) -> None:
    with pytest.raises(BoardFileError) as info:
        GAME.score_board(text, "bad.txt", {})
    assert (info.value.source, info.value.line, info.value.column) == ("bad.txt", line, column)
    assert str(info.value).startswith(f"bad.txt:{line}:{column}:")


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        # FC-2: every Factory, Shop and Warehouse carries a Goods icon
        (". . . . .\n. . . . .\n. . F . .\n" + ". . . . .\n" * 2, 3, 5, "every Factory carries a Goods icon"),
        ("H S . . .\n" + ". . . . .\n" * 4, 1, 3, "every Shop carries a Goods icon"),
        (". . . . .\n" * 4 + ". . . .  W\n", 5, 10, "every Warehouse carries a Goods icon"),
        # component counts: 4 Fountains, 2 Warehouses of each icon, 6 Schools
        ("N N N N .\n. N . . .\n" + ". . . . .\n" * 3, 2, 3, "5 tiles of Fountain on one board; the game has 4"),
        ("We . We . We\n" + ". . . . .\n" * 4, 1, 11,
         "3 tiles of Warehouse with the Electrical icon on one board; the game has 2"),
        ("E E E E E\nE E . . .\n" + ". . . . .\n" * 3, 2, 3, "7 tiles of School on one board; the game has 6"),
    ],
)
def test_boards_no_game_can_produce_are_refused(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(BoardFileError) as info:
        GAME.score_board(text, "b.txt", {})
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert words in str(info.value) and "[FC-2]" in str(info.value)


def test_the_components_allow_full_boards() -> None:
    """The count check refuses only what the box cannot hold: Parks are the back of
    any tile, and 4 Fountains, 2 We and 5 Fe are fine."""
    from core.five_by_five.boardfile import parse_board

    text = "N N N N P\nWe We Fe Fe Fe\nFe Fe P P P\n" + "P P P P P\n" * 2
    assert parse_board(text, "ok.txt") == tuple(text.split())
    assert GAME.score_board(text, "ok.txt", {}).data["categories"]["fountains"] > 0


def test_commands_name_tiles_as_the_hand_shows_them() -> None:
    """The hand shows ``Fc#10``; commands show and accept the same name, and the old
    forms (``10``, ``Fc``) still read."""
    assert GAME.format_command(cm.Place(10, square_index("B3"))) == "place Fc#10 B3"
    assert GAME.format_command(cm.Replace(12, 5, True)).startswith("replace ") and "#12 " in GAME.format_command(
        cm.Replace(12, 5, True))
    s, _ = play_5x5("doc", ("ann",))
    assert GAME.parse_command(s, 0, "place Fc#10 B3") == cm.Place(10, 11)
    assert GAME.parse_command(s, 0, "place fc#10 b3") == cm.Place(10, 11)
    assert GAME.parse_command(s, 0, "place #10 B3") == cm.Place(10, 11)
    assert GAME.parse_command(s, 0, "place 10 B3") == cm.Place(10, 11)
    for bad in ("place H#10 B3", "place Fc#x B3", "place Fc#999 B3"):
        with pytest.raises(BadCommandSyntax):
            GAME.parse_command(s, 0, bad)
