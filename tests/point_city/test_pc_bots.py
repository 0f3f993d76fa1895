"""The greedy bot clearly beats the random bot (full measurement: bench/bench_bots.py)."""

from __future__ import annotations

from core.autoplay import greedy_margins
from core.point_city.game import GAME


def test_greedy_beats_random() -> None:
    m = greedy_margins(GAME, 12, "t")
    assert sum(m) / len(m) > 8
    assert sum(1 for x in m if x > 0) >= 10
