"""Playing: ``play`` (interactive), ``move`` (one command; ``--out`` for email)
and ``autoplay`` (bots finish the game).  What a command wrote is printed by
:func:`cli.report.report`; applying a move file received by email is
``cli/mail.py``'s ``apply``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import msgspec
import typer

from cli.context import game_id as resolve_game, game_or_file, service
from cli.errors import BAD_INPUT, fail, guarded, reads_untrusted_logs
from cli.keys import key_for
from cli.output import emit_json, out_path, say, say_markup, write_file
from cli.prompt import Menu, Session
from cli.report import report
from cli.results import result_lines, verdict
from cli.options import Game, GameOrFile, Json
from events import statements
from events.signing import public_hex, sign
from events.statements import MOVE_FORMAT, MoveFile
from core.engine import CHANCE, IllegalCommand, RulesError, checked_decide
from events.service import GameService, ServiceError, parse_command
from replay.sources import fold_log, open_log

def move(
    ctx: typer.Context,
    ref: GameOrFile,
    commands: Annotated[
        Optional[list[str]], typer.Argument(metavar="COMMAND...", help="e.g. 'build R F5' (several: a move file)")
    ] = None,
    as_: Annotated[Optional[str], typer.Option("--as", help="The player making the move")] = None,
    chance: Annotated[Optional[str], typer.Option(help="A chance outcome, for --table games")] = None,
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="FILE", help="Write a (signed) move file for email: a file, or a directory"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="Your private key (default: the key named PLAYER)")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the move file")] = False,
    json: Json = False,
) -> None:
    """Make one move, non-interactively (scripts, email).

    With -o/--out, several commands go into one move file for email instead.

    \b
    Example:
      citylog move last --as alice 'build R F5'
      citylog move GAME-seq4-alice.jsonl --as alice 'split RC PL IC' -o .
    """
    ref = game_or_file(ctx, ref)
    svc = service(ctx)
    command = commands[0] if commands else None
    if (command is None) == (chance is None):
        raise fail("give a COMMAND with --as PLAYER, or a --chance outcome")
    if out is not None:
        if as_ is None or not commands:
            raise fail("a move file needs --as PLAYER and a COMMAND")
        _write_move_file(ctx, svc, ref, as_, commands, out, key, force, json)
        return
    if commands and len(commands) > 1:
        raise fail("several commands go into a move file (--out); here give one")
    loaded = svc.load(ref)
    if chance is not None:
        cmd = parse_command(loaded, CHANCE, chance)
        written = svc.submit(ref, CHANCE, cmd, expected_version=loaded.version)
    else:
        if as_ is None:
            raise fail("say who moves: --as PLAYER")
        seat = loaded.seat(as_)
        cmd = parse_command(loaded, seat, command or "")
        written = svc.submit(ref, seat, cmd, expected_version=loaded.version)
        report(svc, ref, written, json, seat)
        return
    report(svc, ref, written, json)


def _write_move_file(
    ctx: typer.Context, svc: GameService, ref: str, player: str, texts: list[str], out: str | Path,
    key: Path | None, force: bool, json: bool,
) -> None:
    """The moves against the latest position of a game id or an exported (view) file;
    signed with the player's key in a play-by-email game."""
    log = open_log(svc, ref, player)  # the player's view, from the store or their file
    game, events, states = fold_log(log, ref)
    players = log.header.definition.players
    gid = log.header.game_id or ""
    seq = log.lines[-1].seq if log.lines else 0
    head = log.lines[-1].hash if log.lines else ""
    seat = players.index(player)
    state = game.view(states[-1], seat)
    pbem = bool(log.header.definition.host_key)
    formatted: list[str] = []
    checking = True
    for i, text in enumerate(texts):
        try:
            cmd = game.parse_command(state, seat, text)
        except RulesError as exc:
            raise ServiceError(str(exc)) from None
        formatted.append(game.format_command(cmd))
        if not checking:
            continue
        where = f" (command {i + 1})" if len(texts) > 1 else ""
        try:  # from the view: the same verdict as the host's
            produced = checked_decide(game, state, seat, cmd)
        except IllegalCommand as exc:
            raise ServiceError(f"{exc}{where}") from None
        try:
            for e in produced:
                state = game.view(game.apply(state, e), seat)
        except Exception:  # noqa: BLE001 - a later command may hang on chance the view cannot see
            checking = False
    move_file = MoveFile(MOVE_FORMAT, gid, player, seq, head, tuple(formatted), "", "")
    if pbem:
        private = key_for(ctx, player, key)
        move_file = msgspec.structs.replace(move_file, public_key=public_hex(private))
        move_file = msgspec.structs.replace(
            move_file, signature=sign(private, "move", statements.body(move_file))
        )
    out = out_path(str(out), f"{gid}-seq{seq}-{player}-move.json")
    write_file(out, statements.encode(move_file), force)
    if json:
        emit_json({"file": str(out), "game_id": gid, "player": player, "seq": seq})
    else:
        shown = "; ".join(formatted)
        say(f"wrote {out}: {player} '{shown}' against seq {seq}" + (" (signed)" if pbem else ""))


