"""A move through ``citylog engine`` against ``GameService.submit`` in process (issue 26).

    python bench/bench_engine.py [--games 4] [--rounds 3] [--durability normal|full]

For every game, the human decisions of seeded random 2-player games are played
twice in each round, into fresh SQLite files at the same durability:

* in process: ``GameService.submit`` of each command (parsed beforehand);
* through the protocol: a real ``citylog engine`` process on a pipe, one
  ``move`` request a command, each answer read before the next request is sent
  (what a bot pays for a move, JSON both ways and the pipe's round trip
  included; the process start and the ``new`` are not counted).

Prints each game's median time a move both ways and the ratio engine / submit
(goal: at most 2×), in wall time and in CPU time (the engine process's CPU
less that of the same session without moves; CPU is what a loaded machine
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


def through_engine(
    path: Path, name: str, seed: str, texts: list[tuple[str, str]], durability: str
) -> tuple[float, float]:
    """(wall seconds a move request's round trip, the engine process's CPU seconds).

    The CPU time is the whole process's (start, ``new`` and ``quit`` included):
    :func:`engine_cpu` takes that of a session without moves off it."""
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

    gid = ask({"op": "new", "game": name, "players": PLAYERS, "seed": seed})["game_id"]
    t0 = time.perf_counter()
    for player, text in texts:
        ask({"op": "move", "game": gid, "player": player, "command": text})
    seconds = time.perf_counter() - t0
    ask({"op": "quit"})
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return seconds / max(1, len(texts)), usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--durability", choices=["normal", "full"], default="normal")
    args = parser.parse_args(argv)
    print(f"durability={args.durability}; median time a move over {args.games} games x {args.rounds} rounds")
    with tempfile.TemporaryDirectory() as tmp:
        for name in registry.available():
            game = registry.get(name)
            plays = [(f"bench-engine/{k}", recorded(game, f"bench-engine/{k}")) for k in range(args.games)]
            ours, theirs, ours_cpu, theirs_cpu = [], [], [], []
            for r in range(args.rounds):
                for k, (seed, moves) in enumerate(plays):
                    texts = [(PLAYERS[s], game.format_command(c)) for s, c in moves]
                    wall, cpu = in_process(Path(tmp) / f"{name}-s{r}-{k}.db", name, seed, moves, args.durability)
                    theirs.append(wall)
                    theirs_cpu.append(cpu)
                    wall, cpu = through_engine(Path(tmp) / f"{name}-e{r}-{k}.db", name, seed, texts, args.durability)
                    _, idle = through_engine(Path(tmp) / f"{name}-i{r}-{k}.db", name, seed, [], args.durability)
                    ours.append(wall)
                    ours_cpu.append((cpu - idle) / len(texts))
            a, b = statistics.median(ours), statistics.median(theirs)
            ac, bc = statistics.median(ours_cpu), statistics.median(theirs_cpu)
            print(f"{name:<11} wall: engine move {a * 1e3:6.2f} ms, submit {b * 1e3:6.2f} ms = {a / b:.2f}x;  "
                  f"CPU: engine {ac * 1e3:6.2f} ms, submit {bc * 1e3:6.2f} ms = {ac / bc:.2f}x (goal <= 2x)")

if __name__ == "__main__":
    main()
