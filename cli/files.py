"""Logs in and out: ``export``, ``import``, ``fork``."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.context import game_id as resolve_game
from cli.context import game_or_file, service
from cli.errors import fail, guarded
from cli.games import parse_bots
from cli.mail import export_bytes
from cli.output import clean, emit_json, say, write_file, write_text
from core.words import plural
from replay import logfile
from replay.sources import export_record, import_log, read_with_notes


def export(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME|FILE")],
    as_: Annotated[Optional[str], typer.Option("--as", help="Export this player's view only")] = None,
    out: Annotated[Optional[Path], typer.Option("-o", "--out", help="The file (default: stdout)")] = None,
    format: Annotated[
        str, typer.Option("--format", help="jsonl (default), text (a readable record), html (a replay page)")
    ] = "jsonl",
    key: Annotated[Optional[Path], typer.Option(help="The host's key (play by email: seals the export)")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file")] = False,
    json: Annotated[bool, typer.Option("--json", help="With -o: print what was written as JSON")] = False,
) -> None:
    """Export a game: JSON Lines, a text record or an HTML replay.

    JSON Lines: a header, then one event per line with its hash.  A log file
    or record (a player's view file too) converts to another format as it is.

    \b
    Example:
      citylog export last --as alice -o alice.jsonl
      citylog export last --format html -o game.html
    """
    game_id = game_or_file(ctx, game_id, readonly=True)
    svc = service(ctx, readonly=True)
    if Path(game_id).is_file():
        if as_ is not None:
            raise fail("--as needs a game id; a file exports as the view it holds")
        from replay import record as text_record
        from replay.html import page

        log, notes = read_with_notes(Path(game_id))
        if format == "jsonl":
            buffer = io.StringIO()
            logfile.write(log, buffer)
            text = buffer.getvalue()
        elif format == "text":
            text = text_record.write(log, notes)
        elif format == "html":
            text = page(log, notes)
        else:
            raise fail(f"--format is jsonl, text or html, not {format!r}")
        # said as for a stored game: what was written, and whose view a view file is
        count = {"jsonl": plural(len(log.lines), "event"), "text": "text record", "html": "replay page"}[format]
        count += f", {log.header.view}'s view" if log.header.view is not None else ""
    elif format == "jsonl":
        data, n = export_bytes(ctx, svc, game_id, as_, key)  # sealed by the host in a PBEM game
        text, count = data.decode(), plural(n, "event")
    elif format == "text":
        if as_ is not None:
            raise fail("a text record is the referee's whole game (it is re-decided on import); "
                       "export a player's view with --format jsonl or html")
        text = export_record(svc, game_id)
        count = "text record"
    elif format == "html":
        from replay.html import export_html

        text = export_html(svc, game_id, as_)
        count = "replay page"
    else:
        raise fail(f"--format is jsonl, text or html, not {format!r}")
    if out is None:
        write_text(text)
    else:
        write_file(out, text.encode(), force)
        if json:
            source = log.header.game_id if Path(game_id).is_file() else game_id
            emit_json({"file": str(out), "format": format, "game_id": source, "player": as_})
        else:
            say(f"wrote {out}: {count}" + (f", {as_}'s view" if as_ else ""))


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE")],
    bots: Annotated[
        Optional[str], typer.Option(help="POLICY for every seat, or SEAT=POLICY,… (never taken from the file)")
    ] = None,
    again: Annotated[
        bool, typer.Option("--again", help="Store a second copy of a log this database already holds")
    ] = False,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Verify a log file or text record, then store it as a new game.

    Nothing is stored if it fails.  A text record is re-decided from its first
    line.  A log a stored game already holds (the same definition and events)
    is refused, naming that game (exit 2); --again stores a second copy.

    \b
    Example:
      citylog import game.jsonl --bots bob=greedy
    """
    log, notes = read_with_notes(file)
    gid = import_log(service(ctx), log, notes, parse_bots(bots, list(log.header.definition.players)), again=again)
    emit_json({"game_id": gid}) if json else say(gid)


def fork(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME")],
    at: Annotated[int, typer.Option(help="Keep events 1..SEQ")],
    seed: Annotated[Optional[str], typer.Option(help="A new seed for the chance after SEQ")] = None,
    as_: Annotated[
        Optional[list[str]],
        typer.Option("--as", help="Take over this player's seat from SEQ on (its bot stops; repeatable)"),
    ] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """A new game holding events 1..SEQ of GAME: what if?

    The fork records its parent and fork point (see 'citylog tree').  The
    seats keep their bots, but for each --as PLAYER: that seat is yours from
    SEQ on ("continue from here", [GL-3]); without --as a game of bots
    replays to its end at once.

    \b
    Example:
      citylog fork last --at 120 --seed other
      citylog fork last --at 40 --as p2      # then: citylog play FORK --as p2
    """
    game_id = resolve_game(ctx, game_id)
    svc = service(ctx)
    seats: list[int] = []
    if as_:
        parent = svc.load(game_id)
        seats = [parent.seat(who) for who in as_]
    gid = svc.fork(game_id, at, seed, take_over=seats)
    loaded = svc.load(gid)
    to_act = [loaded.players[a] for a in loaded.game.to_act(loaded.state) if 0 <= a < len(loaded.players)]
    if json:
        emit_json({"game_id": gid, "parent": game_id, "fork_at": at, "seq": loaded.version,
                   "take_over": list(as_ or ()), "to_act": to_act})
    else:
        yours = f"; {', '.join(as_)} from here: citylog play {gid} --as {as_[0]}" if as_ else ""
        say(gid)  # the id alone on stdout (F=$(citylog fork …)), as `new` prints it
        sys.stderr.write(clean(f"fork of {game_id} at seq {at}{yours}") + "\n")


def picture(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME|FILE")],
    at: Annotated[Optional[int], typer.Option(help="After event SEQ (default: the latest)")] = None,
    as_: Annotated[Optional[str], typer.Option("--as", help="As this player sees it")] = None,
    out: Annotated[Optional[Path], typer.Option("-o", "--out", help="The .svg file (default: stdout)")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file")] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Outline the squares 'citylog explain --at SEQ' names as evidence")
    ] = False,
    json: Annotated[bool, typer.Option("--json", help="With -o: print what was written as JSON")] = False,
) -> None:
    """The position as an SVG picture.

    Boards, cards, the last move marked, scores so far; --explain outlines
    the witnesses of the event at SEQ (the squares its explanation names).

    \b
    Example:
      citylog picture last --as alice -o board.svg
      citylog picture last --at 45 --explain -o why.svg
    """
    from replay.picture import picture as draw
    from replay.sources import open_log

    ref = game_or_file(ctx, ref)
    log = open_log(service(ctx), ref)
    svg = draw(log, at, as_, explain)
    if out is None:
        write_text(svg)
    else:
        write_file(out, svg.encode("utf-8"), force)
        if json:
            emit_json({"file": str(out), "format": "svg", "game_id": log.header.game_id, "player": as_})
        else:
            say(f"wrote {out}")


def register(app: typer.Typer) -> None:
    app.command("export")(guarded(export))
    app.command("import")(guarded(import_))
    app.command("fork")(guarded(fork))
    app.command("picture")(guarded(picture))
