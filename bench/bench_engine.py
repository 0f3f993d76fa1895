"""A move through ``citylog engine`` against ``GameService.submit`` in process (issue 26).

    python bench/bench_engine.py [--games 4] [--rounds 3] [--durability normal|full] [--game NAME]

For every game, the human decisions of seeded random 2-player games are played
twice in each round, into fresh SQLite files at the same durability:

* in process: ``GameService.submit`` of each command (parsed beforehand);
* through the protocol: one real ``citylog engine`` process on a pipe a round,
  one ``move`` request a command, each answer read before the next request is
  sent (what a bot pays for a move, JSON both ways and the pipe's round trip
  included; the process start and the ``new`` are not counted).

Prints each game's median time a move both ways and the ratio engine / submit
(goal: at most 2×), in wall time and in CPU time (the engine process's CPU
from /proc between its first and its last move; CPU is what a loaded machine
inflates least, and it leaves out the client's side).  Not a test: it asserts
nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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
) -> tuple[float, float]:
    """(wall seconds a move request's round trip, the engine process's CPU seconds a
    move), every play in one ``citylog engine`` session.

    The CPU is read from /proc between the first and the last move (the engine is
    waiting on its next line at both reads), so the process's start and each
    ``new`` are left out, and so is the client's side."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--db", str(path), "--durability", durability, "engine"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()
        answer: dict[str, Any] = json.loads(proc.stdout.readline())
        if not answer["ok"]:
            raise SystemExit(f"engine refused {request}: {answer['error']['message']}")
        return answer

    games = [(ask({"op": "new", "game": name, "players": PLAYERS, "seed": seed})["game_id"], texts)
             for seed, texts in plays]
    ask({"op": "legal", "game": games[0][0], "player": PLAYERS[0]})  # modules a move needs: loaded
    n = sum(len(texts) for _, texts in plays)
    c0, t0 = _cpu_of(proc.pid), time.perf_counter()
    for gid, texts in games:
        for player, text in texts:
            ask({"op": "move", "game": gid, "player": player, "command": text})
    seconds, cpu = time.perf_counter() - t0, _cpu_of(proc.pid) - c0
    ask({"op": "quit"})
    proc.stdin.close()
    proc.wait()
    return seconds / max(1, n), cpu / max(1, n)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--durability", choices=["normal", "full"], default="normal")
    parser.add_argument("--game", default="all", help="one game, or all (default)")
    args = parser.parse_args(argv)
    print(f"durability={args.durability}; median time a move over {args.games} games x {args.rounds} rounds")
    with tempfile.TemporaryDirectory() as tmp:
        for name in registry.available() if args.game == "all" else [args.game]:
            game = registry.get(name)
            plays = [(f"bench-engine/{k}", recorded(game, f"bench-engine/{k}")) for k in range(args.games)]
            ours, theirs, ours_cpu, theirs_cpu = [], [], [], []
            for r in range(args.rounds):
                wall = cpu = 0.0
                for k, (seed, moves) in enumerate(plays):
                    w, c = in_process(Path(tmp) / f"{name}-s{r}-{k}.db", name, seed, moves, args.durability)
                    wall, cpu = wall + w * len(moves), cpu + c * len(moves)
                n = sum(len(moves) for _, moves in plays)
                theirs.append(wall / n)
                theirs_cpu.append(cpu / n)
                texts = [(seed, [(PLAYERS[s], game.format_command(c)) for s, c in moves]) for seed, moves in plays]
                wall, cpu = through_engine(Path(tmp) / f"{name}-e{r}.db", name, texts, args.durability)
                ours.append(wall)
                ours_cpu.append(cpu)
            a, b = statistics.median(ours), statistics.median(theirs)
            ac, bc = statistics.median(ours_cpu), statistics.median(theirs_cpu)
            print(f"{name:<11} wall: engine move {a * 1e3:6.2f} ms, submit {b * 1e3:6.2f} ms = {a / b:.2f}x;  "
                  f"CPU: engine {ac * 1e3:6.2f} ms, submit {bc * 1e3:6.2f} ms = {ac / bc:.2f}x (goal <= 2x)")

if __name__ == "__main__":
    main()
