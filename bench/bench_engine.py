"""A move through ``citylog engine`` against ``GameService.submit`` in process (issue 26).

    python bench/bench_engine.py [--games 4] [--rounds 3] [--durability normal|full]
                                 [--game NAME] [--pin CPU]

Issue 26's criterion: a move through the engine costs at most 2× a ``submit``
in process.  For every game, the human decisions of seeded random 2-player
games are played twice in each round, into fresh SQLite files at the same
durability:

* in process: ``GameService.submit`` of each command (parsed beforehand) — the
  bar, unchanged: the same service, store, durability and transaction a move;
* through the protocol: one real ``citylog engine`` process on a pipe a round,
  one ``move`` request a command (its text, parsed by the engine), each answer
  read before the next request is sent: what a bot pays for a move, the JSON
  both ways, the events' descriptions and the pipe's round trip included (the
  process start and each ``new`` are not counted).  The client is a careful
  bot: msgspec's JSON, encoder and decoder made once.

For each game it prints, as the median over the rounds (and, for the ratios,
the lowest and highest round), a move's

* **CPU**: the engine process's CPU (from /proc/PID/schedstat, to the
  nanosecond, between its first and its last move: the engine waits on its
  next line at both reads) against the bench process's CPU over the submits.
  This is the criterion's figure: what the engine itself spends on a move, in
  user and kernel time (the pipe's reads and writes included), and the one a
  loaded machine inflates least (other processes' time is not counted);
* **wall**: the round trip as the bot waits for it, against a submit's wall
  time.  On the shared 2-core machine it also holds the wake-ups of two
  processes that hand the CPU to each other a move (on two CPUs, an idle CPU
  woken each way) and whatever else the machine runs: ``--pin CPU`` runs the
  bench, the engine and the submits on that one CPU (an engine beside its bot
  on one core), which leaves the hand-over without the cross-CPU wake-ups;
* **client**: the bot's own CPU a move (encoding, decoding, the pipe), not in
  either ratio.

Not a test: it asserts nothing.  Callgrind's instruction counts
(bench/RESULTS.md, issue 26) are the load-independent figure beside it.
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
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core import registry  # noqa: E402
from core.autoplay import play_game  # noqa: E402
from core.engine import CHANCE  # noqa: E402
from events.service import GameService  # noqa: E402
from events.backends import open_store  # noqa: E402

PLAYERS = ["ann", "bob"]


def recorded(game: Any, seed: str) -> list[tuple[int, Any]]:
    """The human decisions of a random game, in order."""
    _, events = play_game(game, PLAYERS, seed, ["random"] * len(PLAYERS))
    return [o for o in map(game.command_of, events[1:]) if o is not None and o[0] != CHANCE]


def in_process(
    path: Path, name: str, seed: str, moves: list[tuple[int, Any]], durability: str
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) a move of ``GameService.submit``."""
    svc = GameService(open_store(str(path), durability=durability))  # type: ignore[arg-type]
    gid = svc.create(name, PLAYERS, seed=seed)
    t0, c0 = time.perf_counter(), time.process_time()
    for seat, command in moves:
        svc.submit(gid, seat, command)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    svc.store.close()
    return seconds / len(moves), cpu / len(moves)


def _cpu_of(pid: int) -> float:
    """The CPU seconds process ``pid`` (one thread) has run so far, to the
    nanosecond (Linux /proc/PID/schedstat; /proc/PID/stat counts 10 ms ticks)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9


def through_engine(
    path: Path, name: str, plays: list[tuple[str, list[tuple[str, str]]]], durability: str
) -> tuple[float, float, float]:
    """(wall seconds a move request's round trip, the engine process's CPU seconds a
    move, the client's CPU seconds a move), every play in one ``citylog engine`` session.

    The engine's CPU is read from /proc between the first and the last move (the
    engine is waiting on its next line at both reads), so the process's start and
    each ``new`` are left out, and so is the client's side (counted apart)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--db", str(path), "--durability", durability, "engine"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    encode, decode = msgspec.json.Encoder().encode, msgspec.json.Decoder().decode
    write, flush, readline = proc.stdin.write, proc.stdin.flush, proc.stdout.readline

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        write(encode(request) + b"\n")
        flush()
        answer: dict[str, Any] = decode(readline())
        if not answer["ok"]:
            raise SystemExit(f"engine refused {request}: {answer['error']['message']}")
        return answer

    games = [(ask({"op": "new", "game": name, "players": PLAYERS, "seed": seed})["game_id"], texts)
             for seed, texts in plays]
    ask({"op": "legal", "game": games[0][0], "player": PLAYERS[0]})  # modules a move needs: loaded
    n = sum(len(texts) for _, texts in plays)
    c0, t0, k0 = _cpu_of(proc.pid), time.perf_counter(), time.process_time()
    for gid, texts in games:
        for player, text in texts:
            ask({"op": "move", "game": gid, "player": player, "command": text})
    seconds, client = time.perf_counter() - t0, time.process_time() - k0
    cpu = _cpu_of(proc.pid) - c0
    ask({"op": "quit"})
    proc.stdin.close()
    proc.wait()
    return seconds / max(1, n), cpu / max(1, n), client / max(1, n)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--durability", choices=["normal", "full"], default="normal")
    parser.add_argument("--game", default="all", help="one game, or all (default)")
    parser.add_argument("--pin", type=int, default=None, metavar="CPU",
                        help="run the bench, the engine and the submits on this one CPU")
    args = parser.parse_args(argv)
    if args.pin is not None:
        os.sched_setaffinity(0, {args.pin})  # the engine process inherits it
    where = f"pinned to CPU {args.pin}" if args.pin is not None else f"CPUs {sorted(os.sched_getaffinity(0))}"
    print(f"durability={args.durability}; {where}; a move, median over {args.rounds} rounds of {args.games} games "
          f"(ratio: engine / submit, median [lowest–highest round]; goal <= 2x)")
    with tempfile.TemporaryDirectory() as tmp:
        for name in registry.available() if args.game == "all" else [args.game]:
            game = registry.get(name)
            plays = [(f"bench-engine/{k}", recorded(game, f"bench-engine/{k}")) for k in range(args.games)]
            n = sum(len(moves) for _, moves in plays)
            texts = [(seed, [(PLAYERS[s], game.format_command(c)) for s, c in moves]) for seed, moves in plays]
            rows: list[tuple[float, float, float, float, float]] = []  # wall, CPU in process; wall, CPU, client
            for r in range(args.rounds):
                wall = cpu = 0.0
                for k, (seed, moves) in enumerate(plays):
                    w, c = in_process(Path(tmp) / f"{name}-s{r}-{k}.db", name, seed, moves, args.durability)
                    wall, cpu = wall + w * len(moves), cpu + c * len(moves)
                rows.append((wall / n, cpu / n, *through_engine(Path(tmp) / f"{name}-e{r}.db", name, texts,
                                                                args.durability)))
            print(f"{name:<11} {n} moves a round")
            for label, sub, eng in (("CPU", 1, 3), ("wall", 0, 2)):
                ratios = sorted(row[eng] / row[sub] for row in rows)
                a, b = statistics.median(row[eng] for row in rows), statistics.median(row[sub] for row in rows)
                print(f"  {label:<5} engine {a * 1e6:6.1f} us, submit {b * 1e6:6.1f} us = "
                      f"{statistics.median(ratios):.2f}x [{ratios[0]:.2f}–{ratios[-1]:.2f}]")
            print(f"  client CPU {statistics.median(row[4] for row in rows) * 1e6:6.1f} us a move (the bot's side)")


if __name__ == "__main__":
    main()
