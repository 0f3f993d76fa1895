"""One coordinate system for Card City [CL-10]: the fixed frame A–I × 1–9, City Hall E5.

The issue's complaint: ``play`` offered ``build I -1,-2`` on a square the printed
board did not show, because the printed window moved from turn to turn and the
commands counted from City Hall.  Now every square a legal command names is on
the printed board, under the same name, and the old form is still read.
"""

from __future__ import annotations

import re

import pytest

from core.autoplay import play_game
from core.card_city.commands import Build, Buy, Develop
from core.card_city.game import GAME
from core.card_city.scene import scene
from core.card_city.squares import REACH, label_square, parse_square, relabel, square_label, window
from core.card_city.text import format_command, parse_command, render_city
from core.engine import BadCommandSyntax
from rich.text import Text

SQUARE = re.compile(r"^[A-I][1-9]$")


def test_every_frame_square_has_one_name_both_ways() -> None:
    names = {square_label(r, c) for r in range(-REACH, REACH + 1) for c in range(-REACH, REACH + 1)}
    assert len(names) == 81 and all(SQUARE.match(n) for n in names)
    for r in range(-REACH, REACH + 1):
        for c in range(-REACH, REACH + 1):
            assert label_square(square_label(r, c)) == (r, c) == parse_square(f"{r},{c}")
    assert square_label(0, 0) == "E5" and square_label(-1, 0) == "E4" and square_label(0, -1) == "D5"


def test_commands_are_written_in_the_frame_and_the_old_form_still_reads() -> None:
    assert format_command(Build("I", -1, -2)) == "build I C4"
    assert format_command(Develop("R", 1, 1)) == "develop R F6"
    assert format_command(Buy(0, -1)) == "buy D5"
    for text in ("build I C4", "build I c4", "build I -1,-2"):
        assert parse_command(None, 0, text) == Build("I", -1, -2)
    with pytest.raises(BadCommandSyntax, match=r"City Hall is E5.*\[CL-10\]"):
        parse_command(None, 0, "build R J4")


def test_recorded_score_lines_are_read_out_in_the_frame() -> None:
    assert relabel("Residential district of 3 at -1,-2") == "Residential district of 3 at C4"
    assert relabel("6 empty square(s)") == "6 empty square(s)"


def _labels(board: list[str]) -> tuple[list[str], list[str]]:
    lines = [Text.from_markup(x).plain for x in board]
    return lines[0].split(), [x.split()[0] for x in lines[1:]]


@pytest.mark.parametrize("seed", ["a", "b", "c"])
def test_every_square_a_legal_command_names_is_on_the_printed_board(seed: str) -> None:
    checked = 0

    def hook(before, seat, command, events) -> None:  # noqa: ANN001
        nonlocal checked
        if seat < 0:
            return
        p = before.players[seat]
        cols, rows = _labels(render_city(p.city))
        panel = next(x for x in scene(before, seat).panels if x.owner == seat)
        assert tuple(cols) == panel.col_labels and tuple(rows) == panel.row_labels  # show and TUI agree
        for legal in GAME.legal(before, seat):
            square = GAME.square_of(legal)
            if square is None:
                continue
            name = format_command(legal).split()[-1]
            assert SQUARE.match(name), name
            assert name[0] in cols and name[1:] in rows, (name, cols, rows)
            checked += 1

    play_game(GAME, ["ada", "ben", "cy"], seed, ["random"] * 3, hook=hook)
    assert checked > 100


def test_a_printed_board_never_renames_a_square() -> None:
    """The window grows and moves with the city; the labels stay with the squares."""
    small = render_city([(0, 0, "H")])
    wide = render_city([(0, -3, "R"), (0, -2, "R"), (0, -1, "P"), (0, 0, "H")])
    assert _labels(small) == (["D", "E", "F"], ["4", "5", "6"])
    assert _labels(wide) == (["A", "B", "C", "D", "E", "F"], ["4", "5", "6"])
    assert window([(0, 0, "H"), (0, 4, "R")])[1:] == (0, 3, 5)  # a full row: no square beyond it


def test_boards_in_every_printed_form_read_the_same() -> None:
    """A board as show prints it now, as an older show printed it (numbers around City Hall
    at 0,0) and bare: one city, one score, one answer from where, in the frame's names."""
    from core.card_city.boardfile import score_board, where

    city = [(-1, 0, "R"), (0, 0, "H"), (0, 1, "I")]
    now = "\n".join(Text.from_markup(x).plain for x in render_city(city)) + "\n"
    assert now.splitlines()[0].split() == list("DEFG")  # the city and every square it may grow into
    older = "      -2 -1  0  1  2\n" + "\n".join(
        f"  {r:>2}  " + "  ".join({(-1, 0): "R", (0, 0): "H", (0, 1): "I"}.get((r, c), "·") for c in range(-2, 3))
        for r in range(-2, 3)
    ) + "\n"
    bare = ". R . . .\n. H I . .\n. . . . .\n. . . . .\n. . . . .\n"
    answers = [where(text, "b", "P", {}).data for text in (now, older)]
    assert answers[0] == answers[1] and "D5" in answers[0]["legal"] and "E6" in answers[0]["legal"]
    assert set(where(bare, "b", "P", {}).data["legal"]) <= set(answers[0]["legal"])  # [CL-7]: its typed squares
    assert len({score_board(t, "b", {}).data["total"] for t in (now, older, bare)}) == 1


def test_a_printed_board_with_city_hall_off_e5_is_refused() -> None:
    from core.card_city.boardfile import parse_board
    from core.engine import BoardFileError

    with pytest.raises(BoardFileError, match=r"b:3:10: City Hall is at E5 in the frame, not at F5 \[CL-10\]"):
        parse_board("      E  F\n   4  ·  R\n   5  ·  H\n", "b")


def test_score_reads_a_board_copied_with_the_lines_around_it() -> None:
    """A player's board copied from show with its name line above and the next player
    below: the board is read, the rest left out."""
    from core.card_city.boardfile import score_board
    from core.card_city.scoring import final_score

    state, _ = play_game(GAME, ["ada", "ben"], "around", ["random"] * 2)
    shown = Text.from_markup(GAME.render(state, None)).plain
    ada = state.players[0]
    got = score_board(shown.split("\n", 1)[1], "show.txt", {"coins": str(ada.coins)})
    assert got.data["total"] == final_score(0, ada.grid(), ada.coins, False).total
