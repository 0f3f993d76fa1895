"""The library: ``delete``, ``tag``, ``untag`` (``list --tag`` is in cli.games)."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from cli.context import game_id as resolve_game
from cli.context import service
from cli.errors import fail, guarded
from cli.output import emit_json, say
from cli.options import Game, Json


def delete(
    ctx: typer.Context,
    games: Annotated[Optional[list[str]], typer.Argument(metavar="GAME...", help="The games to delete")] = None,
    tag_: Annotated[Optional[str], typer.Option("--tag", help="Also every game with this tag (e.g. sim)")] = None,
    with_forks: Annotated[
        bool, typer.Option("--with-forks", help="Also delete the games forked from them (and their forks)")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation")] = False,
    json: Json = False,
) -> None:
    """Delete games from the database, with their notes and tags.

    Events, notes, tags and signed files go; nothing else changes.  A game
    that has forks is refused unless --with-forks (no fork is left without
    its parent).  Asks first unless --yes; export a game first to keep it.

    \b
    Example:
      citylog delete 4e41 --yes
      citylog delete --tag sim --yes
    """
    from events.store import GameFilter, check_tag

    svc = service(ctx, readonly=True)  # nothing is opened for writing (or created) until confirmed
    ids = list(dict.fromkeys(svc.resolve(g) for g in games or ()))
    if tag_ is not None:
        check_tag(tag_)
        ids += [r.id for r, _ in svc.store.list_games_with_counts(GameFilter(tag=tag_)) if r.id not in ids]
    elif not ids:
        raise fail("which games? give GAME... or --tag TAG")
    if not ids:
        say(f"no games tagged {tag_}")
        return
    plan: list[str] = []
    for gid in ids:  # a parent of forks is refused before anything is asked or deleted
        plan += [g for g in svc.deletion(gid, with_forks) if g not in plan]
    if not yes:
        if not _interactive():
            raise fail(f"delete {len(plan)} game{'s' if len(plan) != 1 else ''} ({', '.join(plan[:10])}): "
                       "confirm with --yes (no terminal to ask at)")
        if not typer.confirm(f"delete {len(plan)} game{'s' if len(plan) != 1 else ''}: {', '.join(plan)}?"):
            raise fail("nothing deleted", 1)
    deleted: list[str] = []
    svc = service(ctx)
    with svc.store.transaction():  # all or nothing
        for gid in ids:
            if gid not in deleted:
                deleted += svc.delete(gid, with_forks=with_forks)
    for gid in deleted:
        emit_json({"game_id": gid, "deleted": True}) if json else say(f"deleted {gid}")


def _interactive() -> bool:
    """Whether a person can be asked (stdin is a terminal)."""
    try:
        return sys.stdin.isatty()
    except ValueError:  # a closed stdin
        return False


def tag(
    ctx: typer.Context,
    game: Game,
    names: Annotated[list[str], typer.Argument(metavar="TAG...", help="Letters, digits, _ . : + -")],
    json: Json = False,
) -> None:
    """Label a game with tags, to find it with 'list --tag'.

    Tags are kept outside the hash chain: the game is unchanged.  Games
    tagged sim (simulate's) are hidden from 'list' unless asked for.

    \b
    Example:
      citylog tag last club final
      citylog list --tag club
    """
    gid = resolve_game(ctx, game, readonly=True)
    store = service(ctx).store
    added = service(ctx).tag(gid, names)
    now = list(store.tags([gid]).get(gid, ()))
    if json:
        emit_json({"game_id": gid, "tags": now, "added": added})
    else:
        say(f"{gid}: tags {', '.join(now)}" + ("" if added else " (nothing new)"))


def untag(
    ctx: typer.Context,
    game: Game,
    names: Annotated[list[str], typer.Argument(metavar="TAG...")],
    json: Json = False,
) -> None:
    """Take tags off a game.

    \b
    Example:
      citylog untag 4e41 sim
    """
    gid = resolve_game(ctx, game, readonly=True)
    store = service(ctx).store
    removed = service(ctx).untag(gid, names)
    now = list(store.tags([gid]).get(gid, ()))
    if json:
        emit_json({"game_id": gid, "tags": now, "removed": removed})
    else:
        missing = [n for n in names if n not in removed]
        left = ", ".join(now) if now else "none"
        say(f"{gid}: tags {left}" + (f" (it had no {', '.join(missing)})" if missing else ""))


def register(app: typer.Typer) -> None:
    app.command("delete")(guarded(delete))
    app.command("tag")(guarded(tag))
    app.command("untag")(guarded(untag))
