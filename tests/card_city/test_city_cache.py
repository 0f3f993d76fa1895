"""The cached city answers (``cells_*``, grown from the parent city's) equal the
plain functions of the grid, on the cities of random games and on arbitrary
cities grown cell by cell (any square, any kind: frame, size limit and zoning
broken too); and ``random_command`` draws as listing the legal commands does."""

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
    geometry = city._cells_geometry(cells)
    facts = geometry.facts
    want_facts, want_near = city._frontier_kinds(grid)
    assert geometry.grid == grid
    assert tuple((sq, geometry.near[sq]) for sq in geometry.order) == want_near
    assert len(geometry.near) == len(geometry.order)
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


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.sampled_from(["random", "greedy"]))
def test_random_command_draws_as_listing_the_legal_commands(seed: int, n: int, policy: str) -> None:
    """``random_command`` (a construction hand counted, not listed) against
    ``SearchModel.random_command``'s definition: uniform over ``list(legal)``, the same draws."""
    from core.card_city import rules
    from core.engine import CHANCE
    from core.rng import Rng

    positions: list[tuple[object, int]] = []
    play_game(
        GAME, ["a", "b", "c", "d"][:n], f"random-command/{seed}", [policy] * n,
        hook=lambda before, seat, _c, _e: positions.append((before, seat)),
    )
    checked = 0
    for s, seat in positions:
        if seat == CHANCE:
            continue
        for actor in GAME.to_act(s):  # construction: every seat with cards, at once
            for k in range(4):
                fast, slow = Rng(f"{seed}/{checked}/{k}".encode()), Rng(f"{seed}/{checked}/{k}".encode())
                options = list(rules.legal(s, actor))
                assert rules.random_command(s, actor, fast) == options[slow.below(len(options))]
                assert fast.below(1 << 30) == slow.below(1 << 30)  # the same draws were made
            checked += 1
    assert checked > 0
