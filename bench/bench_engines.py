"""Engine speed for search, every game: playouts against replays of the same events.

    python bench/bench_engines.py [--games 20] [--rounds 3] [--game point-city]

For each game, ``--games`` seeded random two-player games are recorded (through
the service, into a temporary SQLite store), then
timed three ways, each round; the fastest round of each is reported (as
``timeit`` does: on a machine shared with other jobs the slower rounds measure
the others' load, not the code):

* playout: the random policy as the search plays it (:func:`core.mcts.playout`:
  to_act, :meth:`SearchModel.random_command` — uniform over the legal commands but
  in Point City, see its rules —, decide and apply, chance drawn) from the
  created state to the end, per event produced; each round plays new
  playouts (a round repeating the last one's would time warm caches);
* replay: ``GameService.load`` on a cold service (select + decode + fold + the
  hash chain checked), per event — bench_service.py's replay, for every game;
* raw: a bare ``SELECT`` of the same rows + msgspec decode, no fold.

It prints playout/replay (target ≤ 5×) and replay/raw as a rate ratio (target
≥ 0.3×).  Not a test: it prints and asserts nothing.  Issue 16's figures, on
the shared 2-core machine (loaded), are in README.md and bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import raw_select_decode  # noqa: E402
from hash_playouts import stepping  # noqa: E402
from core import registry  # noqa: E402
from core.mcts import playout  # noqa: E402
from core.rng import Rng  # noqa: E402
from events.codec import decoder_for  # noqa: E402
from events.service import GameService  # noqa: E402
from events.sqlite_store import SqliteStore  # noqa: E402


def measure(name: str, games: int, rounds: int, tmp: Path) -> tuple[float, float, float]:
    """(playout, replay, raw) in µs per event, the fastest of ``rounds``."""
    game = registry.get(name)
    seeds = [f"engines/{k}" for k in range(games)]
    store = SqliteStore(tmp / f"{name}.db", durability="normal")
    svc = GameService(store)
    ids = [svc.create(name, ["a", "b"], seed=s, bots={0: "random", 1: "random"}) for s in seeds]
    created = [game.apply(None, game.create(["a", "b"], {})) for _ in seeds]
    decoder = decoder_for(game.event_type)
    conn = sqlite3.connect(tmp / f"{name}.db")
    sql = "SELECT seq, type, payload, prev_hash, hash FROM events WHERE game_id = ? ORDER BY seq"
    play_us, replay_us, raw_us = [], [], []
    for r in range(rounds):
        # new playouts every round, timed before they are counted: a round never
        # meets the positions (and the caches built on them) of a timed round before
        streams = [f"{s}/round{r}".encode() for s in seeds]
        t0 = time.perf_counter()
        for stream, start in zip(streams, created):
            playout(game, start, Rng(stream))
        dt = time.perf_counter() - t0
        n_play = sum(_events_of_playout(game, start, Rng(st)) for st, start in zip(streams, created))
        play_us.append(dt / n_play * 1e6)
        # a replay of every game takes milliseconds, a scheduler's slice on a busy
        # machine: each round keeps the fastest of several
        replay_us.append(min(_replay(store, ids) for _ in range(REPEATS)))
        raw_us.append(min(_raw(conn, sql, decoder, ids) for _ in range(REPEATS)))
    conn.close()
    store.close()
    return min(play_us), min(replay_us), min(raw_us)


REPEATS = 7


def _replay(store: SqliteStore, ids: list[str]) -> float:
    """µs per event of ``GameService.load`` of every game on a cold service."""
    t0 = time.perf_counter()
    cold = GameService(store)  # no cached folds: select + decode + fold
    n = sum(cold.load(gid).version for gid in ids)
    return (time.perf_counter() - t0) / n * 1e6


def _raw(conn: sqlite3.Connection, sql: str, decoder: Any, ids: list[str]) -> float:
    """µs per event of a bare select + msgspec decode of every game's rows."""
    m, seconds = raw_select_decode(conn, sql, decoder, ids)
    return seconds / m * 1e6


def _events_of_playout(game, state, rng) -> int:  # type: ignore[no-untyped-def]
    """How many events :func:`playout` produces from ``state`` with ``rng`` (same stream)."""
    n = 0
    if hasattr(game, "step"):  # the search steps: count the events of each step

        def counted(events):  # type: ignore[no-untyped-def]
            nonlocal n
            n += len(events)

        # game.step and the search model's random_step / chance_step, where it has them
        with stepping(game, counted):
            playout(game, state, rng)
        return n
    # an older engine (before Game.step): the search applied every event
    apply = game.apply

    def counting(s, e):  # type: ignore[no-untyped-def]
        nonlocal n
        n += 1
        return apply(s, e)

    game.apply = counting
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
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.game or registry.available():
            _report(name, *measure(name, args.games, args.rounds, Path(tmp)))


def _report(name: str, play: float, replay: float, raw: float) -> None:
    print(
        f"{name}: playout {play:.1f} µs/event, replay {replay:.1f} µs/event, raw select+decode "
        f"{raw:.1f} µs/event → playout/replay {play / replay:.1f}× (target ≤ 5×), "
        f"replay/raw rate {raw / replay:.2f}× (target ≥ 0.3×)",
        flush=True,
    )


if __name__ == "__main__":
    main()
