"""Engine speed for search, every game: playouts against replays of the same events.

    python bench/bench_engines.py [--games 20] [--rounds 3] [--game point-city]

For each game, ``--games`` seeded random two-player games are recorded, then
timed three ways, each round, medians reported:

* playout: the random policy as the search plays it (:func:`core.mcts.playout`:
  to_act, legal listed, one picked, decide, apply, chance drawn) from the
  created state to the end, per event produced;
* replay: ``SELECT`` of the events' JSON rows from SQLite + msgspec decode into
  the game's event types + the game's fold, per event;
* raw: the same ``SELECT`` + decode, no fold.

It prints playout/replay (target ≤ 5×) and replay/raw as a rate ratio (target
≥ 0.3×).  Not a test: it prints and asserts nothing.  Issue 16's figures, on
the shared 2-core machine (loaded), are in README.md and bench/ENGINES.md.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import registry  # noqa: E402
from core.autoplay import play_game  # noqa: E402
from core.mcts import playout  # noqa: E402
from core.rng import Rng  # noqa: E402


def measure(name: str, games: int, rounds: int) -> tuple[float, float, float]:
    game = registry.get(name)
    seeds = [f"engines/{k}" for k in range(games)]
    logs = [play_game(game, ["a", "b"], s, ["random", "random"])[1] for s in seeds]
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE events (game_id TEXT, seq INTEGER, payload BLOB, PRIMARY KEY (game_id, seq))")
    enc = msgspec.json.Encoder()
    for s, events in zip(seeds, logs):
        conn.executemany("INSERT INTO events VALUES (?, ?, ?)", [(s, i, enc.encode(e)) for i, e in enumerate(events)])
    decoder = msgspec.json.Decoder(game.event_type)
    sql = "SELECT payload FROM events WHERE game_id = ? ORDER BY seq"
    created = [game.apply(None, events[0]) for events in logs]
    play_us, replay_us, raw_us = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        produced = 0
        for s, start in zip(seeds, created):
            end = playout(game, start, Rng(s.encode()))
            produced += game.round_of(end) * 0 + 1  # one game each; events counted below
        t_play = time.perf_counter() - t0
        # count the events a playout produces by replaying them once (not timed)
        n_play = 0
        for s, start in zip(seeds, created):
            n_play += _events_of_playout(game, start, Rng(s.encode()))
        t0 = time.perf_counter()
        n = 0
        for s in seeds:
            state = None
            for (payload,) in conn.execute(sql, (s,)):
                state = game.apply(state, decoder.decode(payload))
                n += 1
        t_replay = time.perf_counter() - t0
        t0 = time.perf_counter()
        for s in seeds:
            for (payload,) in conn.execute(sql, (s,)):
                decoder.decode(payload)
        t_raw = time.perf_counter() - t0
        play_us.append(t_play / n_play * 1e6)
        replay_us.append(t_replay / n * 1e6)
        raw_us.append(t_raw / n * 1e6)
    return statistics.median(play_us), statistics.median(replay_us), statistics.median(raw_us)


def _events_of_playout(game, state, rng) -> int:  # type: ignore[no-untyped-def]
    """How many events :func:`playout` produces from ``state`` with ``rng`` (same stream)."""
    from core.mcts import _chance, _step

    n = 0
    apply = game.apply

    def counting(s, e):  # type: ignore[no-untyped-def]
        nonlocal n
        n += 1
        return apply(s, e)

    game.apply = counting  # an instance attribute shadowing the method, for this count only
    try:
        playout(game, state, rng)
    finally:
        del game.apply
    return n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", choices=registry.available(), action="append")
    args = parser.parse_args(argv)
    for name in args.game or registry.available():
        play, replay, raw = measure(name, args.games, args.rounds)
        print(
            f"{name}: playout {play:.1f} µs/event, replay {replay:.1f} µs/event, raw select+decode "
            f"{raw:.1f} µs/event → playout/replay {play / replay:.1f}× (target ≤ 5×), "
            f"replay/raw rate {raw / replay:.2f}× (target ≥ 0.3×)",
            flush=True,
        )


if __name__ == "__main__":
    main()
