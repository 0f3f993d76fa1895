"""Play by email: ``invite``, ``join``, ``apply``, ``outbox``, ``inbox``, ``legal``.

The host keeps the game and its key; each player keeps a key and their view.
Files are named for what they hold (``GAME-invite-PLAYER.json``,
``GAME-seqN-PLAYER.jsonl``, ``GAME-seqN-PLAYER-move.json``); ``-o`` never
overwrites without ``--force``.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import msgspec
import typer

from cli.context import game_id as resolve_game
from cli.context import game_or_file, service
from cli.errors import guarded
from cli.games import legal_commands
from cli.inputs import check_statement, read_small_text
from core.words import plural
from cli.keys import key_for, key_with_public
from cli.output import emit_json, out_path, safe_name, say, write_file
from cli.play import report
from events import statements
from events.envelope import genesis_hash
from events.limits import FieldTooLong
from events.service import GameService, ServiceError, StaleMove
from events.signing import KEY_HEX, is_public_hex, public_hex, same_hex, sign
from events.statements import (
    INVITE_FORMAT,
    CommittedJoin,
    HandOver,
    Invite,
    JoinFile,
    MoveFile,
    StatementError,
    Reveal,
    seat_secret,
    signed_committed_join,
)
from core.chance import COMMITTED_ENTROPY
from events.store import GameNotFound
from replay import logfile
from replay.bounded import FileRefused, entries, read_regular
from replay.sources import export as export_log
from replay.sources import fold_log, open_log


def sealer_for(ctx: typer.Context, svc: GameService, game_id: str, key: Path | None) -> Any:
    """The host's sealer for a play-by-email game (None for other games)."""
    record = svc.store.get_game(game_id)
    if not record.pbem:
        return None
    private = key_with_public(ctx, record.host_key, key)
    return lambda body: sign(private, "export", body)


def export_bytes(ctx: typer.Context, svc: GameService, game_id: str, player: str | None, key: Path | None) -> tuple[bytes, int]:
    log = export_log(svc, game_id, player, sealer_for(ctx, svc, game_id, key))
    buffer = io.StringIO()
    logfile.write(log, buffer)
    return buffer.getvalue().encode(), len(log.lines)


def invite(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME")],
    as_: Annotated[str, typer.Option("--as", help="The player invited")],
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="FILE", help="A file or a directory (default: GAME-invite-PLAYER.json)"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="The host's private key file")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file")] = False,
    json: Annotated[bool, typer.Option("--json")] = False,
    player_key: Annotated[
        Optional[str],
        typer.Option("--player-key", metavar="HEX",
                     help="The invited player's public key ('citylog key show NAME'): only that key can take the seat"),
    ] = None,
) -> None:
    """Write a signed invitation for a seat of a play-by-email game.

    The invitation holds the seat's one-time secret: send it to that player
    only (a join must prove it holds the secret).  With --player-key it works
    with that key alone.

    \b
    Example:
      citylog invite last --as alice -o alice-invite.json
    """
    game_id = resolve_game(ctx, game_id)
    svc = service(ctx)
    loaded = svc.load(game_id)
    rec = loaded.record
    if not rec.pbem:
        raise ServiceError(f"game {game_id} is not a play-by-email game (create it with --pbem)")
    if as_ not in loaded.players:
        raise ServiceError(f"no player {as_!r} in game {game_id} (players: {', '.join(loaded.players)})")
    seat = loaded.players.index(as_)
    bound = player_key or ""
    if bound and not is_public_hex(bound):
        raise ServiceError("--player-key: not a public key (64 lower-case hex digits, 'citylog key show NAME')")
    if rec.seed is None:
        raise ServiceError(f"game {game_id} has no seed; it cannot invite")
    private = key_with_public(ctx, rec.host_key, key)
    secret = seat_secret(rec.seed, rec.salt, rec.genesis, seat, bound)
    inv = Invite(INVITE_FORMAT, game_id, as_, rec.definition, bound, secret, "")
    inv = msgspec.structs.replace(inv, signature=sign(private, "invite", statements.body(inv)))
    path = out_path(out, f"{game_id}-invite-{as_}.json")
    write_file(path, statements.encode(inv), force)
    if json:
        emit_json({"file": str(path), "game_id": game_id, "player": as_, "player_key": bound})
    else:
        only = f" (only key {bound[:12]}… can take it)" if bound else " (send it to them alone: it holds the seat's secret)"
        say(f"wrote {path}: invitation for {as_} to game {game_id}{only}")


