"""``citylog hint``: the search bot's choice for a player, from that player's view only."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.context import game_or_file, service
from cli.errors import guarded
from cli.output import emit_json, say
from cli.options import GameOrFile, Json
from replay.hint import as_data, describe, hint as compute_hint
from replay.sources import open_log


def hint(
    ctx: typer.Context,
    ref: GameOrFile,
    as_: Annotated[str, typer.Option("--as", help="The player to advise (their view only)")],
    budget: Annotated[
        Optional[int], typer.Option(min=1, help="Playouts to search (default: what the mcts bot searches in this game)")
    ] = None,
    seed: Annotated[str, typer.Option(help="Vary the search's stream (default: derived from the view)")] = "",
    json: Json = False,
) -> None:
    """What would a good player do here?

    Information-set MCTS from the player's view, never the true state.

    \b
    Example:
      citylog hint last --as alice --budget 500
    """
    ref = game_or_file(ctx, ref)
    log = open_log(service(ctx), ref, as_)
    h = compute_hint(log, budget or 0, seed)
    if json:  # "value": the estimated win chance, 0–1 (replay.hint.VALUE_LABEL)
        emit_json({"game_id": log.header.game_id, **as_data(h)})
        return
    for line in describe(h):
        say(line)


def register(app: typer.Typer) -> None:
    app.command("hint")(guarded(hint))
