"""``citylog analyse``: every decision judged from its mover's view (issue 25).

The judging is :mod:`core.analysis` (pure); this module reads the views, spreads
the judgements over processes (``--jobs``), keeps them beside the chain (the
store's ``analyses`` table, as notes are kept: the game is unchanged) and
prints them.  Each seat's decisions are judged from that seat's view alone:
its exported file (:func:`replay.sources.export`, :func:`replay.sources.view_of`,
the one redaction path), so ``analyse FILE`` on P's file equals ``analyse GAME
--as P``.
"""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import msgspec
import typer

from cli.context import game_or_file, service
from cli.errors import guarded
from cli.options import GameOrFile, Json
from cli.output import emit_json, say
from core import analysis as an
from events.service import GameService, ServiceError
from replay.analyses import store_key
from replay.logfile import LogFile
from replay.sources import export, fold_log, read_path, view_of, view_seat

Judged = an.DecisionJudgement | an.ChanceJudgement
_DECODE = msgspec.json.Decoder(Judged)


def _views(svc: GameService | None, ref: str, as_: str | None) -> tuple[list[LogFile], str | None]:
    """The views to judge from (one per seat judged) and the stored game's id (None: a file)."""
    path = Path(ref)
    if path.is_file():
        log = read_path(path)
        if log.header.view is not None:
            return [view_of(log, as_, ref) if as_ else log], None
        players = [as_] if as_ else list(log.header.definition.players)
        return [view_of(log, p, ref) for p in players], None
    assert svc is not None
    record = svc.store.get_game(ref)
    players = [as_] if as_ else list(record.definition.players)
    if as_ and as_ not in record.definition.players:
        raise ServiceError(f"no player {as_!r} (players: {', '.join(record.definition.players)})")
    return [export(svc, ref, p) for p in players], ref


# -- judging, in this process or in a pool of them (fork: the tasks are inherited) --
_WORK: list[tuple[Any, an.Task, int]] = []


def _judge_at(i: int) -> bytes:
    game, task, budget = _WORK[i]
    return msgspec.json.encode(an.judge(game, task, budget))


def _judge_indexed(i: int) -> tuple[int, bytes]:
    return i, _judge_at(i)


def _cost(task: an.Task, budget: int) -> int:
    """A judgement's expected cost, to hand the costliest out first: the playouts it
    runs (a decision searches and plays out both commands; a chance run plays out
    both sides) times how far each goes (the earlier, the longer)."""
    playouts = budget + 2 * an.worlds(budget) if task.kind == "decision" else 2 * an.worlds(budget)
    return playouts * (10_000 - min(task.first, 9_999))


def _run(work: list[tuple[Any, an.Task, int]], jobs: int, progress: bool) -> list[bytes]:
    """Every judgement of ``work``, in its order.  With ``jobs`` > 1 a pool of
    forked processes takes them one at a time, the costliest first (:func:`_cost`),
    so no long judgement is left for the end while the other process waits."""
    global _WORK
    _WORK = work
    out: list[bytes | None] = [None] * len(work)
    try:
        if jobs <= 1 or len(work) <= 1:
            it: Any = ((i, _judge_at(i)) for i in range(len(work)))
            pool = None
        else:
            order = sorted(range(len(work)), key=lambda i: (-_cost(work[i][1], work[i][2]), i))
            pool = multiprocessing.get_context("fork").Pool(min(jobs, len(work)))
            it = pool.imap_unordered(_judge_indexed, order)
        try:
            for k, (i, data) in enumerate(it, 1):
                out[i] = data
                if progress:
                    sys.stderr.write(f"\ranalysing: {k}/{len(work)} judgements")
                    sys.stderr.flush()
        finally:
            if pool is not None:
                pool.close()
                pool.join()
        if progress and work:
            sys.stderr.write("\n")
    finally:
        _WORK = []
    assert all(x is not None for x in out)
    return [x for x in out if x is not None]


