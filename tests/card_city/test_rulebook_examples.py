"""Every worked example of the Card City rulebook that its text lets us rebuild."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from core.card_city import events as ev
from core.card_city.boardfile import parse_board, score_board
from core.card_city.cards import pool_counts, reserve_counts, triangular
from core.card_city.city import (
    construction_squares,
    construction_violation,
    development_options,
    eligible_districts,
    size_limit,
)
from core.card_city.commands import Draw, SplitCards, Take
from core.card_city.game import GAME
from core.card_city.scoring import city_hall_bonus, final_score, income
from core.card_city.state import State
from core.engine import CHANCE, checked_decide


def fresh(n: int, **options: str) -> State:
    return GAME.apply(None, GAME.create([f"p{i + 1}" for i in range(n)], options))


def step(s: State, seat: int, cmd: object) -> tuple[State, tuple[ev.Event, ...]]:
    events = checked_decide(GAME, s, seat, cmd)
    for e in events:
        s = GAME.apply(s, e)
    return s, events


def hand(s: State, seat: int) -> list[str]:
    return sorted(s.players[seat].hand.cards)


# -- Setup ---------------------------------------------------------------------
def test_setup_three_players_pool_is_sixty_cards() -> None:
    # "In a 3-player game, make the stack out of 18 Residential, 12 Industrial,
    #  12 Parking, 9 Commercial, and 9 Leisure cards. The pool contains 60 cards."
    assert pool_counts(3) == {"R": 18, "C": 9, "L": 9, "I": 12, "P": 12}
    s = fresh(3)
    assert s.pool_size == 60
    assert all(p.coins == 3 and p.city == ((0, 0, "H"),) for p in s.players)
    assert GAME.to_act(s) == (CHANCE,) and s.need_draw == 6  # first player draws 2N


def test_reserve_by_player_count_cc12() -> None:
    assert reserve_counts(4) == {"R": 10, "C": 12, "L": 0, "I": 4, "P": 0}
    assert reserve_counts(1) == {"R": 28, "C": 21, "L": 0, "I": 16, "P": 0}


# -- Phase 1: the 3-player acquisition example ----------------------------------
def _example_draw() -> State:
    s = replace(fresh(3), round=2)  # the example's draw holds a Leisure: not round 1 (CC-8)
    s, _ = step(s, CHANCE, Draw(("R", "I", "L", "P", "C", "C")))
    # "He makes the visible first group with R and C and hides the cards L and I"
    s, events = step(s, 0, SplitCards(pair=("R", "C"), up=("P", "C"), down=("L", "I")))
    assert events[0].to == 1  # offered to the second player
    return s


def test_acquisition_example_second_player_takes_the_pair() -> None:
    s = _example_draw()
    s, _ = step(s, 1, Take("pair"))
    assert hand(s, 1) == ["C", "R"]
    # "The first player uses the second group to make two new groups: one with P and
    #  I visible and another with the Leisure kept hidden."  (C face up, L down)
    assert GAME.to_act(s) == (0,)
    s, events = step(s, 0, SplitCards(pair=("P", "I"), up=("C",), down=("L",)))
    assert events[0].to == 2
    s, _ = step(s, 2, Take("pair"))
    assert hand(s, 2) == ["I", "P"]
    assert hand(s, 0) == ["C", "L"]  # "which leaves the half-hidden group for the first player"
    assert s.phase == "construction"


def test_acquisition_example_second_player_takes_the_rest() -> None:
    s = _example_draw()
    s, _ = step(s, 1, Take("rest"))
    # "then the first player would have kept the first group (R and C); then the
    #  second player would have made 2 groups out of P, C, L, and I"
    assert hand(s, 0) == ["C", "R"]
    assert GAME.to_act(s) == (1,)
    assert sorted(s.holding.cards) == ["C", "I", "L", "P"]
    s, events = step(s, 1, SplitCards(pair=("P", "C"), up=("I",), down=("L",)))
    assert events[0].to == 2  # "which he would have offered to the third player"


def test_face_down_cards_are_hidden_from_the_offeree_cc7() -> None:
    s = _example_draw()
    seen_by_offeree = GAME.view(s, 1)
    assert seen_by_offeree.offer is not None and seen_by_offeree.offer.down == ("?", "?")
    assert GAME.view(s, 0).offer.down == ("I", "L")


# -- Construction: zoning laws and size limit ----------------------------------
def test_size_limit_table() -> None:
    # 0 Industrial = 5 non-Industrial cards, 1 = 10, 2 = 15
    assert size_limit({(0, 0): "H"}) == 5
    assert size_limit({(0, 0): "H", (0, 1): "I"}) == 10
    assert size_limit({(0, 0): "H", (0, 1): "I", (0, 2): "I"}) == 15


def test_first_card_has_four_possibilities() -> None:
    assert len(construction_squares({(0, 0): "H"}, "P", coins=3)) == 4


def test_zoning_laws() -> None:
    g = parse_board("I R . . .\n. H . . .\n. C . . .\n. . . . .\n. . . . .\n", "z")
    # Residential–Industrial may not be adjacent, either way round
    assert construction_violation(g, "I", (0, 2), 0)[0] == "CB-6"  # the Zoning Laws [GL-2]
    assert construction_violation(g, "R", (1, 0), 0)[0] == "CB-6"  # the Zoning Laws [GL-2]
    # no Development card next to one of its own colour in Construction
    assert construction_violation(g, "C", (2, 0), 0)[0] == "CB-6"  # the Zoning Laws [GL-2]
    assert construction_violation(g, "R", (0, 2), 0)[0] == "CB-6"  # the Zoning Laws [GL-2]
    # Parking and Industrial may sit next to their own colour
    assert construction_violation(g, "I", (1, 0), 0) is None
    # Leisure costs 5 coins
    assert construction_violation(g, "L", (1, 2), 4)[0] == "CC-2"
    assert construction_violation(g, "L", (1, 2), 5) is None


# -- Phase 3: development examples ---------------------------------------------
RESIDENTIAL_EXAMPLE = """
C . . . .
H R L . .
P . R . .
I . . . .
. . . . .
"""


def test_residential_development_example() -> None:
    g = parse_board(RESIDENTIAL_EXAMPLE, "ex")
    # a 1-card Residential district adjacent to two Cultural buildings (L and CH)
    assert eligible_districts(g) == [("R", ((1, 1),))]
    assert {sq for _, sq in development_options(g)} == {(0, 1), (2, 1)}  # positions A and B
    g[(2, 1)] = "R"  # A: it joins the other Residential card, a district of 3 (CC-4)
    assert not eligible_districts(g)  # to develop again it would need 4 Cultural cards
    assert sum(1 for k in g.values() if k != "I") == 7 and size_limit(g) == 10


def test_commercial_development_example() -> None:
    # adjacent to 2 Residential cards of the same 3-card district: no development
    same = parse_board("R R . . .\nC R . . .\nH . . . .\n. . . . .\n. . . . .\n", "a")
    assert eligible_districts(same) == []
    # adjacent to 2 different Residential districts: it develops, even into a square
    # left of the drawn 5 x 5, since the frame can still shift (CC-1)
    two = parse_board("R . . . .\nC H . . .\nR . . . .\n. . . . .\n. . . . .\n", "c")
    assert ("C", ((1, 0),)) in eligible_districts(two)
    assert development_options(two) == [("C", (1, -1))]


# -- Phase 4: income example -----------------------------------------------------
def test_income_example_six_coins() -> None:
    g = parse_board("C R C C .\nR H . . .\nC . . . .\n. . . . .\n. . . . .\n", "inc")
    got = income(g, parking_meters=False)
    assert got.salary == 1 and sorted(got.commercial) == [1, 1, 3]
    assert got.total == 6


def test_parking_meters_cc14() -> None:
    # P touches H (red, purple), R (green), C (blue), I (yellow): 5 colours → 3 coins
    g = parse_board(". R . . .\nC P I . .\n. H . . .\n. . . . .\n. . . . .\n", "pm")
    assert income(g, parking_meters=True).meters == (3,)
    assert income(g, parking_meters=False).meters == ()


# -- End of game: the scoring example and the player aid ----------------------
SCORING_EXAMPLE = """
# the rulebook's scoring example: 12 + 1 + 1 + 7 - 2 = 19 points and 1 coin
R R R P R
P H C P .
R R R C L
P L C I I
R C P . I
"""


def test_scoring_example_19_points_and_1_coin() -> None:
    b = score_board(SCORING_EXAMPLE, "ex.txt", {"coins": "36"})
    assert b.data["total"] == 19
    assert b.data["coins_left"] == 1
    assert sorted(b.data["residential"]) == [1, 1, 6, 6]
    assert b.data["empty"] == 2


def test_player_aid_table() -> None:
    assert [triangular(n) for n in range(1, 11)] == [1, 3, 6, 10, 15, 21, 28, 36, 45, 55]


DECENTRALIZATION_EXAMPLE = """
I P C P I
. . L H P
C R R R P
C . . . I
. . . . .
"""


def test_decentralization_example() -> None:
    g = parse_board(DECENTRALIZATION_EXAMPLE, "d")
    b = final_score(0, g, 0, decentralization=True)
    points = {line.label: line.points for line in b.lines}
    decentral = [line.detail for line in b.lines if line.label == "decentralization"]
    # the 3-card Residential district is adjacent to all colours; no other district is
    assert decentral == ["Residential district of 3 at 2,1 sees every colour"]
    assert points["industrial districts"] == 6  # 3 Industrial districts: 1 + 2 + 3
    # City Hall one vertical and one horizontal move off centre; the city is only 4
    # rows high, so the frame is placed to give the higher bonus (CC-13)
    assert points["city hall"] == 4
    assert city_hall_bonus(g) == (4, 1, 1)


def test_ties_cc11() -> None:
    from core.card_city.scoring import winners

    a = final_score(0, {(0, 0): "H"}, 7, False)  # 1 point, 2 coins left
    b = final_score(1, {(0, 0): "H"}, 9, False)  # 1 point, 4 coins left
    c = final_score(2, {(0, 0): "H"}, 9, False)
    assert winners((a, b)) == (1,)
    assert winners((b, c)) == (1, 2)  # still tied: a shared win


@pytest.mark.parametrize(
    ("score", "level"),
    [(0, "Homestead"), (9, "Homestead"), (10, "Hamlet"), (19, "Village"), (34, "Suburb"), (50, "Megalopolis")],
)
def test_solo_levels(score: int, level: str) -> None:
    from core.card_city.scoring import solo_level

    assert solo_level(score) == level


def test_face_down_cards_are_known_to_the_divider_and_the_taker_only_cc7() -> None:
    s = _example_draw()
    s, events = step(s, 1, Take("rest"))
    holding = [e for e in events if isinstance(e, ev.Holding)][0]
    assert holding.seat == 1 and holding.known_to == (0,)
    assert GAME.redact(holding, 0).down == holding.down  # the divider made the split
    assert GAME.redact(holding, 1).down == holding.down  # the taker sees them
    assert set(GAME.redact(holding, 2).down) == {"?"}  # the third player does not
    assert set(GAME.view(s, 2).holding.down) == {"?"}
    assert GAME.view(s, 0).holding.down == ("I", "L")
