"""``list`` must not grow with history: a page of games at 3,000 games / ~1M
events against the same page at 30 games / ~10k events, in one run.

    python bench/bench_list.py [--events-per-game 330] [--pg]

Prints the time of one ``list`` page (the CLI's default, 100 games, read from
the games rows) and of ``citylog list`` as a process, at 30 and at 3,000
games, and their ratio (goal ≤ 2×).  ``--pg`` also measures the PostgreSQL
store on a throwaway cluster.  No assertions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from events.envelope import GameDefinition  # noqa: E402
from events.store import EventStore, GameFilter, GameRecord  # noqa: E402
from events.backends import open_store  # noqa: E402

DEFINITION = GameDefinition("card-city", "1", {}, ("ann", "bob"), "00" * 32)


def fill(store: EventStore, games: int, per_game: int) -> None:
    items = [("ping", b'{"type":"ping","n":%d,"pad":"%s"}' % (i, b"x" * 40)) for i in range(per_game)]
    with store.transaction():
        for g in range(games):
            gid = f"g{g:05d}"
            store.create_game(GameRecord.of(gid, DEFINITION, seed="s", created_at=f"2024-01-01T00:00:{g:05d}"))
            store.append(gid, 0, items)


def page_time(store: EventStore, repeats: int, limit: int) -> float:
    """Median seconds of one page of ``limit`` games, with their event counts."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        rows = store.list_games_with_counts(GameFilter(limit=limit))
        times.append(time.perf_counter() - t0)
        assert rows
    return statistics.median(times)


def counted_time(store: EventStore, repeats: int) -> float:
    """The old way, for contrast: every game with count(*) of its events."""
    conn = store._conn  # type: ignore[attr-defined]
    sql = "SELECT g.id, (SELECT count(*) FROM events e WHERE e.game_id = g.id) FROM games g ORDER BY g.created_at, g.id"
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        conn.execute(sql).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cli_time(target: str, repeats: int) -> float:
    exe = Path(sys.executable).with_name("citylog")
    argv = [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run([*argv, "--db", target, "list"], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(label: str, open_target: "callable", per_game: int) -> None:  # type: ignore[valid-type]
    results = {}
    for games in (30, 3000):
        target = open_target(games)
        store = open_store(target, durability="normal")
        t0 = time.perf_counter()
        fill(store, games, per_game)
        filled = time.perf_counter() - t0
        results[games] = (page_time(store, 50, 30), cli_time(target, 7), counted_time(store, 5),
                          page_time(store, 50, 101))
        store.close()
        p, c, old, full = results[games]
        print(f"{label}: {games} games × {per_game} events (stored in {filled:.1f}s): "
              f"a page of 30 {p * 1e3:.2f} ms, the default page (100) {full * 1e3:.2f} ms, "
              f"`citylog list` {c * 1e3:.0f} ms; old count(*) listing {old * 1e3:.1f} ms")
    (p30, c30, o30, _), (p3k, c3k, o3k, _) = results[30], results[3000]
    print(f"{label}: RATIO 3,000 games / 30 games: a page of 30 = {p3k / p30:.2f}× (goal ≤ 2×); "
          f"`citylog list` = {c3k / c30:.2f}×; the old count(*) listing = {o3k / o30:.0f}×")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events-per-game", type=int, default=330)
    ap.add_argument("--pg", action="store_true", help="also on PostgreSQL (a throwaway cluster)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measure("sqlite", lambda n: os.path.join(tmp, f"list{n}.db"), args.events_per_game)
    if args.pg:
        import psycopg
        from tests.helpers.pg_server import throwaway_cluster, with_schema

        with throwaway_cluster() as url:
            def schema(n: int) -> str:
                with psycopg.connect(url, autocommit=True) as c:
                    c.execute(f"CREATE SCHEMA s{n}")
                return with_schema(url, f"s{n}")

            measure("postgresql", schema, args.events_per_game)


if __name__ == "__main__":
    main()
