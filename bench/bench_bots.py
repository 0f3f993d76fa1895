"""Bot strength, for every game, over two-player games with seats alternating.

    python bench/bench_bots.py [--games 1000] [--game card-city]
    python bench/bench_bots.py --mcts 10 [--budget card-city=60] [--game …]

Without ``--mcts``: greedy against random, the average margin; each game's
options cycle through the variants listed below.  With ``--mcts N``: N games
of information-set MCTS (``mcts:B``, B playouts a move, per game below) against
greedy, base options: MCTS's win rate with a 95% Wilson interval (a tie counts
half), its mean seconds a move (the 1 s target; wall clock and the process's
CPU time, which other jobs on a shared machine inflate least), and both bots' mean scores
(Card City's rulebook example city scores 19).
Not a test: it prints, and asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import registry  # noqa: E402
from core.autoplay import greedy_margins, play_game  # noqa: E402

BUDGETS = {name: registry.get(name).search.playouts for name in ("card-city", "5x5-city", "point-city")}
"""Playouts a move: each game's default (``SearchModel.playouts``, what plain ``mcts``
searches), which keeps MCTS under 1 s of CPU a move on average on the bench machine."""
RULEBOOK_EXAMPLE = 19

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


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def mcts_against_greedy(name: str, games: int, budget: int, first: int = 0) -> None:
    game = registry.get(name)
    policy = f"mcts:{budget}"
    wins = 0.0
    mine: list[int] = []
    theirs: list[int] = []
    seconds = 0.0
    cpu = 0.0
    moves = 0
    for k in range(first, first + games):
        policies = [policy, "greedy"] if k % 2 == 0 else ["greedy", policy]
        me = policies.index(policy)
        clock = {"t": time.perf_counter(), "cpu": time.process_time()}

        def timed(before: object, seat: int, command: object, produced: object) -> None:
            nonlocal seconds, cpu, moves
            now, now_cpu = time.perf_counter(), time.process_time()
            if seat == me:
                seconds += now - clock["t"]
                cpu += now_cpu - clock["cpu"]
                moves += 1
            clock["t"], clock["cpu"] = now, now_cpu

        state, _ = play_game(game, ["a", "b"], f"bench-mcts/{k}", policies, keep_events=False, hook=timed)
        result = game.result(state)
        assert result is not None
        if me in result.winners:
            wins += 1 / len(result.winners)
        mine.append(result.scores[me])
        theirs.append(result.scores[1 - me])
        print(f"  {name} game {k}: {policy} as seat {me}: {result.scores[me]} vs greedy {result.scores[1 - me]}",
              flush=True)
    lo, hi = wilson(wins, games)
    extra = f" (rulebook example {RULEBOOK_EXAMPLE})" if name == "card-city" else ""
    print(
        f"{name}: {policy} beat greedy in {wins:g}/{games} = {wins / games:.0%} "
        f"(95% CI {lo:.0%}–{hi:.0%}); {seconds / max(1, moves):.2f} s a move "
        f"({cpu / max(1, moves):.2f} s of CPU, what a loaded machine inflates least); "
        f"mean score {statistics.fmean(mine):.1f} vs greedy {statistics.fmean(theirs):.1f}{extra}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--game", choices=sorted(VARIANTS), action="append")
    parser.add_argument("--mcts", type=int, default=0, metavar="N", help="N games of MCTS against greedy")
    parser.add_argument("--budget", action="append", default=[], metavar="GAME=PLAYOUTS")
    parser.add_argument("--first", type=int, default=0, metavar="K",
                        help="start at seed bench-mcts/K (split a run across processes)")
    args = parser.parse_args(argv)
    if args.mcts:
        budgets = dict(BUDGETS)
        for item in args.budget:
            key, _, value = item.partition("=")
            budgets[key] = int(value)
        for name in args.game or list(VARIANTS):
            mcts_against_greedy(name, args.mcts, budgets[name], args.first)
        return
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
