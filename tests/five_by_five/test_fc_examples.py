"""Every worked example of the rulebook's Building Tile Explanation, rebuilt as a board.

Boards are board-file text: ``.`` is empty.  Each test builds the situation the
book's example describes and checks the number the book gives.
"""

from __future__ import annotations

import pytest

from tests.helpers.five_by_five import board, sides_with
from core.five_by_five.scoring import planning_score, score_board, kinds, solo_title


def flat(tokens: list[str]) -> tuple[str, ...]:
    return board("\n".join(" ".join(tokens[r * 5 : r * 5 + 5]) for r in range(5)))


def cat(cells: tuple[str, ...], key: str, side: str) -> int:
    return score_board(cells, sides_with(key, side)).categories[key]


def test_factories_a_six_or_more_is_30() -> None:
    six = board("F F F F F\nF . . . .\n. . . . .\n. . . . .\n. . . . .")
    assert cat(six, "factories", "A") == 30
    seven = board("F F F F F\nF F . . .\n. . . . .\n. . . . .\n. . . . .")
    assert cat(seven, "factories", "A") == 30
    counts = [cat(flat(["F"] * n + ["."] * (25 - n)), "factories", "A") for n in range(1, 6)]
    assert counts == [3, 8, 13, 19, 24]


def test_factories_b_corners_5_centre_2() -> None:
    cells = board("F . . . F\n. . . . .\n. . F . .\n. . . . .\n. . . . .")
    assert cat(cells, "factories", "B") == 5 + 5 + 2


def test_houses_a_example() -> None:
    # upper right house: park beside, no factory -> 5; lower left: factory and park beside -> 2
    cells = board(". . . P H\n. . . . .\n. . . . .\nP . . . .\nH F . . .")
    assert cat(cells, "houses", "A") == 5 + 2


def test_houses_b_example() -> None:
    # right house: a house and a park next to it -> 5; upper left: a house, no park -> 2
    cells = board("H H P . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .")
    assert cat(cells, "houses", "B") == 5 + 2


def test_shops_a_by_rows() -> None:
    cells = board("S . . . .\nS S S . .\n. S . S .\n. . . . .\n. . . . .")
    assert cat(cells, "shops", "A") == 2 + 11 + 6


def test_shops_b_by_columns() -> None:
    cells = board("S S S . .\nS . . . .\nS . S . .\n. . . . .\n. . . . .")
    assert cat(cells, "shops", "B") == 11 + 2 + 6


def test_shop_line_of_five_is_25() -> None:
    cells = board("S S S S S\n. . . . .\n. . . . .\n. . . . .\n. . . . .")
    assert cat(cells, "shops", "A") == 25
    assert cat(cells, "shops", "B") == 5 * 2


def test_offices_a_chains_of_3_and_2() -> None:
    cells = board("O O . . O\nO . . . O\n. . . . .\n. . . . .\n. . . . .")
    assert cat(cells, "offices", "A") == 11 + 6


def test_offices_a_long_chain_caps_at_30() -> None:
    cells = board("O O O O O\nO O . . .\n. . . . .\n. . . . .\n. . . . .")
    assert cat(cells, "offices", "A") == 30


def test_offices_b_four_rows_15() -> None:
    cells = board("O . . . .\n. O O . .\n. . . . O\n. . . . .\n. O . . .")
    assert cat(cells, "offices", "B") == 15


def test_stations_a_and_b_example_fc4() -> None:
    cells = board("T . . . .\n. . . . T\n. . . . .\n. . . . T\n. . . . .")
    assert cat(cells, "stations", "A") == 4 + 1 + 1
    assert cat(cells, "stations", "B") == 1 + 4 + 4


def test_warehouses_a_counts_matching_icons() -> None:
    # Medicine warehouse; 4 buildings with Medicine, the warehouse included
    cells = board("Wm Fm Sm . .\nSm Fe . . .\nSc . . . .\nP . . . .\n. . . . .")
    assert cat(cells, "warehouses", "A") == 4


def test_warehouses_b_example() -> None:
    # Medicine warehouse: factory and shop with Medicine -> 4; Clothing: shop only -> 2
    cells = board("Wm Fm . . .\nSm . . . .\n. . . . .\nWc Sc . . .\nFe Se . . .")
    assert cat(cells, "warehouses", "B") == 4 + 2


def test_public_office_a_three_types_fc5() -> None:
    cells = board(". H . . .\nF G F . .\n. Wc . . .\n. . . . .\n. . . . .")
    assert cat(cells, "public_offices", "A") == 3


def test_public_office_a_counts_park_fc5() -> None:
    cells = board(". P . . .\nF G S . .\n. O . . .\n. . . . .\n. . . . .")
    assert cat(cells, "public_offices", "A") == 4


def test_public_office_b_example_fc5() -> None:
    cells = board(". O . . .\nO G F . .\n. Wc . . .\n. . . . .\n. . . . .")
    assert cat(cells, "public_offices", "B") == 3


def test_schools_a_and_b() -> None:
    cells = board("H E H . .\n. . . . .\n. . . E .\n. . . H .\n. . . . .")
    assert cat(cells, "schools", "A") == 8
    assert cat(cells, "schools", "B") == 0
    offices = board("O E O . .\n. . . . .\n. . . E .\n. . . O .\n. . . . .")
    assert cat(offices, "schools", "B") == 8
    assert cat(offices, "schools", "A") == 0


