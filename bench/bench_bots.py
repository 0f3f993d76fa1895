"""Greedy against random, for every game: the average margin over two-player games.

    python bench/bench_bots.py [--games 1000] [--game card-city]

Seats alternate; each game's options cycle through the variants listed below.
Not a test: it prints, and asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import registry  # noqa: E402
from core.autoplay import greedy_margins  # noqa: E402

VARIANTS: dict[str, list[tuple[str, list[dict[str, str]]]]] = {
    "card-city": [
        ("base", [{}]),
        ("both variants", [{"decentralization": "yes", "parking-meters": "yes"}]),
    ],
    "5x5-city": [
        ("basic, sides A/B/random", [{"sides": s} for s in ("A", "B", "random")]),
        ("advanced, sides A/B/random", [{"sides": s, "advanced": "yes"} for s in ("A", "B", "random")]),
    ],
    "point-city": [("base", [{}])],
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--game", choices=sorted(VARIANTS), action="append")
    args = parser.parse_args(argv)
    for name in args.game or list(VARIANTS):
        game = registry.get(name)
        for label, options in VARIANTS[name]:
            t0 = time.perf_counter()
            m = greedy_margins(game, args.games, "bench", options)
            wins = sum(1 for x in m if x > 0)
            print(
                f"{name} ({label}): {args.games} games, greedy − random mean margin "
                f"{statistics.fmean(m):+.2f} (sd {statistics.pstdev(m):.2f}, smallest {min(m):+d}); "
                f"greedy scored more in {wins}/{args.games}; {time.perf_counter() - t0:.0f} s",
                flush=True,
            )


if __name__ == "__main__":
    main()
