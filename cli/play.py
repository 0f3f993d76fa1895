"""Playing: ``play`` (interactive), ``move`` (one command; ``--out`` for email)
and ``autoplay`` (bots finish the game).  What a command wrote is printed by
:func:`cli.report.report`; applying a move file received by email is
``cli/mail.py``'s ``apply``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from cli.context import game_id as resolve_game, game_or_file, service
from cli.errors import BAD_INPUT, fail, guarded, reads_untrusted_logs
from cli.keys import key_for
from cli.movefile import write_move_file
from cli.output import emit_json, say, say_markup
from cli.prompt import Menu, Session, table
from cli.report import report
from cli.results import plural, result_lines, verdict
from cli.options import Game, GameOrFile, Json
from core.engine import CHANCE, RulesError, checked_decide
from events.service import GameService, ServiceError, parse_command
from replay.sources import fold_log, open_log

ReplaceAnswered = Annotated[bool, typer.Option(
    "--replace-answered",
    help="Sign a different move at a position you signed one at already: the host may then apply "
         "either of the two, both signed by you [CL-S17]")]


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
    replace_answered: ReplaceAnswered = False,
    json: Json = False,
) -> None:
    """Make one move, non-interactively (scripts, email).

    With -o/--out, several commands go into one move file for email instead.

    \b
    Example:
      citylog move last --as alice 'build R F5'
      citylog move GAME-seq4-alice.jsonl --as alice 'split RC PL IC' -o .
    """
    ref, out = ref_or_received(ctx, ref, as_, out)
    svc = service(ctx)
    command = commands[0] if commands else None
    if (command is None) == (chance is None):
        raise fail("give a COMMAND with --as PLAYER, or a --chance outcome")
    if out is not None:
        if as_ is None or not commands:
            raise fail("a move file needs --as PLAYER and a COMMAND")
        _write_move_file(ctx, svc, ref, as_, commands, out, key, force, json, replace_answered)
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


def ref_or_received(ctx: typer.Context, ref: str, player: str | None, out: str | None) -> tuple[str, str | None]:
    """A file, a game of the store, or else (a player of a game by real email,
    issue 24) the newest view of game ``ref`` that the mail agent received for
    ``player``: then the move file goes to the agent's queue unless --out says
    otherwise ('citylog mail sync' sends it)."""
    try:
        return game_or_file(ctx, ref), out
    except ServiceError:
        if player is None:
            raise
        from cli.context import state
        from cli.post.config import home_of
        from cli.post.ledger import received_view

        found = received_view(home_of(state(ctx).db), ref, player)
        if found is None:
            raise
        view, queue = found
        return str(view), out if out is not None else str(queue)


def _write_move_file(
    ctx: typer.Context, svc: GameService, ref: str, player: str, texts: list[str], out: str | Path,
    key: Path | None, force: bool, json: bool, replace: bool = False,
) -> None:
    """The moves against the latest position of a game id or an exported (view) file;
    signed with the player's key in a play-by-email game (cli/movefile.py), never a
    second, different move at a position she signed one at unless ``replace`` [CL-S17]."""
    from cli.keys import keys_dir

    log = open_log(svc, ref, player)  # the player's view, from the store or their file
    written = write_move_file(log, ref, player, texts, out, lambda: key_for(ctx, player, key), force,
                              answered=keys_dir(ctx), replace=replace)
    if json:
        emit_json({"file": str(written.path), "game_id": written.game_id, "player": player, "seq": written.seq})
    else:
        shown = "; ".join(written.commands)
        say(f"wrote {written.path}: {player} '{shown}' against seq {written.seq}" + (" (signed)" if written.signed else ""))


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
    say(f"{plural(len(written), 'event')} played; seq {loaded.version}")
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
    replace_answered: ReplaceAnswered = False,
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
    game_id, out = ref_or_received(ctx, game_id, as_, out)
    svc = service(ctx)
    if Path(game_id).is_file():
        if as_ is None or out is None:
            raise fail("playing from a file needs --as PLAYER and --out DIR")
        _play_file(ctx, svc, game_id, as_, out, key, replace_answered)
        return
    Session(svc, game_id, as_, _prompt).run()


def _refuse_answered(ctx: typer.Context, log: Any, game: Any, states: list[Any], seat: int, player: str,
                     key: Path | None) -> None:
    """[CL-S17] Before any choice: a position she signed a move at already, or whose
    decision a move of hers not yet applied answers, is refused (one line, exit 2),
    not found out at the end of her choosing."""
    from cli import answered
    from cli.keys import keys_dir
    from events.signing import public_hex

    game_id, seq = log.header.game_id or "", log.lines[-1].seq if log.lines else 0
    genesis = answered.view_genesis(log)  # a re-headed view is refused before any choice
    try:
        public = public_hex(key_for(ctx, player, key))
    except ServiceError:
        return  # no key here: nothing can be signed, and the writer checks again when it signs
    found = answered.answers_at(keys_dir(ctx), game_id, player, public, seq, genesis)
    if found:
        raise ServiceError(answered.refused_at(game_id, player, found[0], "nothing to play on this view"))
    pending = answered.still_pending(keys_dir(ctx), game_id, player, public, log, game, states, seat)
    if pending is not None:
        raise ServiceError(answered.pending_refusal(game_id, player, pending, seq, "nothing to play on this view"))


def _play_file(ctx: typer.Context, svc: GameService, ref: str, player: str, out: str, key: Path | None,
               replace: bool = False) -> None:
    """Choose moves on a view file; write them as one move file when the seat's turn is
    done or its next decision hangs on what the view does not show (issue 26).  A
    failed ``send`` keeps the choices: one line says why, ``send [DIR]`` tries again."""
    log = open_log(svc, ref, player)  # the player's own view
    game, _, states = fold_log(log)
    seat = log.header.definition.players.index(player)
    state = game.view(states[-1], seat)
    seq = log.lines[-1].seq if log.lines else 0
    if log.header.definition.host_key and not replace:
        _refuse_answered(ctx, log, game, states, seat, player, key)
    chosen: list[str] = []
    menu: Menu | None = None
    failed = False
    tried = False
    crossed: str | None = None
    # what a chosen command left unseen, read before the view's counting [GN-1] fills it in:
    # that counting assumes the host's automatic steps ran on the real cards, which a
    # command decided on the view could not do (a card taken face down into construction,
    # whose discard [CC-2] hangs on that card), so its guess is no ground to go on choosing

    def leave(why: str) -> None:
        if not chosen:
            say(f"{why}nothing sent; {player} is to act at seq {seq} of {ref}")
            return
        picked = " ".join(shlex.quote(c) for c in chosen)
        say(f"{why}nothing sent; {player}'s choices ({'; '.join(chosen)}) are not written: "
            f"citylog move {shlex.quote(ref)} --as {player} {picked} --out {shlex.quote(out)} writes them")

    def send(where: str) -> bool:
        nonlocal failed
        try:
            _write_move_file(ctx, svc, ref, player, chosen, where, key, False, False, replace)
        except (ServiceError, RulesError, OSError) as exc:
            failed = True
            say(f"not sent: {exc}; your choices are kept ({'; '.join(chosen)}): "
                f"'send' tries again, 'send DIR' writes elsewhere, 'q' leaves")
            return False
        failed = False
        return True

    while True:
        done = seat not in game.to_act(state)
        boundary = None if done or not chosen else crossed or game.unseen(state, seat)
        if done or boundary is not None:
            if not chosen:
                say(f"{player} has nothing to do in this view")
                return
            if not tried:
                tried = True
                if boundary is not None:
                    say(f"that is all {player} can decide now: you will see {boundary} in the next view")
                if send(out):
                    return
            menu = None
        elif menu is None:
            table(game, state, seat)
            menu = Menu.of_state(game, state, seat)
            menu.page(hint="'send' writes the move file now, 'q' quits without one; ? for help")
        label = f"{player}> " if menu is None or menu.step is None else \
            f"{player} ({game.syntax.second_step or 'variant'})> "
        answer = _prompt(label)
        if answer is None or answer.strip() in ("q", "quit", "exit"):
            leave("end of input: " if answer is None else "")
            if failed:
                raise typer.Exit(BAD_INPUT)
            return
        answer = " ".join(answer.split())
        word, _, rest = answer.partition(" ")
        if word == "send":
            if chosen and send(rest or out):
                return
            if not chosen:
                say("nothing chosen yet: nothing to send")
            continue
        if menu is None:  # the turn is over and the file not written: only send or quit
            say(f"{player}'s choices are made ({'; '.join(chosen)}): 'send [DIR]' writes them, 'q' leaves")
            continue
        if menu.step is not None and answer == "back":
            menu.close_step()
            menu.page(again=True)
            continue
        if not answer and menu.step is None:
            continue
        if answer in ("?", "help"):
            if menu.step is not None:
                menu.step.help(player, False, ())
            else:
                menu.help(player, False, [("board", "the table again"), ("send [DIR]", "write the move file now"),
                                          ("quit", "leave without a move file")])
            continue
        if answer in ("board", "more"):
            if answer == "board":
                menu.close_step()
                table(game, state, seat)
            menu.active.page(again=answer == "board")
            continue
        answering = menu.active
        cmd = answering.choose(answer, lambda text: game.parse_command(state, seat, text))
        if cmd is None:
            continue
        try:
            events = checked_decide(game, state, seat, cmd)
        except (ServiceError, RulesError) as exc:
            answering.refuse(str(exc), answer)
            continue
        for e in events:
            applied = game.apply(state, e)
            crossed = crossed or game.unseen(applied, seat)
            state = game.view(applied, seat)
        chosen.append(game.format_command(cmd))
        say(f"  chosen: {chosen[-1]}")
        menu = None


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
