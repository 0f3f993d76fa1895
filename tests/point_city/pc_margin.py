"""Greedy vs random over many 2-player games: ``python tests/point_city/pc_margin.py 300``.

Seats alternate; prints the mean score margin of greedy over random.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from core.point_city.game import GAME  # noqa: E402
from pc_play import play  # noqa: E402


def margins(games: int, prefix: str = "m") -> list[int]:
    out = []
    for i in range(games):
        bots = ["greedy", "random"] if i % 2 == 0 else ["random", "greedy"]
        g = bots.index("greedy")
        state, _ = play(f"{prefix}{i}", 2, bots)
        result = GAME.result(state)
        assert result is not None
        out.append(result.scores[g] - result.scores[1 - g])
    return out


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    m = margins(n)
    wins = sum(1 for x in m if x > 0)
    print(f"{n} games: greedy − random mean margin {sum(m) / n:.2f} points, "
          f"greedy scores more in {wins}/{n}, smallest margin {min(m)}")
