"""``citylog tui [GAME_ID]``: library, board, replay, fork, diff, play and explain."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from cli.context import service, state
from cli.errors import guarded


def tui(
    ctx: typer.Context,
    game_id: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Open this game at once")] = None,
) -> None:
    """Browse, replay, fork, diff and play games in a terminal UI.

    \b
    Example:
      citylog tui last
    """
    from cli.tui.app import CitylogApp

    svc = service(ctx)
    if game_id is not None:
        game_id = svc.resolve(game_id)  # a one-line error for a missing game, before the screen
    db = str(getattr(svc.store, "url", None) or getattr(svc.store, "path"))  # noqa: B009 - not every EventStore has .path; a URL keeps its password
    CitylogApp(db, game_id, durability=state(ctx).durability).run()


def register(app: typer.Typer) -> None:
    app.command("tui")(guarded(tui))