def join(
    ctx: typer.Context,
    invite_file: Annotated[Path, typer.Argument(metavar="INVITE")],
    as_: Annotated[str, typer.Option("--as", help="You")],
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="FILE", help="A file or a directory (default: GAME-join-PLAYER.json)"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="Your private key (default: the key named PLAYER)")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file")] = False,
    host_key: Annotated[
        Optional[str],
        typer.Option("--host-key", metavar="HEX", help="The host's public key (hex) as the host gave it to you: "
                     "an invitation from any other key is refused"),
    ] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Answer an invitation with your key and committed entropy.

    The join file carries your public key and a salted commitment to your
    entropy for the deal (derived from your key and the game: nothing to keep);
    send it to the host.  Once every seat has joined, send your reveal
    ('citylog reveal') [CL-S7].  The host's key is shown: compare it with the
    one the host gave you another way, or give it with --host-key, and an
    invitation signed by any other key is refused [CL-S8].

    \b
    Example:
      citylog join GAME-invite-alice.json --as alice --host-key 3b6a27bc…
    """
    pinned = None
    if host_key is not None:
        pinned = host_key.strip().lower()
        if not is_public_hex(pinned):
            raise ServiceError(f"--host-key {host_key!r} is not a public key (64 hex digits) [CL-S8]")
    inv = read_statement(invite_file)
    if not isinstance(inv, Invite):
        raise ServiceError(f"{invite_file}: not an invitation")
    if not inv.signed():
        raise ServiceError(f"{invite_file}: the invitation is not signed by the host key it names")
    theirs = inv.definition.host_key or ""
    if pinned is not None and not same_hex(theirs, pinned, KEY_HEX):
        # [CL-S8] the first invitation to arrive is not trusted for arriving first: anyone can
        # sign one with a key of their own, for any game id
        raise ServiceError(f"{invite_file} is signed by the host key {theirs[:12]}…, not the one you gave "
                           f"({pinned[:12]}…): not your host's invitation [CL-S8]")
    if inv.player != as_:
        raise ServiceError(f"{invite_file} invites {inv.player}, not {as_}")
    if inv.definition.table:
        raise ServiceError(f"{invite_file} invites you to a game whose chance the host types in (a table game): "
                           "a game by email draws it from the committed seed and the players' entropy")
    from cli.reveals import refuse_clear_entropy

    refuse_clear_entropy(inv.definition, str(invite_file))  # [CL-S15] no join shows its entropy
    private = key_for(ctx, as_, key)
    public = public_hex(private)
    if inv.player_key and not same_hex(inv.player_key, public, KEY_HEX):
        raise ServiceError(f"{invite_file} is for the key {inv.player_key[:12]}…, not yours ({public[:12]}…)")
    genesis = genesis_hash(inv.definition)
    # [CL-S7] only a commitment: the entropy (from her key and the genesis) is
    # revealed once every seat's commitment is chained ('citylog reveal')
    jf = signed_committed_join(private, inv.game_id, genesis, as_, inv.seat_secret)
    path = out_path(out, f"{inv.game_id}-join-{as_}.json")
    write_file(path, statements.encode(jf), force)
    if json:
        emit_json({"file": str(path), "game_id": inv.game_id, "player": as_, "public_key": public,
                   "host_key": theirs, "host_key_pinned": pinned is not None})
    else:
        check = "as you gave it" if pinned is not None else "compare it with the one your host gave you, or give --host-key"
        say(f"wrote {path}: {as_} joins game {inv.game_id} with key {public[:12]}…; send it to the host "
            f"(host key {theirs}: {check}) [CL-S8]")


def read_statement(path: Path) -> statements.Statement:
    data = read_small_text(path, 1 << 20).encode()  # missing, too long, not UTF-8: one line
    try:
        st = statements.decode(data, str(path))
    except StatementError as exc:
        raise ServiceError(str(exc)) from None
    check_statement(st, str(path))  # no field longer than events.limits allows
    return st


def apply_file(svc: GameService, st: statements.Statement) -> list[Any]:
    if isinstance(st, (JoinFile, CommittedJoin)):
        return svc.join(st)
    if isinstance(st, Reveal):
        return svc.reveal(st)
    if isinstance(st, MoveFile):
        return svc.submit_move(st)
    if isinstance(st, HandOver):
        return svc.hand_over(st)
    raise ServiceError("an invitation is for a player to answer with 'citylog join'")


def _mark_clock(svc: GameService, game_id: str) -> None:
    """The host's clock: when it saw the game's new last line (issue 24, deadlines)."""
    from events.deadlines import mark

    with contextlib.suppress(Exception):  # a clock note never stops an apply
        mark(svc, game_id, time.time())


def apply_cmd(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(metavar="FILE...")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Apply move or join files received by email.

    Signatures and positions are checked; nothing is applied from a file that
    fails.

    \b
    Example:
      citylog apply GAME-seq4-alice-move.json
    """
    svc = service(ctx)
    for path in files:
        st = read_statement(path)
        written = apply_file(svc, st)
        _mark_clock(svc, st.game_id)
        report(svc, st.game_id, written, json)


