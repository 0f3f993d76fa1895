"""The issue-3 benchmark: commands appended through the service, and replay, each
against a raw baseline measured in the same run.

    python bench/bench_service.py [--games 20] [--rounds 3]

* command append: ``GameService.submit`` (load from cache → decide → append,
  one transaction per command, synchronous=FULL) of the human commands of
  recorded Card City games, vs raw ``sqlite3`` doing one transaction per insert
  of the same event bytes, at the same durability.  Target ≥ 0.6×.  The
  fsync each commit waits for swings with the disk's other users, so the
  median of each round's ratio and the CPU time a command (which no fsync
  hides) are printed too.
* replay: select + decode + the real game's fold (``GameService.load`` on a cold
  service) vs raw ``SELECT`` + bare msgspec decode of the same rows.
  Target ≥ 0.3×.

Not a test: it prints rates and ratios and asserts nothing.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_store import Result, raw_connect, raw_select_decode  # noqa: E402
from core.autoplay import play_game  # noqa: E402
from core.card_city.game import GAME  # noqa: E402
from core.engine import CHANCE  # noqa: E402
from events.service import GameService  # noqa: E402
from events.sqlite_store import SqliteStore  # noqa: E402

PLAYERS = ["a", "b", "c", "d"]


def recorded_commands(seed: str) -> list[tuple[int, Any]]:
    """The human (non-chance) decisions of a random 4-player game, in order."""
    _, events = play_game(GAME, PLAYERS, seed, ["random"] * 4)
    out = []
    for e in events[1:]:
        opened = GAME.command_of(e)
        if opened is not None and opened[0] != CHANCE:
            out.append(opened)
    return out


def service_rate(
    path: Path, games: list[tuple[str, list[tuple[int, Any]]]]
) -> tuple[float, float, int, list[bytes]]:
    """(commands a second, CPU seconds a command, commands, the payloads stored)."""
    svc = GameService(SqliteStore(path, durability="full"))
    ids = [(svc.create("card-city", PLAYERS, seed=seed), cmds) for seed, cmds in games]
    n = 0
    t0, c0 = time.perf_counter(), time.process_time()
    for gid, cmds in ids:
        for seat, command in cmds:
            svc.submit(gid, seat, command)
            n += 1
    rate = n / (time.perf_counter() - t0)
    cpu = (time.process_time() - c0) / n
    payloads = [r.payload for gid, _ in ids for r in svc.store.read(gid)]
    return rate, cpu, n, payloads


def raw_rate(path: Path, payloads: list[bytes], n: int) -> tuple[float, float]:
    """(inserts a second, CPU seconds an insert): one transaction per row."""
    conn = raw_connect(path, "full")
    rows = payloads[:n]
    t0, c0 = time.perf_counter(), time.process_time()
    for i, p in enumerate(rows):
        conn.execute("BEGIN")
        conn.execute(
            "INSERT INTO events (game_id, seq, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)",
            ("raw", i + 1, "t", p, "x" * 64, "y" * 64),
        )
        conn.execute("COMMIT")
    rate = len(rows) / (time.perf_counter() - t0)
    cpu = (time.process_time() - c0) / len(rows)
    conn.close()
    return rate, cpu


def replay_rates(path: Path, repeats: int) -> tuple[float, float]:
    store = SqliteStore(path)
    ids = [g.id for g in store.list_games()]
    decoder = msgspec.json.Decoder(GAME.event_type)
    conn = sqlite3.connect(path)
    sql = "SELECT seq, type, payload, prev_hash, hash FROM events WHERE game_id = ? ORDER BY seq"
    ours, raw = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        n = 0
        svc = GameService(store)  # cold: no cached folds
        for gid in ids:
            n += svc.load(gid).version
        ours.append(n / (time.perf_counter() - t0))
        m, seconds = raw_select_decode(conn, sql, decoder, ids)
        raw.append(m / seconds)
    return statistics.median(ours), statistics.median(raw)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    games = [(f"bench/{k}", recorded_commands(f"bench/{k}")) for k in range(args.games)]
    with tempfile.TemporaryDirectory() as tmp:
        ours_r, raw_r, ratios, cpu_ours, cpu_raw = [], [], [], [], []
        for r in range(args.rounds):
            rate, cpu, n, payloads = service_rate(Path(tmp) / f"svc-{r}.db", games)
            raw, raw_cpu = raw_rate(Path(tmp) / f"raw-{r}.db", payloads, n)
            ours_r.append(rate)
            raw_r.append(raw)
            ratios.append(rate / raw)
            cpu_ours.append(cpu)
            cpu_raw.append(raw_cpu)
        print(Result(f"command append ({n} commands)", statistics.median(ours_r),
                     statistics.median(raw_r), "cmd/s").line()
              + f" (median of each round's ratio {statistics.median(ratios):.2f}×)")
        # the fsync a commit waits for swings with the disk's other users; CPU does not
        print(f"  CPU a command {statistics.median(cpu_ours) * 1e6:.0f} µs vs a raw insert "
              f"{statistics.median(cpu_raw) * 1e6:.0f} µs = "
              f"{statistics.median(cpu_ours) / statistics.median(cpu_raw):.2f}× the CPU")
        ours, raw = replay_rates(Path(tmp) / "svc-0.db", max(3, args.rounds))
        print(Result("replay (select + decode + fold)", ours, raw).line())


if __name__ == "__main__":
    main()
