"""Logs in and out: ``export``, ``import``, ``fork``."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.context import service
from cli.errors import guarded
from cli.games import parse_bots
from cli.output import emit_json, say
from replay import logfile
from replay.sources import export as export_log
from replay.sources import import_log, read_path


def export(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument()],
    as_: Annotated[Optional[str], typer.Option("--as", help="Export this player's view only")] = None,
    out: Annotated[Optional[Path], typer.Option("-o", "--out", help="The file (default: stdout)")] = None,
) -> None:
    """The log as JSON Lines: a header, then one event per line with its hash."""
    log = export_log(service(ctx), game_id, as_)
    buffer = io.StringIO()
    logfile.write(log, buffer)
    if out is None:
        sys.stdout.write(buffer.getvalue())
    else:
        out.write_text(buffer.getvalue(), encoding="utf-8")
        say(f"wrote {out}: {len(log.lines)} events" + (f", {as_}'s view" if as_ else ""))


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE")],
    bots: Annotated[
        Optional[str], typer.Option(help="POLICY for every seat, or SEAT=POLICY,… (never taken from the file)")
    ] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Verify a log file, then store it as a new game (nothing is stored if it fails)."""
    log = read_path(file)
    gid = import_log(service(ctx), log, parse_bots(bots, list(log.header.definition.players)))
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
