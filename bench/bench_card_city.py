"""Card City: greedy's margin over random, and how long a game takes.

    python bench/bench_card_city.py [--games 1000] [--timing 200]

Prints (1) greedy's average margin over random in 2-player games, seats
alternating, (2) the time to play a random 4-player game (decide + apply) and
to replay it (apply only), against a bare msgspec decode of the same events as
the baseline measured in the same run.  Not a test: nothing here asserts.
"""

from __future__ import annotations

import argparse
import statistics
import time

import msgspec

from core.autoplay import play_game
from core.card_city.game import GAME


def margin(games: int) -> None:
    diffs, wins = [], 0
    for k in range(games):
        policies = ["greedy", "random"] if k % 2 == 0 else ["random", "greedy"]
        state, _ = play_game(GAME, ["a", "b"], f"margin/{k}", policies, keep_events=False)
        result = GAME.result(state)
        g = policies.index("greedy")
        diffs.append(result.scores[g] - result.scores[1 - g])
        wins += g in result.winners and len(result.winners) == 1
    print(
        f"greedy vs random, {games} two-player games: mean margin {statistics.fmean(diffs):+.2f} "
        f"points (sd {statistics.pstdev(diffs):.2f}), greedy won {wins}/{games} ({100 * wins / games:.0f}%)"
    )


def timing(games: int) -> None:
    play_s, replay_s, decode_s, n_events = 0.0, 0.0, 0.0, 0
    enc, dec = msgspec.json.Encoder(), msgspec.json.Decoder(GAME.event_type)
    for k in range(games):
        t0 = time.perf_counter()
        state, events = play_game(GAME, ["a", "b", "c", "d"], f"time/{k}", ["random"] * 4)
        t1 = time.perf_counter()
        assert GAME.fold(events) == state
        t2 = time.perf_counter()
        payloads = [enc.encode(e) for e in events]
        t3 = time.perf_counter()
        for p in payloads:
            dec.decode(p)
        t4 = time.perf_counter()
        play_s += t1 - t0
        replay_s += t2 - t1
        decode_s += t4 - t3
        n_events += len(events)
    per = n_events / games
    print(f"random 4-player game: {per:.0f} events")
    print(f"  play (decide + apply): {1000 * play_s / games:.2f} ms per game")
    print(f"  replay (apply only):   {1000 * replay_s / games:.2f} ms per game "
          f"({1e6 * replay_s / n_events:.2f} µs per event)")
    print(f"  baseline, bare msgspec decode of the same events: {1000 * decode_s / games:.2f} ms per game; "
          f"replay/decode = {replay_s / decode_s:.1f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--timing", type=int, default=200)
    args = parser.parse_args()
    timing(args.timing)
    margin(args.games)


if __name__ == "__main__":
    main()