def autoplay(
    ctx: typer.Context,
    game_id: Game,
    bots: Annotated[
        str, typer.Option(help="The policy for every remaining decision: greedy (default, as simulate) or random")
    ] = "greedy",
    json: Json = False,
) -> None:
    """Bots play every remaining decision to the end.

    \b
    Example:
      citylog autoplay last --bots random
    """
    game_id = resolve_game(ctx, game_id)
    svc = service(ctx)
    written = svc.autoplay(game_id, bots)
    loaded = svc.load(game_id)
    result = loaded.game.result(loaded.state)
    if json:
        emit_json(
            {
                "game_id": game_id,
                "seq": loaded.version,
                "events": loaded.version,
                "scores": result.scores if result else None,
                "winners": [loaded.players[w] for w in result.winners] if result else None,
                **({"verdict": verdict(loaded.game, loaded.players, loaded.state, result)} if result else {}),
            }
        )
        return
    say(f"{len(written)} events played; seq {loaded.version}")
    if result:
        for line in result_lines(loaded.game, loaded.players, loaded.state, result):
            say_markup(line)


def play(
    ctx: typer.Context,
    game_id: GameOrFile,
    as_: Annotated[Optional[str], typer.Option("--as", help="Play this seat only (others wait)")] = None,
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="DIR", help="FILE (a view by email): the directory for the signed move file"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="Your private key (default: the key named PLAYER)")] = None,
) -> None:
    """Play at a prompt: the board and numbered legal commands.

    ? lists the commands that apply now, with board, log, score, undo
    (against bots) and quit.

    On a view file received by email (--as PLAYER --out DIR): choose your
    moves, then they go into one signed move file.

    \b
    Example:
      citylog play last --as alice
    """
    game_id = game_or_file(ctx, game_id)
    svc = service(ctx)
    if Path(game_id).is_file():
        if as_ is None or out is None:
            raise fail("playing from a file needs --as PLAYER and --out DIR")
        _play_file(ctx, svc, game_id, as_, out, key)
        return
    Session(svc, game_id, as_, _prompt).run()


def _play_file(ctx: typer.Context, svc: GameService, ref: str, player: str, out: str, key: Path | None) -> None:
    """Choose moves on a view file; write them as one move file when the seat's turn is done."""
    log = open_log(svc, ref, player)  # the player's own view
    game, _, states = fold_log(log)
    seat = log.header.definition.players.index(player)
    state = game.view(states[-1], seat)
    chosen: list[str] = []
    menu: Menu | None = None
    while seat in game.to_act(state):
        if menu is None:
            say_markup(game.render(state, seat))
            menu = Menu(game, list(game.legal(state, seat)))
            menu.page(hint="'send' writes the move file now, 'q' quits without one; ? for help")
        answer = _prompt(f"{player}> ")
        if answer is None or answer.strip() in ("q", "quit", "exit"):
            return
        answer = " ".join(answer.split())
        if answer == "send":
            break
        if not answer:
            continue
        if answer in ("?", "help"):
            menu.help(player, False, [("board", "the table again"), ("send", "write the move file now"),
                                      ("quit", "leave without a move file")])
            continue
        if answer in ("board", "more"):
            if answer == "board":
                say_markup(game.render(state, seat))
            menu.page(again=answer == "board")
            continue
        cmd = menu.choose(answer, lambda text: game.parse_command(state, seat, text))
        if cmd is None:
            continue
        try:
            events = checked_decide(game, state, seat, cmd)
        except (ServiceError, RulesError) as exc:
            menu.refuse(str(exc), answer)
            continue
        for e in events:
            state = game.view(game.apply(state, e), seat)
        chosen.append(game.format_command(cmd))
        say(f"  chosen: {chosen[-1]}")
        menu = None
    if not chosen:
        say(f"{player} has nothing to do in this view")
        return
    _write_move_file(ctx, svc, ref, player, chosen, out, key, False, False)


def _prompt(text: str) -> str | None:
    sys.stdout.write(text)
    sys.stdout.flush()
    line = sys.stdin.readline()
    return None if line == "" else line


def register(app: typer.Typer) -> None:
    app.command("move")(guarded(reads_untrusted_logs(move)))
    app.command("autoplay")(guarded(autoplay))
    app.command("play")(guarded(play))


__all__ = ["BAD_INPUT", "register"]
