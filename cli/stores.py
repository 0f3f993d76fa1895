"""Stores: ``copy`` (between SQLite and PostgreSQL) and ``watch`` (follow a game live)."""

from __future__ import annotations

import time
from typing import Annotated, Optional

import typer

from cli.context import game_id as resolve_game, service
from cli.errors import guarded
from cli.output import emit_json, plain
from cli.options import Game, Json
from core.words import plural
from events.service import ServiceError


def copy(
    ctx: typer.Context,
    from_: Annotated[str, typer.Option("--from", help="Source: a SQLite file or postgresql:// URL")],
    to: Annotated[str, typer.Option("--to", help="Target: a SQLite file or postgresql:// URL")],
    game: Annotated[list[str], typer.Option("--game", help="Only this game (repeatable)")] = [],  # noqa: B006
    json: Json = False,
) -> None:
    """Copy games between stores (SQLite, PostgreSQL), verified.

    Every chain is verified on both sides, hashes identical; signed move and
    join files, notes and tags come along.  Idempotent: rerun an interrupted
    copy to finish it.

    \b
    Example:
      citylog copy --from citylog.db --to postgresql://citylog@/postgres?host=/tmp
    """
    from events.copy import copy_games
    from events.backends import open_store
    from events.targets import is_url

    if from_ == to:
        raise ServiceError("--from and --to are the same store")
    if not is_url(from_):
        from pathlib import Path

        if not Path(from_).is_file():
            raise ServiceError(f"--from: no database at {from_}")
    src = open_store(from_, readonly=True)
    try:
        if game:
            from events.service import GameService

            source = GameService(src)
            game = [source.resolve(g) for g in game]
        dst = open_store(to, durability=ctx.find_root().obj.durability)
        try:
            report = copy_games(src, dst, game or None)
        finally:
            dst.close()
    finally:
        src.close()
    if json:
        emit_json({"copied": report.copied, "extended": report.extended,
                   "skipped": report.skipped, "events": report.events, "side_rows": report.side})
    else:
        plain(
            f"{plural(len(report.copied), 'game')} copied, {len(report.extended)} completed, "
            f"{len(report.skipped)} already there; {plural(report.events, 'event')} written, "
            f"{report.side} signed files, notes and tags; every chain verified on both sides"
        )


def watch(
    ctx: typer.Context,
    game_id: Game,
    as_: Annotated[
        Optional[str], typer.Option("--as", help="What this player may see (default: a spectator's view)")
    ] = None,
    last: Annotated[int, typer.Option(help="Show this many past events first")] = 5,
    for_: Annotated[Optional[float], typer.Option("--for", help="Stop after this many seconds")] = None,
    json: Json = False,
) -> None:
    """Follow a game as other processes append to it, until it ends.

    PostgreSQL: LISTEN/NOTIFY; SQLite: polling the head.  Each new event is
    folded onto the last state, never the whole log again.  Hidden cards stay
    hidden: a spectator's view, or --as a player's.

    \b
    Example:
      citylog watch last --as alice --for 60
    """
    if last < 0:
        raise ServiceError("--last must be 0 or more")
    if for_ is not None and for_ < 0:
        raise ServiceError("--for must be 0 or more seconds")
    game_id = resolve_game(ctx, game_id, readonly=True)
    svc = service(ctx, readonly=True)
    loaded = svc.load(game_id)
    game, players = loaded.game, loaded.players
    seat = loaded.seat(as_) if as_ is not None else None

    def show(upto: int, start: int) -> None:
        for r, e in zip(loaded.records[start:upto], loaded.events[start:upto], strict=True):
            text = game.describe(game.redact(e, seat), players)
            if json:
                emit_json({"game_id": game_id, "seq": r.seq, "type": r.type, "hash": r.hash, "text": text})
            else:
                plain(f"{r.seq:>5}  {text}")

    show(loaded.version, max(0, loaded.version - last))
    deadline = None if for_ is None else time.monotonic() + for_
    while game.to_act(loaded.state):
        left = 5.0 if deadline is None else deadline - time.monotonic()
        if left <= 0:
            return
        seq = loaded.version
        if svc.store.wait(game_id, seq, min(left, 5.0)) > seq:
            loaded = svc.load(game_id)  # the cached fold plus the new events only
            show(loaded.version, seq)
    if not json:
        result = game.result(loaded.state)
        scores = f": scores {', '.join(map(str, result.scores))}" if result is not None else ""
        plain(f"game over{scores}")


def register(app: typer.Typer) -> None:
    app.command("copy")(guarded(copy))
    app.command("watch")(guarded(watch))
