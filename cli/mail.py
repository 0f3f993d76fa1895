"""Play by email: ``invite``, ``join``, ``apply``, ``outbox``, ``legal``,
``timeout``, ``handover``, ``reveal``, and the registration of the host's
``inbox`` (:mod:`cli.inbox`, which ``apply`` and ``timeout --inbox`` share).

The host keeps the game and its key; each player keeps a key and their view.
Files are named for what they hold (``GAME-invite-PLAYER.json``,
``GAME-seqN-PLAYER.jsonl``, ``GAME-seqN-PLAYER-move.json``); ``-o`` never
overwrites without ``--force``.
"""

from __future__ import annotations

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
from cli.inbox import _folder_lock, _inbox, _mark_clock, apply_file, held_players, inbox
from cli.inputs import check_statement, read_small_text
from core.words import plural
from cli.keys import key_for, key_with_public
from cli.output import emit_json, out_path, safe_name, say, write_file
from cli.play import report
from events import statements
from events.envelope import genesis_hash
from events.service import GameService, ServiceError
from events.signing import KEY_HEX, is_public_hex, public_hex, same_hex, sign
from events.statements import (
    INVITE_FORMAT,
    Invite,
    StatementError,
    seat_secret,
    signed_committed_join,
)
from core.chance import COMMITTED_ENTROPY
from replay import logfile
from replay.bounded import FileRefused, entries
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
    replace_joined: Annotated[bool, typer.Option(
        "--replace-joined", help="Join although you joined another game under this id (a host that restarted "
                                 "it) [CL-S18]")] = False,
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
    if os.path.lexists(path) and not force:  # refused before anything is recorded
        raise ServiceError(f"{path} exists; not overwritten (use --force)")
    from cli.joined import record_join
    from cli.keys import keys_dir

    # [CL-S18] one game under one id: the record first, the file after
    record_join(keys_dir(ctx), inv.game_id, as_, public, genesis, replace_joined)
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