def test_fountains_a_chain_of_six_two_fountains_fc6() -> None:
    cells = board("N P P . .\nP P N . .\n. . . . .\n. . . . H\n. . . . .")
    assert cat(cells, "fountains", "A") == 12


def test_fountains_a_max_8_fc6() -> None:
    cells = board("N P P P P\nP P P P P\n. . . . .\n. . . . .\n. . . . .")
    assert cat(cells, "fountains", "A") == 8


def test_fountains_b_six_fountains_and_parks_fc6() -> None:
    cells = board("N . P . P\n. . . . .\nP . N . P\n. . . . .\n. . . . .")
    assert cat(cells, "fountains", "B") == 8


@pytest.mark.parametrize(("total", "each"), [(1, 1), (2, 2), (3, 2), (4, 3), (5, 3), (6, 4), (7, 4), (8, 5), (12, 5)])
def test_fountains_b_table(total: int, each: int) -> None:
    cells = flat(["N"] + ["P"] * (total - 1) + ["."] * (25 - total))
    assert cat(cells, "fountains", "B") == each


@pytest.mark.parametrize("side", ["A", "B"])
def test_park_penalty_four_factories_two_parks(side: str) -> None:
    cells = board("F F . . .\nF F . . .\nP P N . .\n. . . . .\n. . . . .")
    assert cat(cells, "parks", side) == -4


@pytest.mark.parametrize(("factories", "parks", "vp"), [(2, 3, 0), (3, 2, -2), (5, 2, -7), (6, 2, -11), (7, 2, -16), (8, 2, -22), (10, 1, -22)])
def test_park_penalty_table(factories: int, parks: int, vp: int) -> None:
    cells = flat(["F"] * factories + ["P"] * parks + ["."] * (25 - factories - parks))
    assert cat(cells, "parks", "A") == vp


PLANNING_BOARD = board(
    """
    F  H  S  O  T
    F  F  P  P  G
    H  S  N  E  Wm
    H  Sc P  O  O
    P  P  Fe Se O
    """
)


@pytest.mark.parametrize(
    ("card", "vp"),
    [
        (1, 2 * 5),  # the most common type is Park, 5 tiles (FC-8, FC-10)
        (2, 5),  # five parks
        (3, 2 * 4),  # chains of exactly 2: H A3-A4, S B3-B4, P C2-D2, P A5-B5 (FC-8)
        (4, 3 * 2),  # chains of exactly 3: F A1-A2-B2, O D4-E4-E5
        (5, 0),  # no chain of 4 or more
        (6, 0),  # diagonals F F N O O / T P N S P
        (7, 3 * 2),  # rows 1 (F H S O T) and 3 (H S N E W)
        (8, 0),
        (9, 3 * 3),  # min(4 F, 4 S, 3 H, 4 O) = 3 complete sets (FC-11)
        (10, 1),  # centre fountain: only itself (FC-8)
        (11, 2 * 7),  # columns A and E: F H P T G W O (FC-11)
        (12, 2 * 6),  # middle nine: F P S N E O (FC-11)
    ],
)
def test_planning_cards(card: int, vp: int) -> None:
    assert planning_score(kinds(PLANNING_BOARD), card) == vp


def test_planning_diagonals_and_columns() -> None:
    cells = board("F . . . O\nH S . T .\nS . E . H\nO H . N .\nG . . . W")
    assert planning_score(kinds(cells), 6) == 4 * 2  # F S E N W and O T E H G
    assert planning_score(kinds(cells), 8) == 3  # column A: F H S O G
    assert planning_score(kinds(cells), 7) == 0
    park_line = board("F . . . .\nH . . . .\nS . . . .\nP . . . .\nP . . . .")
    assert planning_score(kinds(park_line), 8) == 0


def test_planning_in_total() -> None:
    plain = score_board(PLANNING_BOARD, "A" * 10)
    with_card = score_board(PLANNING_BOARD, "A" * 10, 2)
    assert with_card.total == plain.total + 5 and with_card.planning_points == 5


def test_planning_empty_centre_scores_nothing_fc10() -> None:
    assert planning_score(kinds(board(". . . . .\n" * 5)), 10) == 0


@pytest.mark.parametrize(
    ("total", "advanced", "title"),
    [
        (100, False, "Mayor of Untold Legend"),
        (99, False, "Very Excellent Mayor"),
        (50, False, "You'll be voted out soon"),
        (49, False, "Keep trying harder!"),
        (109, True, "Very Excellent Mayor"),
        (110, True, "Mayor of Untold Legend"),
        (59, True, "Keep trying harder!"),
        (70, True, "Mediocre Mayor"),
    ],
)
def test_solo_titles(total: int, advanced: bool, title: str) -> None:
    assert solo_title(total, advanced) == title


def test_park_side_shows_no_goods_icon_fl8() -> None:
    from core.five_by_five.state import Board
    from core.five_by_five.tiles import TILES

    wm, fm, sm = (next(t.id for t in TILES if t.code == c) for c in ("Wm", "Fm", "Sm"))
    tiles = (wm, fm, sm) + (-1,) * 22
    face_up = Board(tiles, (False,) * 25).cells()
    fm_park = Board(tiles, (False, True) + (False,) * 23).cells()
    assert fm_park[:3] == ("Wm", "P", "Sm")
    assert cat(face_up, "warehouses", "A") == 3
    assert cat(fm_park, "warehouses", "A") == 2
    assert cat(fm_park, "warehouses", "B") == 2
