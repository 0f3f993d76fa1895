"""The cached city answers (``cells_*``, grown from the parent city's) equal the
plain functions of the grid, on the cities of random games and on arbitrary
cities grown cell by cell (any square, any kind: frame, size limit and zoning
broken too)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.autoplay import play_game
from core.card_city import city
from core.card_city.cards import KINDS
from core.card_city.game import GAME

Cells = tuple[tuple[int, int, str], ...]


def check_same(cells: Cells) -> None:
    grid = {(r, c): k for r, c, k in cells}
    facts, near = city.cells_frontier_kinds(cells)
    want_facts, want_near = city._frontier_kinds(grid)
    assert near == want_near
    for field in city._Facts.__slots__:
        assert getattr(facts, field) == getattr(want_facts, field), field
    assert list(city.cells_districts(cells)) == city.districts(grid)
    assert list(city.cells_development_options(cells)) == city.development_options(grid)
    for kind in KINDS:
        for affords in (False, True):
            coins = city.LEISURE_COST if affords else 0
            assert list(city.cells_construction_squares(cells, kind, affords)) == city.construction_squares(
                grid, kind, coins
            )


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.sampled_from(["random", "greedy"]))
def test_cached_city_answers_on_game_cities(seed: int, n: int, policy: str) -> None:
    players = ["a", "b", "c", "d"][:n]
    state, _ = play_game(GAME, players, f"city-cache/{seed}", [policy] * n)
    for p in state.players:
        for k in range(1, len(p.city) + 1):
            check_same(p.city[:k])


cells_strategy = st.lists(
    st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.sampled_from(["R", "I", "C", "P", "L", "H"])),
    min_size=0,
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(cells_strategy, st.booleans())
def test_cached_city_answers_on_any_grown_city(extra: list[tuple[int, int, str]], fresh: bool) -> None:
    cells: Cells = ((0, 0, "H"), *extra)
    if fresh:  # the whole city first: its parents are found on the way
        check_same(cells)
    for k in range(1, len(cells) + 1):
        check_same(cells[:k])
