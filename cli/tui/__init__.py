"""``citylog tui [GAME_ID]``: library, board, replay, fork, diff, play and explain;
``citylog tui GAME|FILE --as P``: a view received by email, played into one move file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from cli.context import service, state
from cli.errors import fail, guarded

if TYPE_CHECKING:
    from cli.tui.received import Received


def tui(
    ctx: typer.Context,
    game_id: Annotated[Optional[str], typer.Argument(metavar="GAME", help="Open this game at once (with --as: or a view FILE)")] = None,
    as_: Annotated[
        Optional[str], typer.Option("--as", help="As this player: her view received by mail (or a view FILE) to play")
    ] = None,
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="DIR", help="A view: the directory for the signed move file "
                     "(default for a view received by mail: the agent's queue)"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="Your private key (default: the key named PLAYER)")] = None,
) -> None:
    """Browse, replay, fork, diff and play games in a terminal UI.

    With --as PLAYER on a game of play by real email (not in this store) or a
    view file: her view, and the move she chooses goes into one signed move
    file in the mail agent's queue ('citylog mail sync' sends it) or --out DIR.

    \b
    Example:
      citylog tui last
      citylog tui GAME --as alice
    """
    from cli.tui.app import CitylogApp

    svc = service(ctx)
    db = str(getattr(svc.store, "url", None) or getattr(svc.store, "path"))  # noqa: B009 - not every EventStore has .path; a URL keeps its password
    viewer = None
    received = None
    if as_ is None:
        if out is not None or key is not None:
            raise fail("--out and --key are for a view: say whose with --as PLAYER [CL-S11]")
        if game_id is not None:
            if Path(game_id).is_file():
                raise fail(f"{game_id} is a file: open a view with --as PLAYER (its player) [CL-S11]")
            game_id = svc.resolve(game_id)  # a one-line error for a missing game, before the screen
    elif game_id is None:
        raise fail("--as PLAYER needs a GAME or a view FILE [CL-S11]")
    else:
        game_id, received, viewer = _as_player(ctx, game_id, as_, out, key)
    CitylogApp(db, game_id, durability=state(ctx).durability, received=received, viewer=viewer).run()


def _as_player(
    ctx: typer.Context, ref: str, player: str, out: str | None, key: Path | None
) -> tuple[str | None, Received | None, int | None]:
    """(a game of the store, None, the player's seat) or (None, her view, None); every
    refusal before the screen: one line, exit 2 [CL-S11]."""
    from cli.context import keys_folder
    from cli.play import ref_or_received
    from cli.post.config import config_path, home_of
    from cli.tui.received import Received
    from events.service import ServiceError
    from replay.sources import open_log

    svc = service(ctx)
    try:
        found, where = ref_or_received(ctx, ref, player, out)
    except ServiceError as exc:
        raise ServiceError(f"{exc}, nor a view {player} received by mail ('citylog mail sync' fetches them) "
                           f"[CL-S11]") from None
    if not Path(found).is_file():  # a game of the store: opened as usual, in the player's view
        if out is not None or key is not None:
            raise fail(f"--out and --key are for a view; {found} is a game of this store [CL-S11]")
        try:
            return found, None, svc.load(found).seat(player)
        except ServiceError as exc:
            raise ServiceError(f"{exc} [CL-V3]") from None
    if where is None:
        raise fail("a view file needs --out DIR for its move file [CL-S11]")
    try:
        log = open_log(svc, found, player)  # her own view: another player's is refused
        received = Received(log, found, player, where, keys_folder(state(ctx).db), key, queue=out is None,
                            agent=config_path(home_of(state(ctx).db)).is_file())
        received.model()  # folds: a damaged view is refused here, not on the screen
    except ServiceError as exc:
        text = str(exc)
        raise ServiceError(text if "[" in text else f"{text} [CL-V3]") from None
    return None, received, None


def register(app: typer.Typer) -> None:
    app.command("tui")(guarded(tui))
