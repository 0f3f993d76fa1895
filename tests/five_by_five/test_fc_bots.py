"""Bots: both legal; greedy clearly beats random."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.autoplay import greedy_margins, play_game
from core.five_by_five import bots
from core.five_by_five.scoring import score_board, total_and_penalty
from core.five_by_five.state import State
from core.five_by_five.game import GAME
from core.five_by_five.tiles import cell_of


def test_bots_registered() -> None:
    assert set(GAME.bots) == {"random", "greedy", "mcts"}


def test_greedy_beats_random_clearly() -> None:
    m = greedy_margins(GAME, 12, "t", [{"sides": x} for x in ("A", "B", "random")])
    assert sum(m) / len(m) > 20, m
    assert sum(1 for x in m if x > 0) >= 11, m


CELL = st.one_of(st.just(""), st.builds(cell_of, st.integers(0, 107), st.booleans()))
SIDES = st.text("AB", min_size=10, max_size=10)


@given(cells=st.lists(CELL, min_size=25, max_size=25), sides=SIDES, planning=st.sampled_from([None, *range(1, 13)]))
def test_lean_total_is_score_boards_total(cells: list[str], sides: str, planning: int | None) -> None:
    """The bots' lean scorer gives :func:`score_board`'s total and Park penalty on any board."""
    sc = score_board(tuple(cells), sides, planning)
    assert total_and_penalty(tuple(cells), sides, planning) == (sc.total, sc.categories["parks"])


@settings(max_examples=12, deadline=None)
@given(seed=st.text("abc0123", min_size=1, max_size=4), sides=st.sampled_from(["A", "B", "random"]),
       advanced=st.sampled_from(["no", "yes"]))
def test_search_valuation_is_the_score_on_a_full_board(seed: str, sides: str, advanced: str) -> None:
    """The outlook (room to grow) vanishes once the board is full: at the end of a
    game the search's valuation of each board is its final score."""
    final, _ = play_game(GAME, ["a", "b"], seed, ["greedy", "greedy"], {"sides": sides, "advanced": advanced},
                         keep_events=False)
    for seat, board in enumerate(final.boards):
        assert bots._outlook(list(board.cells()), final) == final.scores[seat]


def test_outlook_sees_room_around_an_office() -> None:
    """An Office with empty squares around it (Offices A) is worth more than the same
    points with none; greedy's measure cannot tell them apart."""
    s = State(players=("a", "b"), sides="A" * 10)
    office = next(t for t in range(108) if cell_of(t, False) == "O")
    open_ = [""] * 25
    open_[12] = cell_of(office, False)
    boxed = ["P"] * 25
    boxed[12] = cell_of(office, False)
    boxed[0] = ""
    assert bots._outlook(open_, s) - bots._value(open_, s) == 4 * bots.OFFICE_REACH
    assert bots._outlook(boxed, s) - bots._value(boxed, s) == 0


@settings(max_examples=20, deadline=None)
@given(seed=st.text("abc0123", min_size=1, max_size=4))
def test_cached_completion_is_the_uncached_one(seed: str) -> None:
    """``_completion`` (cached on immutable arguments) answers as ``_best_completion``,
    for greedy's measure and the outlook."""
    from core.five_by_five.plans import section_squares

    seen = []

    def keep(before, seat, command, produced):  # noqa: ANN001
        if before.hand and not before.park and len(seen) < 6:
            seen.append(before)

    play_game(GAME, ["a", "b"], seed, ["greedy", "greedy"], keep_events=False, hook=keep)
    for s in seen:
        board = s.boards[s.active]
        free = tuple(q for q in section_squares(s.plan, s.plot) if board.tiles[q] < 0)
        for value in (bots._value, bots._outlook):
            want = bots._best_completion(list(board.cells()), s.hand, list(free), s, value)
            assert bots._completion(board.cells(), s.hand, free, s.sides, s.planning, value) == want
        assert bots._completed(board.cells(), s.hand, free, s.sides, s.planning) == want[0]
