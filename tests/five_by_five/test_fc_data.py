"""Tiles (FC-2), plans (FC-1) and cards as data."""

from __future__ import annotations

from collections import Counter

import pytest

from core.five_by_five.cards import BUILDING_CARDS, PLANNING_CARDS, PLOT_CARDS, expand_sides
from core.five_by_five.plans import (
    PLAN_NUMBERS,
    card_of,
    layout,
    section_size,
    section_squares,
    square_index,
    square_name,
)
from core.five_by_five.scoring import NEIGHBOURS
from core.five_by_five.tiles import TILES


def test_108_tiles_by_type() -> None:
    counts = Counter(t.kind for t in TILES)
    assert counts == {"F": 18, "S": 18, "H": 18, "O": 18, "T": 10, "W": 8, "G": 8, "E": 6, "N": 4}
    assert [t.id for t in TILES] == list(range(108))


def test_goods_icons_fc2() -> None:
    icons = Counter((t.kind, t.goods) for t in TILES if t.goods)
    assert icons == {
        ("F", "e"): 5, ("F", "f"): 5, ("F", "c"): 4, ("F", "m"): 4,
        ("S", "e"): 4, ("S", "f"): 4, ("S", "c"): 5, ("S", "m"): 5,
        ("W", "e"): 2, ("W", "f"): 2, ("W", "c"): 2, ("W", "m"): 2,
    }
    assert all(t.goods == "" for t in TILES if t.kind not in "FSW")


def _connected(squares: tuple[int, ...]) -> bool:
    seen, stack = {squares[0]}, [squares[0]]
    while stack:
        for j in NEIGHBOURS[stack.pop()]:
            if j in squares and j not in seen:
                seen.add(j)
                stack.append(j)
    return len(seen) == len(squares)


@pytest.mark.parametrize("plan", PLAN_NUMBERS)
def test_plan_satisfies_fc1(plan: int) -> None:
    grid = layout(plan)
    assert len(grid) == 25
    assert sorted(set(grid)) == list(range(1, 13))
    sizes = Counter(section_size(plan, n) for n in range(1, 13))
    assert set(sizes) <= {1, 2, 3}
    assert sizes[2] + 2 * sizes[3] == 13
    assert sum(section_size(plan, n) for n in range(1, 13)) == 25
    for n in range(1, 13):
        assert _connected(section_squares(plan, n)), f"plan {plan} section {n} is not connected"


def test_plans_are_six_double_sided_cards_and_differ() -> None:
    assert sorted({card_of(p) for p in PLAN_NUMBERS}) == [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12)]
    assert len({layout(p) for p in PLAN_NUMBERS}) == 12


def test_square_names_round_trip() -> None:
    assert [square_index(square_name(i)) for i in range(25)] == list(range(25))
    assert square_name(0) == "A1" and square_name(24) == "E5" and square_name(5) == "A2"
    with pytest.raises(ValueError):
        square_index("F1")


def test_cards() -> None:
    assert [c.name for c in BUILDING_CARDS][:3] == ["Factories", "Houses", "Shops"]
    assert len(BUILDING_CARDS) == 10 and sorted(PLANNING_CARDS) == list(range(1, 13))
    assert PLOT_CARDS == tuple(range(1, 13))
    assert expand_sides("abababab" + "ab") == "ABABABABAB"
    for bad in ("C", "AB", "AAAAAAAAAC"):
        with pytest.raises(ValueError):
            expand_sides(bad)
