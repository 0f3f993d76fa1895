"""Calibrate the analysis's marks on bot games (issue 25, "Calibration").

    python bench/calibrate_analysis.py --game card-city [--games 60] [--jobs 2] [--first 0] [--only mcts] [--rows F]
    python bench/calibrate_analysis.py --report F [F …]    # runs over several --first ranges, together

Plays ``--games`` two-player games between bots, the pairings cycling through
:data:`PAIRINGS` (seats alternating), and judges every decision of both seats
as ``citylog analyse`` does at the game's default budget: from the seat's own
view (each event redacted for the seat, the one redaction of the view law),
with :func:`core.analysis.tasks` and :func:`core.analysis.judge`, each
judgement's streams keyed by (game id, seq, budget, player).  It prints, per bot:

* its decisions (forced ones apart) and the share of them marked, per mark;
* its mean accuracy (lichess's formula, :func:`core.analysis.accuracy`);
* the loss distribution (where the thresholds would cut).

The bots: ``random`` and ``greedy`` (the game's), ``mcts`` (the search at the
default budget, its own random stream: "the search's own choice"), and
``best``, a seat that plays exactly the analysis's best command — the search
from its view with the judgement's own stream (:func:`core.analysis.stream_key`).

What issue 25 asks of it: mark rates ordered random > greedy > mcts, ``mcts``
marked in under 2% of its decisions, ``best`` with accuracy at least 95%.
Not a test: it prints, and asserts nothing.  CPU-heavy: a Card City game
costs ~10-20 s, 5x5 City ~1 min at today's budgets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from collections.abc import Iterator
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core import analysis as an  # noqa: E402
from core import registry  # noqa: E402
from core.autoplay import next_command  # noqa: E402
from core.engine import CHANCE, checked_decide  # noqa: E402
from core.mcts import Budget, search  # noqa: E402
from core.rng import Rng  # noqa: E402

PAIRINGS: tuple[tuple[str, str], ...] = (
    ("random", "greedy"),
    ("greedy", "mcts"),
    ("random", "mcts"),
    ("best", "greedy"),
)
PLAYERS = ("alice", "bob")


def _best(game: Any, view: Any, seat: int, game_id: str, seq: int, budget: int) -> Any:
    """What the analysis would call best at this decision: its own search, its own stream."""
    legal = list(game.legal(view, seat))
    if len(legal) <= 1:
        return legal[0]
    key = an.stream_key(game_id, seq, budget, PLAYERS[seat])
    return search(game, view, seat, Rng(f"{key}/search".encode()), Budget(budget))[0].command


def play(name: str, game_id: str, bots: tuple[str, str]) -> tuple[Any, list[Any]]:
    """A whole game, ``bots[s]`` playing seat ``s``: (final state, events)."""
    game = registry.get(name)
    budget = game.search.playouts
    policies = {s: ("mcts" if b == "mcts" else b) for s, b in enumerate(bots) if b != "best"}
    created = game.create(list(PLAYERS), {})
    state = game.apply(None, created)
    events: list[Any] = [created]
    while True:
        seq = len(events) + 1
        step = next_command(game, state, game_id, seq, policies)
        if step is None:
            actors = game.to_act(state)
            if not actors:
                return state, events
            seat = actors[0]
            assert seat != CHANCE and bots[seat] == "best"
            step = seat, _best(game, game.view(state, seat), seat, game_id, seq, budget)
        seat, command = step
        for e in checked_decide(game, state, seat, command):
            state = game.apply(state, e)
            events.append(e)


def bots_of(k: int) -> tuple[str, str]:
    """Game ``k``'s bots by seat: the pairings cycle, seats alternating."""
    bots = PAIRINGS[(k // 2) % len(PAIRINGS)]
    return (bots[1], bots[0]) if k % 2 else bots


def judge_game(args: tuple[str, int, tuple[str, ...] | None]) -> list[dict[str, Any]]:
    """Play game ``k`` and judge both seats (or only those ``only``'s bots play): one row per judgement."""
    name, k, only = args
    game = registry.get(name)
    bots = bots_of(k)
    game_id = f"calibrate-{name}-{k}"
    started = time.process_time()
    _, events = play(name, game_id, bots)
    played = time.process_time() - started
    budget = game.search.playouts
    rows: list[dict[str, Any]] = []
    for seat, player in enumerate(PLAYERS):
        if only is not None and bots[seat] not in only:
            continue
        seen = [game.redact(e, seat) for e in events]
        states = []
        state = None
        for e in seen:
            state = game.apply(state, e)
            states.append(state)
        for task in an.tasks(game, seen, states, seat, game_id, budget, player):
            if task.kind != "decision":
                continue
            j = an.judge(game, task, budget)
            assert isinstance(j, an.DecisionJudgement)
            rows.append({"game": k, "bot": bots[seat], "forced": j.forced, "loss": j.loss, "lcb": j.lcb,
                         "mark": j.mark, "before": j.before[seat], "after": j.after[seat],
                         "search_equal": j.search_best == j.played,
                         "seq": j.seq, "worlds": j.worlds, "played": j.played, "best": j.best})
    rows.append({"game": k, "cpu_play": played, "cpu_all": time.process_time() - started})
    return rows


def report(name: str, rows: list[dict[str, Any]], games: int) -> None:
    by_bot: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if "bot" in r:
            by_bot[r["bot"]].append(r)
    per_game: dict[tuple[int, str], list[tuple[float, float]]] = defaultdict(list)
    for r in rows:
        if "bot" in r and not r["forced"]:
            per_game[(r["game"], r["bot"])].append((r["before"], r["after"]))
    cpu = [r["cpu_all"] for r in rows if "cpu_all" in r]
    print(f"{name}: {games} two-player games, budget {registry.get(name).search.playouts}, "
          f"thresholds {dict(an.THRESHOLDS)}, engine {an.ENGINE_VERSION}; "
          f"CPU a game (play + judge both seats) mean {statistics.mean(cpu):.1f} s")
    print(f"  {'bot':<7} {'decisions':>9} {'marked':>7} {'inacc':>6} {'mistake':>7} {'blunder':>7} "
          f"{'accuracy':>8}  loss quantiles (50/90/99%)")
    for bot in ("random", "greedy", "mcts", "best"):
        rs = [r for r in by_bot.get(bot, []) if not r["forced"]]
        if not rs:
            continue
        n = len(rs)
        count = {m: sum(1 for r in rs if r["mark"] == m) for m in ("inaccuracy", "mistake", "blunder")}
        marked = sum(count.values())
        accs = [a for (g, b), pairs in per_game.items() if b == bot for a in [an.accuracy(pairs)] if a is not None]
        losses = sorted(r["loss"] for r in rs)
        q = [losses[min(n - 1, int(p * n))] for p in (0.5, 0.9, 0.99)]
        print(f"  {bot:<7} {n:>9} {100 * marked / n:>6.1f}% {100 * count['inaccuracy'] / n:>5.1f}% "
              f"{100 * count['mistake'] / n:>6.1f}% {100 * count['blunder'] / n:>6.1f}% "
              f"{statistics.mean(accs):>7.1f}%  {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="a game (repeatable; default: all three)")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--first", type=int, default=0, help="the first game's number (its seed)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", choices=("random", "greedy", "mcts", "best"), nargs="+",
                        help="judge only these bots' seats, in the games they play (a cheaper look at some "
                             "rows; runs over the other bots add up with --report)")
    parser.add_argument("--rows", help="append every judgement's row (JSON lines) to this file")
    parser.add_argument("--report", metavar="ROWS", nargs="+",
                        help="play nothing: report the rows of earlier runs' --rows files together (runs "
                             "over different --first ranges add up; rows of another engine version or "
                             "budget than today's, or a game twice, are refused)")
    args = parser.parse_args()
    if args.report:
        report_rows(args.report, args.game)
        return
    for name in args.game or ["card-city", "5x5-city", "point-city"]:
        only = tuple(args.only) if args.only else None
        work = [(name, k, only) for k in range(args.first, args.first + args.games)
                if only is None or set(only) & set(bots_of(k))]
        rows: list[dict[str, Any]] = []
        with contextlib.ExitStack() as stack:
            if args.jobs > 1:
                pool = stack.enter_context(multiprocessing.get_context("fork").Pool(args.jobs))
                parts: Iterator[list[dict[str, Any]]] = pool.imap(judge_game, work, chunksize=1)
            else:
                parts = map(judge_game, work)
            for part in parts:  # each game's rows kept as it ends: a run stopped part-way keeps them
                rows += part
                if args.rows:
                    with _open(args.rows, "at") as f:
                        for r in part:
                            f.write(json.dumps({"name": name, "engine": an.ENGINE_VERSION,
                                                "budget": registry.get(name).search.playouts, **r}) + "\n")
        report(name, rows, args.games)


def _open(path: str, mode: str) -> Any:
    """A rows file, gzip-compressed when its name ends in .gz (appends add members)."""
    import gzip

    return gzip.open(path, mode, encoding="utf-8") if path.endswith(".gz") else open(path, mode, encoding="utf-8")


def report_rows(paths: list[str], games: list[str] | None) -> None:
    """The report of the rows in ``paths``, per game: only rows of today's engine and
    budget count, and no decision may be judged twice (two runs over one range).  Its
    CPU figure is a mean over the runs' games, whatever seats each run judged."""
    by_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for path in paths:
        with _open(path, "rt") as f:
            for line in f:
                r = json.loads(line)
                by_name[r["name"]].append(r)
    for name, rows in sorted(by_name.items()):
        if games and name not in games:
            continue
        today = (an.ENGINE_VERSION, registry.get(name).search.playouts)
        stale = {(r.get("engine"), r.get("budget")) for r in rows} - {today}
        if stale:
            raise SystemExit(f"{name}: rows of engine/budget {sorted(map(str, stale))}, not today's {today}")
        judged = [(r["game"], r["bot"], r["seq"]) for r in rows if "bot" in r]
        if len(judged) != len(set(judged)):
            raise SystemExit(f"{name}: a decision is judged twice in the rows (two runs over one range)")
        report(name, rows, len({r["game"] for r in rows}))


if __name__ == "__main__":
    main()
