"""Instructions a search playout costs, counted by callgrind (load-independent).

    python bench/playout_instructions.py [--games 20] [--game card-city]

On a machine shared with other jobs, timings move with the load; the number of
instructions executed does not.  For each game, runs the playouts of
``bench_engines.py`` (``--games`` two-player games from the created state, the
same streams) under ``valgrind --tool=callgrind`` twice — once with two timed
rounds and once with none, after the same warm-up round — and prints the
difference per playout: the instructions of the playouts alone, start-up and
imports subtracted.  Needs valgrind.  Not a test: it prints and asserts nothing
(bench/RESULTS.md, "Issue 25: playout speed").
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
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


def instructions(name: str, games: int, rounds: int) -> int:
    code = _CHILD.format(root=str(ROOT), name=name, games=games, rounds=rounds)
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        capture_output=True, text=True, check=True,
    )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from callgrind:\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--game", action="append")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from core import registry

    for name in args.game or registry.available():
        per = (instructions(name, args.games, 2) - instructions(name, args.games, 0)) / (2 * args.games)
        print(f"{name}: {per / 1e6:.1f} M instructions a playout", flush=True)


if __name__ == "__main__":
    main()
