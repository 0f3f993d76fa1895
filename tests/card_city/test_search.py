"""Card City's search model (issue 25): the quick greedy the playouts play and the
candidates the flat search expands are legal, and the search is deterministic."""

from __future__ import annotations

from typing import Any

from core import registry
from core.autoplay import play_game
from core.card_city import search
from core.mcts import Budget
from core.mcts import search as mcts_search
from core.rng import Rng

GAME = registry.get("card-city")


def _decisions(seed: str, players: int = 2) -> list[tuple[Any, int]]:
    """(view, seat) before every player decision of a greedy game."""
    out: list[tuple[Any, int]] = []

    def hook(before: Any, seat: int, command: Any, produced: Any) -> None:
        if seat >= 0:
            out.append((GAME.view(before, seat), seat))

    names = ["a", "b", "c"][:players]
    play_game(GAME, names, seed, ["greedy"] * players, keep_events=False, hook=hook)
    return out


def test_the_quick_greedy_and_the_candidates_are_legal() -> None:
    for players in (2, 3):
        for view, seat in _decisions(f"search/{players}", players):
            world = GAME.determinize(view, seat, Rng(b"w"))
            legal = list(GAME.legal(world, seat))
            assert search.quick_command(world, seat) in legal
            chosen = search.candidates(view, seat)
            if chosen is not None:
                assert chosen and all(c in list(GAME.legal(view, seat)) for c in chosen)


def test_a_quick_greedy_playout_ends_the_game() -> None:
    from core.mcts import playout

    start = GAME.apply(None, GAME.create(["a", "b"], {}))
    end = playout(GAME, start, Rng(b"p"), 0)
    assert GAME.result(end) is not None


def test_the_search_is_deterministic() -> None:
    view, seat = _decisions("search/det")[5]
    first = mcts_search(GAME, view, seat, Rng(b"s"), Budget(12))
    again = mcts_search(GAME, view, seat, Rng(b"s"), Budget(12))
    assert first == again
