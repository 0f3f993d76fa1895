"""Playing: ``play`` (interactive), ``move`` (one command; ``--out`` for email),
``autoplay`` and ``apply`` (a move file received by email)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import msgspec
import typer

from cli.context import service
from cli.errors import BAD_INPUT, fail, guarded, reads_untrusted_logs
from cli.games import seat_names
from cli.inputs import read_small_text
from cli.output import emit_json, say, say_markup
from core.engine import CHANCE, IllegalCommand, RulesError, checked_decide
from core.markup import escape
from events.service import GameService, Loaded, ServiceError, parse_command
from replay.sources import fold_log, open_log, read_path

MOVE_FORMAT = "citylog-move/1"
MAX_MOVE_FILE = 64 << 10
"""A move file is one short line; a longer one (over 64 KiB) is refused unread."""


class MoveFile(msgspec.Struct, frozen=True):
    """A move sent by email: the command and the position it was made against."""

    format: str
    game_id: str
    player: str
    command: str
    seq: int
    hash: str


def _report(svc: GameService, gid: str, written: list[Any], json: bool, seat: int | None = None) -> None:
    """The events just written: as ``seat`` may see them, or all of them (the host's
    ``apply``, ``seat`` None; its output is for the host, not for a player)."""
    loaded = svc.load(gid)
    if json:
        emit_json(
            {
                "game_id": gid,
                "seq": loaded.version,
                "events": [w.seq for w in written],
                "to_act": seat_names(loaded.players, loaded.game.to_act(loaded.state)),
                "over": loaded.game.result(loaded.state) is not None,
            }
        )
        return
    by_seq = {r.seq: e for r, e in zip(loaded.records, loaded.events, strict=True)}
    game = loaded.game
    for w in written:
        e = by_seq[w.seq] if seat is None or seat == CHANCE else game.redact(by_seq[w.seq], seat)
        say(f"{w.seq:>5}  {game.describe(e, loaded.players)}")


def move(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME_ID|FILE")],
    command: Annotated[Optional[str], typer.Argument(help="e.g. 'build R 0,1'")] = None,
    as_: Annotated[Optional[str], typer.Option("--as", help="The player making the move")] = None,
    chance: Annotated[Optional[str], typer.Option(help="A chance outcome, for --table games")] = None,
    out: Annotated[Optional[Path], typer.Option(help="Write a move file for email instead of playing")] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Make one move, non-interactively (scripts, email)."""
    svc = service(ctx)
    if (command is None) == (chance is None):
        raise fail("give a COMMAND with --as PLAYER, or a --chance outcome")
    if out is not None:
        if as_ is None or command is None:
            raise fail("a move file needs --as PLAYER and a COMMAND")
        _write_move_file(svc, ref, as_, command, out, json)
        return
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
        _report(svc, ref, written, json, seat)
        return
    _report(svc, ref, written, json)


def _write_move_file(svc: GameService, ref: str, player: str, text: str, out: Path, json: bool) -> None:
    """The move against the latest position of a game id or an exported (view) file."""
    log = open_log(svc, ref, player)  # the player's view, from the store or their file
    game, events, states = fold_log(log, ref)
    players = log.header.definition.players
    gid = log.header.game_id or ""
    seq = log.lines[-1].seq if log.lines else 0
    head = log.lines[-1].hash if log.lines else ""
    seat = players.index(player)
    state = game.view(states[-1], seat)
    try:
        cmd = game.parse_command(state, seat, text)
    except RulesError as exc:
        raise ServiceError(str(exc)) from None
    checked_decide(game, state, seat, cmd)  # from the view: the same verdict as the host's
    move_file = MoveFile(MOVE_FORMAT, gid, player, game.format_command(cmd), seq, head)
    out.write_bytes(msgspec.json.encode(move_file) + b"\n")
    if json:
        emit_json({"move_file": str(out), "seq": seq})
    else:
        say(f"wrote {out}: {player} '{move_file.command}' against seq {seq}")