def analyse_views(svc: GameService | None, views: list[LogFile], game_id: str | None, budget: int | None,
                  jobs: int, progress: bool = False) -> dict[str, Any]:
    """Everything ``analyse --json`` prints."""
    per_seat: list[tuple[str, Any, list[an.Task], list[Any]]] = []
    game = None
    for view in views:
        seat = view_seat(view)
        assert seat is not None
        game, events, states = fold_log(view)
        player = view.header.definition.players[seat]
        b = budget or game.search.playouts
        ts = an.tasks(game, events, states, seat, view.header.game_id or "", b, player)
        final = game.result(game.view(states[-1], seat)) if states else None
        per_seat.append((player, final, ts, states))
    if game is None:
        raise ServiceError("nothing to analyse")
    b = budget or game.search.playouts
    rules = views[0].header.definition.rules_version
    stored = svc.store.analyses(game_id) if svc is not None and game_id is not None else {}
    keys = [[store_key(p, t, b, rules) for t in ts] for p, _, ts, _ in per_seat]
    missing = [(game, t, b) for (_, _, ts, _), ks in zip(per_seat, keys) for t, k in zip(ts, ks) if k not in stored]
    missing_keys = [k for (_, _, ts, _), ks in zip(per_seat, keys) for t, k in zip(ts, ks) if k not in stored]
    fresh = _run(missing, jobs, progress)
    if svc is not None and game_id is not None and fresh:
        svc.writer.put_analyses(game_id, list(zip(missing_keys, fresh)))
    found = {**stored, **dict(zip(missing_keys, fresh))}
    players = list(views[0].header.definition.players)
    decisions: list[dict[str, Any]] = []
    chances: list[dict[str, Any]] = []
    seats: dict[str, Any] = {}
    for (player, final, _, _), ks in zip(per_seat, keys):
        judged = [_DECODE.decode(found[k]) for k in ks]
        seat = players.index(player)
        result = None
        if final is not None:
            result = 1 / len(final.winners) if seat in final.winners else 0.0
        seats[player] = msgspec.to_builtins(an.summarize(player, judged, result))
        for j in judged:
            row = msgspec.to_builtins(j)
            row["player"] = player
            for field in ("before", "after", "margin_before", "margin_after"):
                if field in row:
                    row[field] = dict(zip(players, row[field]))
            (decisions if isinstance(j, an.DecisionJudgement) else chances).append(row)
    decisions.sort(key=lambda r: r["seq"])
    chances.sort(key=lambda r: (r["first"], r["player"]))
    return {
        "game_id": views[0].header.game_id,
        "game": views[0].header.definition.game,
        "rules_version": rules,
        "engine_version": an.ENGINE_VERSION,
        "budget": b,
        "worlds": an.worlds(b),
        "players": players,
        "thresholds": dict(an.THRESHOLDS),
        "decisions": decisions,
        "chance": chances,
        "seats": seats,
    }


def describe(data: dict[str, Any]) -> list[str]:
    """Readable lines: a line per decision, then each seat's summary."""
    out = [f"analysis of {data['game_id']} ({data['budget']} playouts, {data['worlds']} worlds a judgement; "
           "win chances from the mover's view)"]
    for d in data["decisions"]:
        p = d["player"]
        mark = f"  {d['mark'].upper()}" if d["mark"] else ""
        best = "" if d["best"] == d["played"] else f"  best: {d['best']}"
        out.append(f"{d['seq']:>5}  {p}: {d['played']}  win {d['before'][p]:.0%} → {d['after'][p]:.0%}"
                   f"  loss {d['loss']:.0%}{best}{mark}")
    for p, s in data["seats"].items():
        acc = "—" if s["accuracy"] is None else f"{s['accuracy']:.0f}%"
        marks = ", ".join(f"{n} {k}" for k, n in s["marks"].items())
        out.append(f"{p}: accuracy {acc} over {s['decisions']} decisions ({marks}); "
                   f"luck {s['luck']:+.0%}, skill {s['skill']:+.0%}")
    return out


def analyse(
    ctx: typer.Context,
    ref: GameOrFile,
    as_: Annotated[Optional[str], typer.Option("--as", help="Judge this player's decisions only (from their view)")] = None,
    budget: Annotated[
        Optional[int], typer.Option(min=1, help="Playouts a judgement (default: what the mcts bot searches in this game)")
    ] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Processes to judge in (the answer does not depend on it)")] = 1,
    json: Json = False,
) -> None:
    """Judge every decision of a game from what its mover knew.

    Each seat's win chance before and after, the best command found and the
    loss; marks only where the loss is real; accuracy and luck per seat.
    Stored beside the game, so a second analyse is instant.

    \b
    Example:
      citylog analyse last --budget 60
      citylog analyse alice.jsonl --json
    """
    ref = game_or_file(ctx, ref)
    svc = None if Path(ref).is_file() else service(ctx)
    views, game_id = _views(svc, ref, as_)
    data = analyse_views(svc, views, game_id, budget, jobs, progress=sys.stderr.isatty() and not json)
    if json:
        emit_json(data)
        return
    for line in describe(data):
        say(line)


def register(app: typer.Typer) -> None:
    app.command("analyse")(guarded(analyse))
