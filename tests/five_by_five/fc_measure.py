"""Greedy vs random in 2-player 5x5 City: the average margin (greedy − random).

    python tests/five_by_five/fc_measure.py 300

Seats alternate; sides alternate A / B / random; games are seeded ``m0``, ``m1``…
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fc_play import play  # noqa: E402

SIDES = ("A", "B", "random")


def margins(games: int, advanced: str = "no") -> list[int]:
    out = []
    for i in range(games):
        greedy_seat = i % 2
        bots = ["random", "random"]
        bots[greedy_seat] = "greedy"
        s, _ = play(f"m{i}", ("ann", "bob"), {"sides": SIDES[i % 3], "advanced": advanced}, bots)
        out.append(s.scores[greedy_seat] - s.scores[1 - greedy_seat])
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    for advanced in ("no", "yes"):
        m = margins(n, advanced)
        wins = sum(1 for x in m if x > 0)
        print(f"advanced={advanced}: {n} games, greedy − random average margin {sum(m) / n:+.1f} VP, "
              f"greedy won {wins}/{n}, smallest margin {min(m):+d}")


if __name__ == "__main__":
    main()
