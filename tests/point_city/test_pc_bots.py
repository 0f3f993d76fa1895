"""The greedy bot clearly beats the random bot (full measurement: pc_margin.py)."""

from __future__ import annotations

from pc_margin import margins


def test_greedy_beats_random() -> None:
    m = margins(12, prefix="t")
    assert sum(m) / len(m) > 8
    assert sum(1 for x in m if x > 0) >= 10
