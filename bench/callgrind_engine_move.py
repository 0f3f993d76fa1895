"""Instructions a move, engine against submit, counted by callgrind (issue 26).

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=functools_reduce \
        --callgrind-out-file=OUT python bench/callgrind_engine_move.py MODE GAME DB
    grep '^summary:' OUT      # instructions in the measured loop; divide by the moves printed

MODE is ``submit`` (``GameService.submit`` of the parsed command, as
bench/bench_engine.py's bar), ``session`` (the engine's own handling of each
``move`` line in process: decode, parse, submit, describe, encode) or
``describe`` (redact for the mover and describe each event the bench's games
write).  Only the loop is counted: it runs inside ``functools.reduce``, which
nothing else here calls, and ``--toggle-collect`` counts inside it alone.  Run
with ``PYTHONHASHSEED=0``.  Instruction counts do not move with the machine's
load (bench/RESULTS.md, issue 26); they leave out the kernel (the pipe, SQLite's
writes) and the cost of cold caches, which bench_engine.py's CPU figure holds.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from bench.bench_engine import PLAYERS, recorded  # noqa: E402
from cli.engine import Session, _enc, serve  # noqa: E402,F401 - serve: the modules a move needs
from core import registry  # noqa: E402
from core.autoplay import play_game  # noqa: E402
from events.backends import open_store  # noqa: E402
from events.service import GameService  # noqa: E402

import cli.games  # noqa: E402,F401
import replay.sources  # noqa: E402,F401


def main() -> None:
    mode, name, db = sys.argv[1:4]
    game = registry.get(name)
    plays = [(f"bench-engine/{k}", recorded(game, f"bench-engine/{k}")) for k in range(4)]
    step: Any
    if mode == "describe":
        rows: list[Any] = []
        for k in range(4):
            _, events = play_game(game, PLAYERS, f"bench-engine/{k}", ["random"] * 2)
            rows += [(e, k % 2) for e in events[1:]]
        players = tuple(PLAYERS)
        describe, redact = game.describe, game.redact
        step = lambda _, r: describe(redact(r[0], r[1]), players)  # noqa: E731
    else:
        svc = GameService(open_store(db, durability="normal"))  # type: ignore[arg-type]
        session = Session(lambda: svc)
        gids = [svc.create(name, PLAYERS, seed=seed) for seed, _ in plays]
        svc.load(gids[0])
        if mode == "submit":
            rows = [(gid, s, c) for gid, (_, moves) in zip(gids, plays) for s, c in moves]
            step = lambda _, r: svc.submit(*r)  # noqa: E731
        elif mode == "session":
            rows = [msgspec.json.encode({"op": "move", "game": gid, "player": PLAYERS[s],
                                         "command": game.format_command(c)})
                    for gid, (_, moves) in zip(gids, plays) for s, c in moves]  # fmt: skip
            out = open(os.devnull, "wb")
            step = lambda _, line: out.write(_enc.encode(session.handle_line(line)) + b"\n")  # noqa: E731
        else:
            raise SystemExit(f"no mode {mode!r} (submit, session, describe)")
    for r in rows[:1] if mode == "describe" else ():
        step(None, r)  # warm
    gc.collect()
    gc.freeze()
    print(f"{len(rows)} {'events' if mode == 'describe' else 'moves'}", file=sys.stderr)
    functools.reduce(step, rows, None)


if __name__ == "__main__":
    main()