def apply_move(
    ctx: typer.Context,
    move_file: Annotated[Path, typer.Argument(metavar="MOVE_FILE")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Apply a move file received by email; refuses a move made against a stale position."""
    try:
        mv = msgspec.json.decode(read_small_text(move_file, MAX_MOVE_FILE), type=MoveFile)
    except (msgspec.DecodeError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
        raise fail(f"{move_file}: not a citylog move file ({why})") from None
    if mv.format != MOVE_FORMAT:
        raise fail(f"{move_file}: unknown move format {mv.format!r}")
    svc = service(ctx)
    loaded = svc.load(mv.game_id)
    seat = loaded.seat(mv.player)
    cmd = parse_command(loaded, seat, mv.command)
    written = svc.submit(mv.game_id, seat, cmd, expected_version=mv.seq, expected_hash=mv.hash)
    if not json:
        say(f"applied {mv.player}'s move; the events, as the host sees them (hidden cards shown):")
    _report(svc, mv.game_id, written, json)


def autoplay(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument()],
    bots: Annotated[str, typer.Option(help="The policy for every remaining decision")] = "greedy",
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Bots play every remaining decision to the end."""
    svc = service(ctx)
    written = svc.autoplay(game_id, bots)
    loaded = svc.load(game_id)
    result = loaded.game.result(loaded.state)
    if json:
        emit_json(
            {
                "game_id": game_id,
                "events": loaded.version,
                "scores": result.scores if result else None,
                "winners": [loaded.players[w] for w in result.winners] if result else None,
            }
        )
        return
    say(f"{len(written)} events played; seq {loaded.version}")
    if result:
        say(", ".join(f"{loaded.players[i]} {s}" for i, s in enumerate(result.scores)))


def play(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument()],
    as_: Annotated[Optional[str], typer.Option("--as", help="Play this seat only (others wait)")] = None,
) -> None:
    """Interactive play at a prompt: the board and numbered legal commands."""
    svc = service(ctx)
    while True:
        loaded = svc.load(game_id)
        game, state = loaded.game, loaded.state
        actors = game.to_act(state)
        if not actors:
            viewer = loaded.seat(as_) if as_ is not None else None
            say_markup(game.render(state if viewer is None else game.view(state, viewer), viewer))
            result = game.result(state)
            if result:
                say("game over: " + ", ".join(f"{loaded.players[i]} {s}" for i, s in enumerate(result.scores)))
            return
        seat = _pick_seat(loaded, actors, as_)
        if seat is None:
            say(f"waiting for {', '.join(seat_names(loaded.players, actors))}; come back later")
            return
        say_markup(game.render(game.view(state, seat) if seat != CHANCE else state, None if seat == CHANCE else seat))
        options = [] if seat == CHANCE else list(game.legal(state, seat))
        who = "chance (enter the draw)" if seat == CHANCE else loaded.players[seat]
        for i, o in enumerate(options[:60], start=1):
            say(f"  {i:>3}. {game.format_command(o)}")
        if len(options) > 60:
            say(f"  … {len(options) - 60} more; type a command")
        answer = _prompt(f"{who}> ")
        if answer is None or answer.strip() in ("q", "quit", "exit"):
            return
        answer = answer.strip()
        if not answer:
            continue
        try:
            if answer.isdigit() and options:
                index = int(answer) - 1
                if not 0 <= index < len(options):
                    raise ServiceError(f"choose 1–{len(options)}")
                cmd = options[index]
            else:
                cmd = parse_command(loaded, seat, answer)
            written = svc.submit(game_id, seat, cmd, expected_version=loaded.version)
            _report(svc, game_id, written, False, seat)
        except (ServiceError, RulesError) as exc:
            say_markup(f"[red]refused:[/] {escape(str(exc))}")


def _pick_seat(loaded: Loaded, actors: tuple[int, ...], as_: str | None) -> int | None:
    if actors == (CHANCE,):
        return CHANCE if loaded.record.table_game else None
    if as_ is None:
        return actors[0]
    seat = loaded.seat(as_)
    return seat if seat in actors else None


def _prompt(text: str) -> str | None:
    sys.stdout.write(text)
    sys.stdout.flush()
    line = sys.stdin.readline()
    return None if line == "" else line


def register(app: typer.Typer) -> None:
    app.command("move")(guarded(reads_untrusted_logs(move)))
    app.command("apply")(guarded(apply_move))
    app.command("autoplay")(guarded(autoplay))
    app.command("play")(guarded(play))


__all__ = ["BAD_INPUT", "register"]
