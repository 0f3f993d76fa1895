"""Start-up cost of citylog commands, side by side with ``python -c pass``.

    python bench/bench_startup.py [--repeats 15] [--before DIR]

``--before DIR``: also time ``show`` and ``--help`` from another checkout
(e.g. ``git archive`` of main extracted in DIR), run with this interpreter.

Runs each command as a fresh process (interleaved, so machine load hits all
alike) against a small SQLite database, and prints the median wall time and
its ratio to ``python -c pass`` measured in the same run (goal ≤ 4×), and the
same for CPU time (user + system), which a loaded machine inflates least.  Two
"floor" lines time importing the client-fixed packages every command needs
(msgspec to decode, Typer to parse arguments, sqlite3): what no start-up work in
citylog can go below.  Also
reports whether Textual, sqlite-utils or psycopg were imported by a command
that does not need them.  No assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def citylog() -> list[str]:
    exe = Path(sys.executable).with_name("citylog")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cli.main"]


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, of the child) of one run: CPU time
    is what a loaded machine inflates least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def imported(args: list[str], env: dict[str, str]) -> list[str]:
    """Heavy modules a command imported (textual, sqlite_utils, psycopg, pydantic)."""
    code = (
        "import sys, runpy; sys.argv = ['citylog', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('cli.main', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "import json; heavy = ('textual', 'sqlite_utils', 'psycopg', 'pydantic')\n"
        "sys.__stderr__.write(json.dumps(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True)
    try:
        return json.loads(done.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return ["?"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--before", type=Path, help="another checkout to compare with")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # As on a normal install, modules load from their .pyc caches: pip compiles
        # them at install time, an editable install on first run.  (This machine
        # sets PYTHONDONTWRITEBYTECODE=1, which recompiles every module on every
        # run: ~50 ms a command.)  The warm-up run below writes the caches.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["CITYLOG_DB"] = os.path.join(tmp, "s.db")
        out = subprocess.run(
            [*citylog(), "new", "card-city", "--players", "alice,bob", "--seed", "s1", "--bots", "bob=greedy", "--json"],
            env=env, capture_output=True, text=True, check=True,
        )
        gid = json.loads(out.stdout)["game_id"]
        fresh = 0

        def legal_move() -> list[str]:
            """A new game (not timed) and its first legal command for alice: a move
            that is stored (load, fold, decide, append with synchronous=FULL)."""
            nonlocal fresh
            fresh += 1
            new = [*citylog(), "new", "card-city", "--players", "alice,bob", "--seed", f"m{fresh}", "--json"]
            g = json.loads(subprocess.run(new, env=env, capture_output=True, text=True, check=True).stdout)["game_id"]
            legal = [*citylog(), "legal", g, "--as", "alice", "--json"]
            first = json.loads(subprocess.run(legal, env=env, capture_output=True, text=True, check=True).stdout)
            return [*citylog(), "move", g, "--as", "alice", first["legal"][0]]

        cases: dict[str, Any] = {
            "python -c pass": [sys.executable, "-c", "pass"],
            # the floor the client's packages set: every command decodes with
            # msgspec and parses its arguments with Typer (Click)
            "floor: python -c 'import msgspec'": [sys.executable, "-c", "import msgspec"],
            "floor: python -c 'import msgspec, typer, sqlite3'": [sys.executable, "-c", "import msgspec, typer, sqlite3"],
            "citylog --help": [*citylog(), "--help"],
            "citylog list": [*citylog(), "list"],
            f"citylog show {gid}": [*citylog(), "show", gid],
            "citylog move GAME --as alice CMD (legal, stored)": legal_move,
            f"citylog move {gid} --as alice 'pass' (refused)": [*citylog(), "move", gid, "--as", "alice", "pass"],
            "citylog tui --help": [*citylog(), "tui", "--help"],
        }
        if args.before is not None:
            old = [sys.executable, "-c",
                   f"import sys; sys.path.insert(0, {str(args.before)!r}); sys.argv[0] = 'citylog'; "
                   "from cli.main import main; main()"]
            new = [sys.executable, "-c",
                   f"import sys; sys.path.insert(0, {str(ROOT)!r}); sys.argv[0] = 'citylog'; "
                   "from cli.main import main; main()"]
            cases["before: --help"] = [*old, "--help"]
            cases["after:  --help"] = [*new, "--help"]
            cases["before: list (fresh db)"] = [*old, "--db", os.path.join(tmp, "old.db"), "list"]
            cases["after:  list"] = [*new, "list"]
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
        def argv_of(case: Any) -> list[str]:
            return case() if callable(case) else case

        for k in cases:  # warm the page cache
            run(argv_of(cases[k]), env)
        for _ in range(args.repeats):
            for k, case in cases.items():
                times[k].append(run(argv_of(case), env))
        base = statistics.median(w for w, _ in times["python -c pass"])
        base_cpu = statistics.median(c for _, c in times["python -c pass"])
        print(f"{'':<52} {'wall':>9}   {'ratio':>6}   {'cpu':>9}   {'ratio':>6}  (medians of {args.repeats})")
        for k in cases:
            wall = statistics.median(w for w, _ in times[k])
            cpu = statistics.median(c for _, c in times[k])
            print(f"{k:<52} {wall * 1e3:6.1f} ms   {wall / base:5.2f}×   {cpu * 1e3:6.1f} ms   {cpu / base_cpu:5.2f}×")
        for cmd in (["list"], ["show", gid], ["--help"]):
            print(f"imports of citylog {' '.join(cmd)}: heavy modules {imported(cmd, env) or 'none'}")


if __name__ == "__main__":
    main()
