"""Instructions a search playout costs, and a replay's, counted by callgrind (load-independent).

    python bench/playout_instructions.py [--games 20] [--game card-city] [--no-replay]

On a machine shared with other jobs, timings move with the load; the number of
instructions executed does not.  For each game, runs the playouts of
``bench_engines.py`` (``--games`` two-player games from the created state, the
same streams) under ``valgrind --tool=callgrind`` twice — once with two timed
rounds and once with none, after the same warm-up round — and prints the
difference per playout: the instructions of the playouts alone, start-up and
imports subtracted.

Then the same for ``bench_engines.py``'s replay: the ``--games`` seeded random
games recorded into a temporary SQLite store (outside valgrind), then
``GameService.load`` of every game on a cold service, two rounds minus none
after a warm-up round; and both per event, so that ``playout/replay`` — the
ratio ``bench_engines.py`` times — is also given by instructions, the figure
that survives the load (issue 25: target ≤ 3×).  Needs valgrind.  Not a test:
it prints and asserts nothing (bench/RESULTS.md, "Issue 25: playout speed" and
"Issue 25: Point City playout").
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import sys
sys.path.insert(0, {root!r})
from core import registry
from core.mcts import playout
from core.rng import Rng
game = registry.get({name!r})
created = [game.apply(None, game.create(["a", "b"], {{}})) for _ in range({games})]
def run(r):
    for k, start in enumerate(created):
        playout(game, start, Rng(f"engines/{{k}}/round{{r}}".encode()))
run(99)
for r in range({rounds}):
    run(r)
"""

_REPLAY = """
import sys
sys.path.insert(0, {root!r})
from events.service import GameService
from events.sqlite_store import SqliteStore
store = SqliteStore({db!r}, durability="normal")
ids = {ids!r}
def run():
    cold = GameService(store)  # no cached folds: select + decode + fold + the chain checked
    return sum(cold.load(gid).version for gid in ids)
run()
for r in range({rounds}):
    run()
store.close()
"""

_EVENTS = """
import sys
sys.path.insert(0, {root!r})
sys.path.insert(0, {bench!r})
from bench_engines import _events_of_playout
from core import registry
from core.rng import Rng
game = registry.get({name!r})
created = [game.apply(None, game.create(["a", "b"], {{}})) for _ in range({games})]
print(sum(_events_of_playout(game, start, Rng(f"engines/{{k}}/round{{r}}".encode()))
          for r in range(2) for k, start in enumerate(created)))
"""


def callgrind(code: str) -> int:
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        capture_output=True, text=True, check=True,
    )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from callgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def instructions(name: str, games: int, rounds: int) -> int:
    return callgrind(_CHILD.format(root=str(ROOT), name=name, games=games, rounds=rounds))


def playout_events(name: str, games: int) -> int:
    """The events the two counted rounds of playouts produce (as bench_engines counts them)."""
    code = _EVENTS.format(root=str(ROOT), bench=str(ROOT / "bench"), name=name, games=games)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def replay(name: str, games: int, tmp: Path) -> tuple[int, int]:
    """(instructions of two rounds of replays, the events they load)."""
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    db = tmp / f"{name}.db"
    store = SqliteStore(db, durability="normal")
    svc = GameService(store)
    ids = [svc.create(name, ["a", "b"], seed=f"engines/{k}", bots={0: "random", 1: "random"}) for k in range(games)]
    events = sum(GameService(store).load(gid).version for gid in ids)
    store.close()
    count = [callgrind(_REPLAY.format(root=str(ROOT), db=str(db), ids=ids, rounds=r)) for r in (2, 0)]
    return count[0] - count[1], 2 * events


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--game", action="append")
    parser.add_argument("--no-replay", action="store_true", help="the playouts only (as before)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from core import registry

    for name in args.game or registry.available():
        played = instructions(name, args.games, 2) - instructions(name, args.games, 0)
        per = played / (2 * args.games)
        if args.no_replay:
            print(f"{name}: {per / 1e6:.2f} M instructions a playout", flush=True)
            continue
        play_ev = played / playout_events(name, args.games)
        with tempfile.TemporaryDirectory() as tmp:
            loaded, n = replay(name, args.games, Path(tmp))
        replay_ev = loaded / n
        print(
            f"{name}: {per / 1e6:.2f} M instructions a playout, {play_ev / 1e3:.1f} k an event; "
            f"replay {replay_ev / 1e3:.1f} k an event → playout/replay {play_ev / replay_ev:.2f}× by instructions",
            flush=True,
        )


if __name__ == "__main__":
    main()
