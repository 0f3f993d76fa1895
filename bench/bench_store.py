"""Benchmark the event store against raw sqlite3 doing the same work, in one run.

    python bench/bench_store.py [--events N] [--rounds R] [--reads R]

Prints rates and ratios, e.g. ``append: X ev/s vs raw Y ev/s = 0.NN×``; no
assertions.  Target: append ≥ 0.5× raw at synchronous=FULL.

* append: ``SqliteStore.append`` with one small event per transaction
  (durability "full": WAL + synchronous=FULL) vs raw ``sqlite3`` running
  ``BEGIN; INSERT; COMMIT`` per row of the same bytes (the rows the store
  produced, hashes precomputed) into the same table, at the same durability.
  Also at synchronous=NORMAL, where no fsync hides the Python overhead.
* read: ``store.read`` (list of ``Recorded``) vs a raw ``SELECT … fetchall()``
  of the same rows.

Each comparison alternates ours/raw for ``--rounds`` rounds on fresh temp files
and reports the median rates.  To add a comparison, write a function
``(args, workdir) -> list[Result]`` and add it to ``SECTIONS``.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from events.envelope import GameDefinition, Recorded, chain  # noqa: E402
from events.store import GameRecord  # noqa: E402
from events.sqlite_store import SqliteStore  # noqa: E402

DEFINITION = GameDefinition("bench", "1", {"side": "a"}, ("ann", "bob", "cid"), "00" * 32)
GAME = "bench"


@dataclass
class Result:
    label: str
    ours: float
    raw: float
    unit: str = "ev/s"

    def line(self) -> str:
        return (
            f"{self.label}: {self.ours:,.0f} {self.unit} vs raw {self.raw:,.0f} {self.unit}"
            f" = {self.ours / self.raw:.2f}×"
        )


def raw_select_decode(conn: sqlite3.Connection, sql: str, decoder: Any, ids: list[str]) -> tuple[int, float]:
    """The replay baseline: events and seconds of a bare ``SELECT`` (``sql``, one
    game id bound) and msgspec decode of the payload of every game's rows."""
    t0 = time.perf_counter()
    m = 0
    for gid in ids:
        for row in conn.execute(sql, (gid,)).fetchall():
            decoder.decode(row[2])
            m += 1
    return m, time.perf_counter() - t0


def sample_items(n: int) -> list[tuple[str, bytes]]:
    """Small events shaped like a game's commands (~60 bytes each)."""
    return [
        ("card_played", b'{"type":"card_played","seat":%d,"card":"C%03d","slot":%d}' % (i % 3, i % 97, i % 5))
        for i in range(n)
    ]


# -- store side ----------------------------------------------------------------
def new_store(path: Path, durability: str = "full") -> SqliteStore:
    store = SqliteStore(path, durability=durability)  # type: ignore[arg-type]
    store.create_game(GameRecord.of(GAME, DEFINITION))
    return store


def store_append_rate(path: Path, items: list[tuple[str, bytes]], durability: str) -> float:
    store = new_store(path, durability)
    append = store.append
    t0 = time.perf_counter()
    for version, item in enumerate(items):
        append(GAME, version, (item,))
    dt = time.perf_counter() - t0
    store.close()
    return len(items) / dt


def store_read_rate(store: SqliteStore, repeats: int) -> float:
    n = 0
    t0 = time.perf_counter()
    for _ in range(repeats):
        n += len(store.read(GAME))
    return n / (time.perf_counter() - t0)


# -- raw sqlite3 side ----------------------------------------------------------
def raw_connect(path: Path, durability: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {durability.upper()}")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS events (game_id TEXT, seq INTEGER, type TEXT NOT NULL,"
        " payload BLOB NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,"
        " PRIMARY KEY (game_id, seq))"
    )
    return conn


def raw_append_rate(path: Path, records: list[Recorded], durability: str) -> float:
    conn = raw_connect(path, durability)
    rows = [(r.game_id, r.seq, r.type, r.payload, r.prev_hash, r.hash) for r in records]
    execute = conn.execute
    sql = "INSERT INTO events (game_id, seq, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)"
    t0 = time.perf_counter()
    for row in rows:
        execute("BEGIN")
        execute(sql, row)
        execute("COMMIT")
    dt = time.perf_counter() - t0
    conn.close()
    return len(rows) / dt


def raw_read_rate(conn: sqlite3.Connection, repeats: int) -> float:
    sql = "SELECT game_id, seq, type, payload, prev_hash, hash FROM events WHERE game_id = ? ORDER BY seq"
    n = 0
    t0 = time.perf_counter()
    for _ in range(repeats):
        n += len(conn.execute(sql, (GAME,)).fetchall())
    return n / (time.perf_counter() - t0)


# -- sections ------------------------------------------------------------------
def _alternate(rounds: int, ours: Callable[[int], float], raw: Callable[[int], float]) -> tuple[float, float]:
    a, b = [], []
    for r in range(rounds):
        a.append(ours(r))
        b.append(raw(r))
    return statistics.median(a), statistics.median(b)


def append_section(args: argparse.Namespace, workdir: Path) -> list[Result]:
    items = sample_items(args.events)
    records = chain(DEFINITION, GAME, items)
    out = []
    for durability, n in (("full", args.events), ("normal", args.events * 5)):
        its = sample_items(n)
        recs = records if n == args.events else chain(DEFINITION, GAME, its)
        ours, raw = _alternate(
            args.rounds,
            lambda r: store_append_rate(workdir / f"a-{durability}-store-{r}.db", its, durability),
            lambda r: raw_append_rate(workdir / f"a-{durability}-raw-{r}.db", recs, durability),
        )
        label = "append" if durability == "full" else "append (synchronous=NORMAL)"
        out.append(Result(label, ours, raw))
    return out


def read_section(args: argparse.Namespace, workdir: Path) -> list[Result]:
    n = max(args.events, 10_000)
    store = SqliteStore(workdir / "read.db", durability="normal")
    store.create_game(GameRecord.of(GAME, DEFINITION))
    items = sample_items(n)
    for i in range(0, n, 1000):
        store.append(GAME, i, items[i : i + 1000])
    raw = sqlite3.connect(workdir / "read.db")
    ours, theirs = _alternate(
        args.rounds,
        lambda r: store_read_rate(store, args.reads),
        lambda r: raw_read_rate(raw, args.reads),
    )
    store.close()
    raw.close()
    return [Result(f"read ({n:,} events)", ours, theirs)]


SECTIONS: list[Callable[[argparse.Namespace, Path], list[Result]]] = [
    append_section,
    read_section,
]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000, help="appends per round (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    parser.add_argument("--reads", type=int, default=20, help="full reads per read round")
    parser.add_argument("--dir", type=Path, default=None, help="temp dir (default: system temp)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for section in SECTIONS:
            for result in section(args, Path(tmp)):
                print(result.line(), flush=True)


if __name__ == "__main__":
    main()
