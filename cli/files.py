"""Logs in and out: ``export``, ``import``, ``fork``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.context import service
from cli.errors import guarded
from cli.mail import export_bytes
from cli.output import emit_json, say, write_file
from replay.sources import import_log, read_path


def export(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument()],
    as_: Annotated[Optional[str], typer.Option("--as", help="Export this player's view only")] = None,
    out: Annotated[Optional[Path], typer.Option("-o", "--out", help="The file (default: stdout)")] = None,
    key: Annotated[Optional[Path], typer.Option(help="The host's key (play by email: seals the export)")] = None,
    force: Annotated[bool, typer.Option(help="Overwrite the output file")] = False,
) -> None:
    """The log as JSON Lines: a header, then one event per line with its hash."""
    data, n = export_bytes(ctx, service(ctx), game_id, as_, key)
    if out is None:
        sys.stdout.write(data.decode())
    else:
        write_file(out, data, force)
        say(f"wrote {out}: {n} events" + (f", {as_}'s view" if as_ else ""))


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Verify a log file, then store it as a new game (nothing is stored if it fails)."""
    gid = import_log(service(ctx), read_path(file))
    emit_json({"game_id": gid}) if json else say(gid)


def fork(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument()],
    at: Annotated[int, typer.Option(help="Keep events 1..AT")],
    seed: Annotated[Optional[str], typer.Option(help="A new seed for the chance after AT")] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """A new game holding events 1..AT, recording its parent and fork point."""
    gid = service(ctx).fork(game_id, at, seed)
    if json:
        emit_json({"game_id": gid, "parent": game_id, "at": at})
    else:
        say(f"{gid}  (fork of {game_id} at seq {at})")


def register(app: typer.Typer) -> None:
    app.command("export")(guarded(export))
    app.command("import")(guarded(import_))
    app.command("fork")(guarded(fork))