def outbox(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME")],
    folder: Annotated[Path, typer.Argument(metavar="DIR")],
    key: Annotated[Optional[Path], typer.Option(help="The host's private key file")] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Write what each player needs now into DIR.

    Invitations, the view of every seat that must act, or every player's final
    view once the game is over.

    \b
    Example:
      citylog outbox last out/
    """
    game_id = resolve_game(ctx, game_id)
    svc = service(ctx)
    loaded = svc.load(game_id)
    if folder.exists() and not folder.is_dir():
        raise ServiceError(f"{folder} is not a directory")
    folder.mkdir(parents=True, exist_ok=True)
    waiting = svc.waiting_to_join(loaded)
    wrote = 0
    if waiting:
        for player in waiting:
            path = folder / safe_name(f"{game_id}-invite-{player}.json")
            if not path.exists():
                invite(ctx, game_id, player, str(path), key, False, json)
                wrote += 1
        return
    revealing = svc.waiting_to_reveal(loaded)
    actors = loaded.game.to_act(loaded.state)
    seats = [a for a in actors if a >= 0] if actors else list(range(len(loaded.players)))
    if revealing:  # [CL-S7] the view after the last join asks each of them for a reveal
        seats = [loaded.players.index(p) for p in revealing]
    tag = f"seq{loaded.version}" if actors else "final"
    for seat in seats:
        player = loaded.players[seat]
        path = folder / safe_name(f"{game_id}-{tag}-{player}.jsonl")
        if path.exists() or (actors and not revealing and _still_current(svc, loaded, folder, seat)):
            continue
        data, n = export_bytes(ctx, svc, game_id, player, key)
        write_file(path, data)
        if json:
            emit_json({"file": str(path), "game_id": game_id, "player": player, "seq": loaded.version})
        else:
            asks = " (asks for the reveal of the entropy committed at the join)" if revealing else ""
            say(f"wrote {path}: {player}'s view, {plural(n, 'event')}{asks}"
                + ("" if actors else " (game over: seed revealed)"))
        wrote += 1
    if not wrote and not json:
        say("nothing new to send")


def _still_current(svc: GameService, loaded: Any, folder: Path, seat: int) -> bool:
    """The seat already has a view in DIR whose decision is the one pending now
    (other seats acted meanwhile; their moves commute): no new view is needed."""
    player = loaded.players[seat]
    prefix = safe_name(f"{loaded.record.id}-seq")
    suffix = safe_name(f"-{player}.jsonl")
    seqs = []
    for name in _names(folder):  # no glob: a game id or name may hold [ ] * ?
        middle = name[len(prefix):-len(suffix)]
        if name.startswith(prefix) and name.endswith(suffix) and middle.isdigit():
            seqs.append(int(middle))
    if not seqs:
        return False
    then = max(seqs)
    if not 0 < then <= loaded.version:
        return False
    key = loaded.game.decision_key(loaded.state, seat)
    return key is not None and key == loaded.game.decision_key(loaded.game.fold(loaded.events[:then]), seat)


def _names(folder: Path) -> list[str]:
    try:
        return [p.name for p in entries(folder, ".jsonl")]
    except FileRefused:
        return []


INBOX_LOCK = ".citylog-inbox.lock"
"""The lock file ``inbox`` holds in DIR while it works: two runs on one folder
take turns (the second finds the files the first handled gone)."""
LOCK_WAIT = 60.0
"""Seconds an ``inbox`` run waits for another run on the same folder (then exit 4)."""


def inbox(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(metavar="DIR")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Apply every move and join file in DIR.

    Joins first, then moves by position and seat; files of seats acting at
    once wait until all are in (the log does not depend on the order they
    arrived).  Handled files move to DIR/applied or DIR/refused.

    Each file is moved to DIR/applied in the same transaction that records it
    (the database is unchanged if it cannot be moved); runs on one DIR take
    turns; a file another run handled meanwhile is left to it.

    \b
    Example:
      citylog inbox in/
    """
    if not folder.is_dir():
        raise ServiceError(f"no directory {folder}")
    for where in ("applied", "refused"):  # checked before anything is applied
        _prepare(folder / where)
    svc = service(ctx)
    with _folder_lock(folder):
        failed = _inbox(svc, folder, json)
    if failed:
        raise typer.Exit(2)


def _inbox(svc: GameService, folder: Path, json: bool) -> int:
    found: list[tuple[Path, statements.Statement | None, str]] = []
    for path in entries(folder, ".json"):
        try:
            data = read_regular(path, MAX_STATEMENT, "move or join file")
        except FileRefused as exc:
            if not os.path.lexists(path):
                continue  # handled by another run meanwhile
            found.append((path, None, str(exc)))
            continue
        try:
            decoded = statements.decode(data, path.name)
            check_statement(decoded, path.name)
            found.append((path, decoded, ""))
        except (StatementError, FieldTooLong) as exc:
            found.append((path, None, str(exc)))
    failed = 0

    def order(item: tuple[Path, Any, str]) -> tuple[int, int, int, str]:
        path, st, _ = item
        if isinstance(st, (JoinFile, CommittedJoin)):
            return (0, 0, 0, path.name)
        if isinstance(st, Reveal):  # after the joins: a reveal needs every seat joined [CL-S7]
            return (0, 1, 0, path.name)
        if isinstance(st, MoveFile):
            players = _players(svc, st.game_id)
            seat = players.index(st.player) if st.player in players else 99
            return (1, st.seq, seat, path.name)
        return (2, 0, 0, path.name)

    pending = sorted(found, key=order)
    present = {(st.game_id, st.player) for _, st, _ in pending if isinstance(st, MoveFile)}
    for path, st, problem in pending:
        if st is None or isinstance(st, Invite):
            if _aside(path, "refused") is not None:
                _tell(json, path, "refused", problem or "an invitation is for a player, not the host")
                failed += 1
            continue
        if isinstance(st, MoveFile):
            waiting = _waiting_for(svc, st, present)
            if waiting:
                _tell(json, path, "held", f"waiting for {', '.join(waiting)} (they act at the same time)")
                continue
        if _recorded(svc, st):  # recorded by an earlier or a concurrent run: never applied twice
            if _aside(path, "applied") is not None:
                _tell(json, path, "applied", "already recorded")
            continue
        try:
            written = _apply_and_file(svc, st, path)
        except _Vanished:
            continue  # another run took the file; what this run did is rolled back
        except StaleMove as exc:
            if _aside(path, "refused") is not None:
                _tell(json, path, "stale", str(exc))
                failed += 1
            continue
        except (ServiceError, ValueError, GameNotFound) as exc:
            # a file naming a game this store does not hold is refused like any
            # other: no file can stop the run, or stall the inbox for every later run
            if _aside(path, "refused") is not None:
                _tell(json, path, "refused", _refusal(exc))
                failed += 1
            continue
        _mark_clock(svc, st.game_id)
        _tell(json, path, "applied", _seqs(written[0].seq, written[-1].seq) if written else "nothing new")
    if not found and not json:
        say("inbox empty")
    if not json:
        _say_reveals(svc, {st.game_id for _, st, _ in pending if st is not None})
    return failed


def _say_reveals(svc: GameService, games: set[str]) -> None:
    """Who must still reveal, in each game the run touched that waits for reveals [CL-S7]."""
    for game_id in sorted(games):
        try:
            loaded = svc.load(game_id)
        except Exception:  # noqa: BLE001 - an unknown game was refused above
            continue
        waiting = svc.waiting_to_reveal(loaded)
        if waiting:
            say(f"game {game_id}: waiting for {', '.join(waiting)} to reveal the entropy committed at the join "
                f"('citylog outbox {game_id} DIR' sends the views asking for it) [CL-S7]")


def _refusal(exc: Exception) -> str:
    """Why a file was refused, in one line."""
    if isinstance(exc, GameNotFound):
        return f"no game {exc.game_id!r} in this store (the file names another host's game, or none)"
    return str(exc)


def _apply_and_file(svc: GameService, st: statements.Statement, path: Path) -> list[Any]:
    """Apply ``st`` and move its file to DIR/applied in one step: the move is
    made inside the transaction (so a failed move undoes the apply), and a
    failed commit puts the file back (so the folder never says applied for
    what the database did not record)."""
    moved: Path | None = None
    try:
        with svc.store.transaction():
            written = apply_file(svc, st)
            moved = _aside(path, "applied")
            if moved is None:
                raise _Vanished
    except BaseException:
        if moved is not None:  # the commit failed: nothing recorded, the file goes back
            os.rename(moved, path)
        raise
    return written


class _Vanished(Exception):
    """The file being applied was taken by another run: undo this run's apply."""


MAX_STATEMENT = 1 << 20
"""A move, join or invitation file longer than this (1 MiB) is refused unread."""


def _recorded(svc: GameService, st: statements.Statement) -> bool:
    """The very statement (its one canonical encoding, signature included) is
    already in its game's signed record: applied by an earlier or a concurrent
    run.  A file differing in anything, signature or content, is not."""
    try:
        rows = svc.store.signed(st.game_id).values()
    except Exception:  # noqa: BLE001 - an unknown game is refused when applied
        return False
    return statements.encode(st) in rows


def _prepare(target: Path) -> None:
    """A one-line refusal before anything is applied if ``target`` (made when
    first needed) cannot be the directory handled files move into."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise ServiceError(f"{target} is not a directory; handled files cannot be moved there (nothing applied)")


def _folder_lock(folder: Path) -> contextlib.AbstractContextManager[None]:
    """Hold DIR's inbox lock (DIR/.citylog-inbox.lock); wait for another run up to
    ``LOCK_WAIT`` seconds, then exit 4."""
    from cli.locks import held

    return held(folder / INBOX_LOCK, LOCK_WAIT, f"another 'citylog inbox' has held {folder}")


def _players(svc: GameService, game_id: str) -> tuple[str, ...]:
    try:
        return svc.store.get_game(game_id).players
    except Exception:  # noqa: BLE001 - an unknown game is refused when applied
        return ()


def _waiting_for(svc: GameService, mv: MoveFile, present: set[tuple[str, str]]) -> list[str]:
    """Players whose files must come in before ``mv`` applies (none when it would be refused)."""
    try:
        players = svc.load(mv.game_id).players
        others = svc.holds_move(mv)
    except Exception:  # noqa: BLE001 - refused with its reason when applied
        return []
    return [players[s] for s in others if (mv.game_id, players[s]) not in present]


def _aside(path: Path, where: str) -> Path | None:
    """Move ``path`` into DIR/``where`` (a rename, never a copy: a FIFO or a
    link is moved as it is); where it went, None if it is gone (another run took it).
    An ``OSError`` other than that is raised (the caller's transaction undoes
    what it recorded)."""
    target = path.parent / where
    target.mkdir(exist_ok=True)  # checked by _prepare before the run
    stem, suffix = path.stem, path.suffix
    for n in range(10_000):
        dest = target / (path.name if n == 0 else f"{stem}.{n}{suffix}")
        if os.path.lexists(dest):
            continue
        try:
            os.link(path, dest, follow_symlinks=False)  # fails if dest exists: no overwrite race
        except FileExistsError:
            continue
        except FileNotFoundError:
            return None
        except OSError:  # no hard links here (a directory, another file system)
            if not os.path.lexists(path):
                return None
            os.rename(path, dest)
            return dest
        try:
            os.unlink(path)
        except FileNotFoundError:  # another run moved it meanwhile and kept its own copy
            os.unlink(dest)
            return None
        return dest
    raise ServiceError(f"{target}: too many files named like {path.name}")


def _tell(json: bool, path: Path, outcome: str, why: str) -> None:
    if json:
        emit_json({"file": path.name, "outcome": outcome, "why": why})
    else:
        say(f"{path.name}: {outcome} — {why}")


def legal(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME|FILE")],
    as_: Annotated[str, typer.Option("--as", help="The player")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """A player's legal commands now (none if it is not their turn).

    \b
    Example:
      citylog legal GAME-seq4-alice.jsonl --as alice
    """
    ref = game_or_file(ctx, ref)
    log = open_log(service(ctx), ref)
    game, _, states = fold_log(log)
    players = log.header.definition.players
    if as_ not in players:
        raise ServiceError(f"no player {as_!r} (players: {', '.join(players)})")
    if log.header.view is not None and log.header.view != as_:
        raise ServiceError(f"this file is {log.header.view}'s view; it cannot list {as_}'s moves")
    seat = players.index(as_)
    state = states[-1]
    if log.header.view is not None:
        state = game.view(state, seat)
    cmds = legal_commands(game, state, seat)
    if json:
        emit_json({"game_id": log.header.game_id, "player": as_, "seq": len(states), "legal": cmds})
        return
    if not cmds:
        say(f"{as_} has nothing to do now")
    for c in cmds:
        say(c)


def timeout_cmd(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME")],
    now: Annotated[
        Optional[int], typer.Option(metavar="EPOCH", help="The time to claim (epoch seconds; default: this machine's clock)")
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="The host's private key file")] = None,
    inbox_dir: Annotated[
        Optional[Path],
        typer.Option("--inbox", metavar="DIR", help="The inbox: a seat whose move waits there is not timed out, "
                     "and the inbox is applied after the timeouts"),
    ] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Time out every seat whose deadline has passed (the host).

    Each timeout is a line signed with the host's key naming the seat, the
    position its decision stood at, the times the host claims and what the
    game's policy did (the bot plays the decision from the seat's own view);
    every player's verify checks it [CL-T1, CL-T2].

    \b
    Example:
      citylog timeout last
    """
    from events.deadlines import apply_due, due

    game_id = resolve_game(ctx, game_id)
    svc = service(ctx)
    rec = svc.store.get_game(game_id)
    if not rec.pbem or not rec.deadline:
        raise ServiceError(f"game {game_id} has no deadline (create it with --pbem --deadline … --on-timeout …)")
    private = key_with_public(ctx, rec.host_key, key)
    at = int(time.time()) if now is None else now
    if not 0 <= at < 2**53:
        raise ServiceError("--now: epoch seconds, 0 to 2^53")
    answered = held_players(inbox_dir, game_id, svc) if inbox_dir is not None else set()
    written = apply_due(svc, game_id, at, lambda body: sign(private, "timeout", body), answered)
    if inbox_dir is not None and written:
        report(svc, game_id, written, json)
        with _folder_lock(inbox_dir):
            failed = _inbox(svc, inbox_dir, json)
        if failed:
            raise typer.Exit(2)
        return
    if not written:
        left = due(svc, game_id, at)
        if json:
            emit_json({"game_id": game_id, "timed_out": [], "due": [d.player for d in left]})
        else:
            say(f"no deadline has passed in game {game_id}")
        return
    report(svc, game_id, written, json)


def held_players(folder: Path, game_id: str, svc: Any) -> set[str]:
    """Players with a move file for ``game_id`` waiting in ``folder`` (an inbox) that
    the host would apply now (``svc``'s admission accepts it).

    [CL-S9] Law: a seat is spared its timeout only by a file of hers the host would
    apply now.  A file naming her that would be refused — signed by another key,
    stale, a replay — is no answer: counted, it would spare a silent seat for ever
    (nothing is applied when no one is timed out, so it would never leave the inbox),
    and anyone can write one."""
    if not folder.is_dir():
        raise ServiceError(f"no directory {folder}")
    out: set[str] = set()
    for path in entries(folder, ".json"):
        try:
            st = statements.decode(read_regular(path, MAX_STATEMENT, "move file"), path.name)
        except (FileRefused, StatementError):
            continue
        if isinstance(st, MoveFile) and st.game_id == game_id and st.player not in out and _admissible(svc, st):
            out.add(st.player)
    return out


def _admissible(svc: Any, mv: MoveFile) -> bool:
    """Whether the host would apply ``mv`` now (its signature, position, first use) [CL-S9]."""
    try:
        svc.admission.admit_move(mv)
    except Exception:  # noqa: BLE001 - any refusal: not an answer
        return False
    return True


def handover(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME|FILE")],
    as_: Annotated[str, typer.Option("--as", help="You")],
    to: Annotated[str, typer.Option("--to", help="bot (the bot plays your seat) or me (you take it back)")],
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="FILE", help="A file or a directory (default: GAME-seqN-PLAYER-handover.json)"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="Your private key (default: the key named PLAYER)")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file")] = False,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Hand your seat to the bot, or take it back (a signed file).

    While the bot has your seat it plays each of your decisions from your view
    as soon as it is pending, and every verify re-derives its choice [CL-T5].

    \b
    Example:
      citylog handover GAME-seq12-alice.jsonl --as alice --to bot
    """
    if to not in ("bot", "me"):
        raise ServiceError(f"--to is 'bot' or 'me', not {to!r}")
    from cli.play import ref_or_received

    ref, out = ref_or_received(ctx, ref, as_, out)  # a player by real email: her newest view, the agent's queue
    log = open_log(service(ctx), ref, as_)
    d = log.header.definition
    if not d.host_key:
        raise ServiceError("only a seat of a game played by email (--pbem) is handed over")
    if as_ not in d.players:
        raise ServiceError(f"no player {as_!r} (players: {', '.join(d.players)})")
    gid = log.header.game_id or ""
    seq = log.lines[-1].seq if log.lines else 0
    head = log.lines[-1].hash if log.lines else genesis_hash(d)
    private = key_for(ctx, as_, key)
    ho = statements.signed_handover(private, gid, as_, seq, head, to == "bot")
    path = out_path(out, f"{gid}-seq{seq}-{as_}-handover.json")
    write_file(path, statements.encode(ho), force)
    if json:
        emit_json({"file": str(path), "game_id": gid, "player": as_, "seq": seq, "bot": to == "bot"})
    else:
        what = "hands the seat to the bot" if to == "bot" else "takes the seat back from the bot"
        say(f"wrote {path}: {as_} {what} (signed); send it to the host")


def reveal_cmd(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="VIEW|GAME")],
    as_: Annotated[str, typer.Option("--as", help="You")],
    out: Annotated[
        Optional[str],
        typer.Option("-o", "--out", metavar="FILE", help="A file or a directory (default: GAME-seqN-PLAYER-reveal.json)"),
    ] = None,
    key: Annotated[Optional[Path], typer.Option(help="Your private key (default: the key named PLAYER)")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the output file")] = False,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Reveal the entropy your join committed to (a signed file).

    Once every seat has joined.

    Your entropy and its salt derive from your key and the game, so the view
    after the last join is all you need; the host refuses a reveal that does
    not open your chained commitment [CL-S7].  Each reveal is recorded beside
    your keys (keys/revealed.jsonl): asked to reveal the same game's entropy at
    another position (the host re-ran the joins), it refuses [CL-S12].

    \b
    Example:
      citylog reveal GAME-seq4-alice.jsonl --as alice
    """
    from cli.play import ref_or_received
    from core.seats import last_join_seq, must_reveal, reveals

    ref, out = ref_or_received(ctx, ref, as_, out)  # a player by real email: her newest view
    log = open_log(service(ctx), ref, as_)
    d = log.header.definition
    if not d.host_key or d.entropy != COMMITTED_ENTROPY:
        raise ServiceError("only a game by email whose joins commit to their entropy takes a reveal [CL-S7]")
    if as_ not in d.players:
        raise ServiceError(f"no player {as_!r} (players: {', '.join(d.players)})")
    _, events, _ = fold_log(log, ref)
    seat = d.players.index(as_)
    if seat not in must_reveal(events, len(d.players), d.entropy):
        why = "has already revealed" if seat in reveals(events) else "has nothing to reveal yet (not every seat has joined)"
        raise ServiceError(f"{as_} {why} in game {log.header.game_id} [CL-S7]")
    at = last_join_seq(events)
    gid = log.header.game_id or ""
    private = key_for(ctx, as_, key)
    from cli.context import keys_folder, state
    from cli.reveals import record_reveal

    # [CL-S12] one position per commitment: a re-run of the joins is refused, nothing written
    record_reveal(keys_folder(state(ctx).db), gid, genesis_hash(d), public_hex(private), at, log.lines[at - 1].hash)
    rv = statements.signed_reveal(private, gid, genesis_hash(d), as_, at, log.lines[at - 1].hash)
    path = out_path(out, f"{gid}-seq{at}-{as_}-reveal.json")
    write_file(path, statements.encode(rv), force)
    if json:
        emit_json({"file": str(path), "game_id": gid, "player": as_, "seq": at})
    else:
        say(f"wrote {path}: {as_} reveals the entropy committed at the join (signed); send it to the host")


def register(app: typer.Typer) -> None:
    app.command("invite")(guarded(invite))
    app.command("join")(guarded(join))
    app.command("apply")(guarded(apply_cmd))
    app.command("outbox")(guarded(outbox))
    app.command("inbox")(guarded(inbox))
    app.command("legal")(guarded(legal))
    app.command("timeout")(guarded(timeout_cmd))
    app.command("handover")(guarded(handover))
    app.command("reveal")(guarded(reveal_cmd))


def _seqs(first: int, last: int) -> str:
    """``seq 5`` for one event, ``seqs 6–9`` for several.

    >>> _seqs(5, 5), _seqs(6, 9)
    ('seq 5', 'seqs 6–9')
    """
    return f"seq {first}" if first == last else f"seqs {first}–{last}"
