"""Concurrency at scale: N worker processes play many games at once through
the GameService, against PostgreSQL and against SQLite, some games contended
by two writers.  Compared, in the same run, with raw inserts of the same rows
(raw psycopg / raw sqlite3, one transaction per command, same workers).

    python bench/bench_load.py [--workers 8] [--games 48] [--seconds 20] [--store both|pg|sqlite]

Reports commands/s, p50/p99 command latency, conflicts retried; then proves
0 lost or duplicated events (every seq a worker was told it wrote is in the
log exactly once, the seqs are 1..n, nothing else) and that every game
verifies (hash chain and every decision re-decided).  PostgreSQL runs on a
throwaway durable cluster (fsync on); SQLite at durability "full".  Goal:
ours ≥ 0.5× raw.  No assertions: it prints the figures (and any failure).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GAME = "card-city"


# -- our side: the service ---------------------------------------------------------
def worker(target: str, wid: int, games: list[str], seconds: float, barrier: mp.synchronize.Barrier,
           out: mp.Queue) -> None:
    from events.service import GameService, ServiceError
    from events.store import Conflict
    from events.backends import open_store

    svc = GameService(open_store(target, durability="full"))
    rng = random.Random(wid)
    latencies: list[float] = []
    batches: list[tuple[str, int, int]] = []  # (game, first seq, last seq) each command wrote
    conflicts = 0
    live = list(games)
    barrier.wait()
    deadline = time.monotonic() + seconds
    while live and time.monotonic() < deadline:
        gid = live[rng.randrange(len(live))]
        t0 = time.perf_counter()
        while True:
            loaded = svc.load(gid)
            actors = loaded.game.to_act(loaded.state)
            if not actors:
                live.remove(gid)
                break
            seat = actors[0]
            options = list(loaded.game.legal(loaded.state, seat))
            command = options[rng.randrange(len(options))]
            try:
                written = svc.submit(gid, seat, command, expected_version=loaded.version)
            except (Conflict, ServiceError) as exc:  # another writer moved first: retry
                if isinstance(exc, ServiceError) and "stale move" not in str(exc):
                    raise
                conflicts += 1
                continue
            latencies.append(time.perf_counter() - t0)
            batches.append((gid, written[0].seq, written[-1].seq))
            break
    svc.store.close()
    out.put((wid, latencies, batches, conflicts))


def setup_games(target: str, n: int) -> list[str]:
    from events.service import GameService
    from events.backends import open_store

    svc = GameService(open_store(target, durability="normal"))
    ids = [svc.create(GAME, ["ann", "bob"], seed=f"load{i}", game_id=f"L{i:04d}") for i in range(n)]
    svc.store.close()
    return ids


def assign(ids: list[str], workers: int) -> list[list[str]]:
    """Each game to one worker; every 4th game also to the next worker (contended)."""
    out: list[list[str]] = [[] for _ in range(workers)]
    for i, gid in enumerate(ids):
        out[i % workers].append(gid)
        if i % 4 == 0:
            out[(i + 1) % workers].append(gid)
    return out


def run_ours(target: str, ids: list[str], workers: int, seconds: float) -> dict:
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(workers + 1)
    q: mp.Queue = ctx.Queue()
    procs = [ctx.Process(target=worker, args=(target, w, g, seconds, barrier, q))
             for w, g in enumerate(assign(ids, workers))]
    for p in procs:
        p.start()
    barrier.wait()
    t0 = time.perf_counter()
    results = [q.get(timeout=seconds + 300) for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    lat = sorted(x for r in results for x in r[1])
    return {
        "wall": wall,
        "commands": len(lat),
        "p50": lat[len(lat) // 2] if lat else 0.0,
        "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else 0.0,
        "conflicts": sum(r[3] for r in results),
        "batches": [b for r in results for b in r[2]],
        "per_worker": [[b for b in r[2]] for r in sorted(results)],
    }


def check(target: str, ids: list[str], batches: list[tuple[str, int, int]]) -> str:
    """0 lost or duplicated events, every game verifying; a one-line verdict."""
    from events.envelope import verify_chain
    from events.service import GameService
    from events.backends import open_store
    from replay.sources import open_log
    from replay.verify import verify

    svc = GameService(open_store(target, readonly=True))
    claimed: dict[str, list[int]] = {g: [] for g in ids}
    for gid, a, b in batches:
        claimed[gid].extend(range(a, b + 1))
    problems = []
    total = 0
    for gid in ids:
        rec = svc.store.get_game(gid)
        rows = svc.store.read(gid)
        total += len(rows)
        seqs = [r.seq for r in rows]
        first = min(claimed[gid], default=len(rows) + 1)
        if seqs != list(range(1, len(rows) + 1)):
            problems.append(f"{gid}: seqs not 1..n")
        mine = sorted(claimed[gid])
        if len(mine) != len(set(mine)):
            problems.append(f"{gid}: a seq acknowledged to two writers")
        if mine != list(range(first, len(rows) + 1)):
            problems.append(f"{gid}: acknowledged seqs {len(mine)} ≠ stored after creation")
        if verify_chain(rec.definition, rows, rec.line_secret) is not None:
            problems.append(f"{gid}: chain breaks")
        if not verify(open_log(svc, gid)).ok:
            problems.append(f"{gid}: does not verify")
    svc.store.close()
    if problems:
        return f"FAILED: {len(problems)} problems, e.g. {problems[:3]}"
    return f"0 lost, 0 duplicated of {total} events; all {len(ids)} games verify"


# -- raw side: the same rows, the same transactions ---------------------------------
def raw_worker(kind: str, target: str, batches: list[list[tuple]], barrier: mp.synchronize.Barrier,
               out: mp.Queue) -> None:
    if kind == "pg":
        import psycopg

        conn = psycopg.connect(target, autocommit=True)
        barrier.wait()
        t0 = time.perf_counter()
        for rows in batches:
            with conn.transaction():
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO raw_events VALUES (%s, %s, %s, %s, %s, %s)", rows)
    else:
        conn = sqlite3.connect(target, timeout=60, isolation_level=None)
        conn.execute("PRAGMA synchronous = FULL")
        barrier.wait()
        t0 = time.perf_counter()
        for rows in batches:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO raw_events VALUES (?, ?, ?, ?, ?, ?)", rows)
            conn.execute("COMMIT")
    out.put(time.perf_counter() - t0)
    conn.close()


def run_raw(kind: str, target: str, source: str, per_worker: list[list[tuple[str, int, int]]]) -> float:
    """Commands/s of raw inserts of the rows each worker's commands wrote."""
    from events.backends import open_store

    store = open_store(source, readonly=True)
    rows_of = {}
    for batches in per_worker:
        for gid, _, _ in batches:
            if gid not in rows_of:
                rows_of[gid] = {r.seq: (gid, r.seq, r.type, r.payload, r.prev_hash, r.hash) for r in store.read(gid)}
    store.close()
    work = [[[rows_of[g][s] for s in range(a, b + 1)] for g, a, b in batches] for batches in per_worker]
    ddl = ("CREATE TABLE raw_events (game_id TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, "
           "payload {blob} NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (game_id, seq))")
    if kind == "pg":
        import psycopg

        with psycopg.connect(target, autocommit=True) as c:
            c.execute(ddl.format(blob="BYTEA"))
    else:
        c = sqlite3.connect(target)
        c.execute("PRAGMA journal_mode = wal")
        c.execute(ddl.format(blob="BLOB"))
        c.commit()
        c.close()
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(len(work))
    q: mp.Queue = ctx.Queue()
    procs = [ctx.Process(target=raw_worker, args=(kind, target, w, barrier, q)) for w in work]
    for p in procs:
        p.start()
    times = [q.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    return sum(len(w) for w in work) / max(times)


def report(label: str, ours: dict, raw_rate: float, verdict: str) -> None:
    rate = ours["commands"] / ours["wall"]
    print(f"{label}: {ours['commands']} commands in {ours['wall']:.1f}s = {rate:,.0f} commands/s; "
          f"latency p50 {ours['p50'] * 1e3:.1f} ms, p99 {ours['p99'] * 1e3:.1f} ms; "
          f"{ours['conflicts']} conflicts retried")
    print(f"{label}: raw inserts of the same rows, same transactions: {raw_rate:,.0f} commands/s; "
          f"RATIO ours/raw = {rate / raw_rate:.2f}× (goal ≥ 0.5×)")
    print(f"{label}: {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--games", type=int, default=48)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--store", choices=("both", "pg", "sqlite"), default="both")
    args = ap.parse_args()
    print(f"{args.workers} workers, {args.games} {GAME} games (every 4th contended by two workers), "
          f"up to {args.seconds:.0f}s; {os.cpu_count()} CPUs")
    if args.store in ("both", "pg"):
        import psycopg
        from tests.helpers.pg_server import throwaway_cluster, with_schema

        with throwaway_cluster(durable=True) as url:
            with psycopg.connect(url, autocommit=True) as c:
                c.execute("CREATE SCHEMA ours")
                c.execute("CREATE SCHEMA raw")
            target = with_schema(url, "ours")
            ids = setup_games(target, args.games)
            ours = run_ours(target, ids, args.workers, args.seconds)
            verdict = check(target, ids, ours["batches"])
            raw = run_raw("pg", with_schema(url, "raw"), target, ours["per_worker"])
            report("postgresql", ours, raw, verdict)
    if args.store in ("both", "sqlite"):
        with tempfile.TemporaryDirectory() as tmp:
            target = os.path.join(tmp, "load.db")
            ids = setup_games(target, args.games)
            ours = run_ours(target, ids, args.workers, args.seconds)
            verdict = check(target, ids, ours["batches"])
            raw = run_raw("sqlite", os.path.join(tmp, "raw.db"), target, ours["per_worker"])
            report("sqlite", ours, raw, verdict)


if __name__ == "__main__":
    main()
