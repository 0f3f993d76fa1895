"""Bots: both legal; greedy clearly beats random."""

from __future__ import annotations

from core.autoplay import greedy_margins
from core.five_by_five.game import GAME


def test_bots_registered() -> None:
    assert set(GAME.bots) == {"random", "greedy", "mcts"}


def test_greedy_beats_random_clearly() -> None:
    m = greedy_margins(GAME, 12, "t", [{"sides": x} for x in ("A", "B", "random")])
    assert sum(m) / len(m) > 20, m
    assert sum(1 for x in m if x > 0) >= 11, m
