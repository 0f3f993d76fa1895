"""Notes and variations: ``note``, ``tree``."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.context import game_id as resolve_game, service
from cli.errors import guarded
from cli.output import emit_json, plain
from cli.options import Game, Json
from events.service import ServiceError
from replay.tree import Node, game_tree, render_tree


def note(
    ctx: typer.Context,
    game_id: Game,
    text: Annotated[Optional[str], typer.Argument(metavar="TEXT", help="The note (omit it to list the game's notes)")] = None,
    at: Annotated[Optional[int], typer.Option(help="The event's seq the note is about")] = None,
    json: Json = False,
) -> None:
    """Attach a note to a point of a game, or list its notes.

    Notes are kept outside the hash chain: the game is unchanged.  Without
    TEXT, list the game's notes.

    \b
    Example:
      citylog note last --at 42 "why not build here?"
      citylog note last
    """
    game_id = resolve_game(ctx, game_id)
    svc = service(ctx)
    if text is None:
        if at is not None:
            raise ServiceError("--at goes with a note's text; 'citylog note GAME' lists the notes")
        notes = svc.store.notes(game_id)
        if json:
            for n in notes:
                emit_json({"game_id": game_id, "seq": n.seq, "text": n.text})
        for n in notes if not json else ():
            plain(f"#{n.seq}  {n.text}")
        return
    if at is None:
        raise ServiceError("which event is the note about? give --at SEQ")
    svc.note(game_id, at, text)
    if json:
        emit_json({"game_id": game_id, "seq": at, "text": text})
    else:
        plain(f"noted at seq {at} of {game_id}")


def _as_json(node: Node) -> dict[str, object]:
    return {
        "game_id": node.id,
        "fork_at": node.fork_at,
        "seed": node.seed,
        "events": node.events,
        "summary": node.summary,
        "forks": [_as_json(c) for c in node.children],
    }


def tree(
    ctx: typer.Context,
    game_id: Game,
    json: Json = False,
) -> None:
    """A game with its forks as a tree.

    Where each branches, its seed, its result.

    \b
    Example:
      citylog tree last
    """
    game_id = resolve_game(ctx, game_id)
    root = game_tree(service(ctx), game_id)
    if json:
        emit_json(_as_json(root))
    else:
        for line in render_tree(root, mark=game_id):
            plain(line)


def register(app: typer.Typer) -> None:
    app.command("note")(guarded(note))
    app.command("tree")(guarded(tree))
