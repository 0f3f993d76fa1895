"""Settling disputes: ``explain``, ``diff``, ``verify``."""

from __future__ import annotations

from pathlib import Path

from typing import Annotated, Any, Optional

import msgspec
import typer

from cli.context import game_or_file, service
from cli.errors import CHECK_FAILED, guarded, reads_untrusted_logs
from cli.output import emit_json, one_line, say
from cli.options import GameOrFile, Json
from core.words import plural
from events.service import ServiceError
from replay.diff import diff as diff_logs
from replay.explain import explain_at, try_at
from replay.sources import fold_log, open_log, view_seat
from replay.verify import Verdict
from replay.verify import verify as verify_log


def explain(
    ctx: typer.Context,
    ref: GameOrFile,
    at: Annotated[int, typer.Option(help="The event's seq")],
    try_: Annotated[Optional[str], typer.Option("--try", help="Would this command have been legal here?")] = None,
    as_: Annotated[
        Optional[str], typer.Option("--as", help="As this player: their view, and they try the command")
    ] = None,
    json: Json = False,
) -> None:
    """Who did what at SEQ, and why it was legal.

    With --try, whether another command would have been legal there (exit 1
    if not).  Without --as this is the referee's explanation (hidden cards
    shown).

    \b
    Example:
      citylog explain last --at 42
      citylog explain last --at 42 --try 'build R E6' --as alice
    """
    ref = game_or_file(ctx, ref, readonly=True)
    log = open_log(service(ctx, readonly=True), ref, as_)
    game, events, _ = fold_log(log, ref)
    players = log.header.definition.players
    viewer = view_seat(log)
    try:
        if try_ is None:
            seeded = log.header.seed is not None or not log.header.definition.table
            text = explain_at(game, events, players, at, seeded, viewer)
            emit_json({"game_id": log.header.game_id, "seq": at, "explanation": text}) if json else say(text)
            return
        legal, text = try_at(game, events, players, at, None if viewer is not None else as_, try_, viewer)
    except ValueError as exc:
        raise ServiceError(str(exc)) from None
    if json:
        emit_json({"game_id": log.header.game_id, "seq": at, "legal": legal, "explanation": text})
    else:
        say(text)
    if not legal:
        raise typer.Exit(CHECK_FAILED)


def diff(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(metavar="GAME|FILE", help="A game or an exported file")],
    b: Annotated[str, typer.Argument(metavar="GAME|FILE", help="The other game or file")],
    as_: Annotated[Optional[str], typer.Option("--as", help="Compare this player's views")] = None,
    json: Json = False,
) -> None:
    """Compare two games: where they part, if they do.

    Like diff(1), exit 1 when they differ.  Prints the first diverging seq, the two events there, how the positions
    differ right after them and how the final positions differ — in the game's
    words (squares, cards, scores).  Two unrelated logs are "different games".

    \b
    Example:
      citylog diff 4e41 last --as alice
    """
    a, b = game_or_file(ctx, a, readonly=True), game_or_file(ctx, b, readonly=True)
    svc = service(ctx, readonly=True)
    log_a, log_b = open_log(svc, a, as_), open_log(svc, b, as_)
    result = diff_logs(log_a, log_b)
    if json:  # two games: both ids, a's then b's (the --json convention, cli.output.JSON_KEYS)
        emit_json({"game_ids": [log_a.header.game_id, log_b.header.game_id], **result})
    elif result["identical"]:
        say(f"identical: {plural(result['events'][0], 'event')}")
    elif result.get("different_games"):
        say("different games (they differ from the first event)")
        say(f"  a: {result['a']['event']}")
        say(f"  b: {result['b']['event']}")
    else:
        say(f"first divergence at seq {result['first_divergence']}")
        for side in ("a", "b"):
            ev = result.get(side)
            say(f"  {side}: {ev['event'] if ev else '(no event: the log ends here)'}")
        if result.get("note"):
            say(f"  {result['note']}")
        if result.get("differences"):
            say("after it (a → b):")
            for line in result["differences"][:40]:
                say(f"  {line}")
        say(f"at the end ({result['events'][0]} and {result['events'][1]} events, a → b):")
        for line in result["final_differences"][:60] or ["the final positions are the same"]:
            say(f"  {line}")
    if not result["identical"]:
        raise typer.Exit(CHECK_FAILED)


def verify(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME|FILE")],
    json: Annotated[bool, typer.Option("--json")] = False,
    key: Annotated[
        Optional[Path],
        typer.Option(help="Your private key: a view of yours must have your seat played with it "
                     "(default: your key in the key store)"),
    ] = None,
) -> None:
    """Check a game: hash chain, every event legal, chance re-derived.

    Exit 0 only if the hash chain holds, every event is legal from the start
    and chance re-derives from the seed; exit 1 names the first bad line.
    A play-by-email view also says whose key played its seat, and fails if
    it is not yours (--key, or the view's player's key in your key store).

    \b
    Example:
      citylog verify game.jsonl
      citylog verify last --json
    """
    ref = game_or_file(ctx, ref, readonly=True)
    svc = service(ctx, readonly=True)
    # a file of a play-by-email game must carry the host's seal; the host's own store needs none
    log = open_log(svc, ref)
    verdict = verify_log(log, sealed=Path(ref).is_file())
    if verdict.ok:
        verdict = own_seat_verdict(ctx, log, verdict, key, from_file=Path(ref).is_file())
    if not Path(ref).is_file():  # a stored game: the database file itself must be sound
        damaged = svc.store.integrity_problem()
        if damaged is not None:
            verdict = Verdict(False, f"the database file is damaged ({damaged}); nothing in it can be vouched for",
                              events=verdict.events)
    if json:
        emit_json({"game_id": log.header.game_id, **msgspec.to_builtins(verdict)})
    else:
        say(one_line(verdict.message(ref)))
    if not verdict.ok:
        raise typer.Exit(CHECK_FAILED)


def own_seat_verdict(
    ctx: typer.Context, log: Any, verdict: Verdict, key: Path | None, from_file: bool = True
) -> Verdict:
    """A valid play-by-email view, checked for its player's own key [CL-S4].  A full
    log is checked too when it came as a file, or with ``--key`` (a game in the
    host's own store, checked without ``--key``, is the host's)."""
    from cli.keys import own_public_key
    from replay.trust import seat_key_note
    from replay.verify import decode_events

    h = log.header
    if not h.definition.host_key:
        return verdict
    decoded = decode_events(log)
    if isinstance(decoded, Verdict):
        return decoded
    if h.view is None and key is None and not from_file:
        return verdict
    if h.view is None:
        # a full log names no viewer: whoever checks it is found by her key, so a host
        # cannot hand her the full log rather than her view to skip this check [CL-S4]
        ok, note = full_log_key_note(ctx, log, decoded[1], key)
    else:
        mine = own_public_key(ctx, h.view, key)
        ok, note = seat_key_note(log, decoded[1], mine)
        if ok and mine is None:
            # no key of the view's player here: the verifier may be another player of the
            # game, handed someone else's view (the host's, say, or one from a seat it took)
            ok, others = full_log_key_note(ctx, log, decoded[1], None)
            note = others if not ok else "; ".join(x for x in (note, others) if x)
    if not note:
        return verdict
    if not ok:
        return Verdict(False, note, line=1, events=verdict.events, over=verdict.over)
    return msgspec.structs.replace(verdict, reason=f"{verdict.reason}; {note}")


def full_log_key_note(ctx: typer.Context, log: Any, events: Any, key: Path | None) -> tuple[bool, str]:
    """[CL-S4] A full log of a game by email, checked by a player: with ``--key``, a
    seat of the game was taken with that key; without, every player of the game
    whose key is in the key store took her seat with it."""
    from cli.keys import own_public_key
    from core.seats import joins
    from events.signing import KEY_HEX, same_hex

    players = log.header.definition.players
    joined = {players[s]: j.public_key for s, j in joins(events).items() if 0 <= s < len(players)}
    if key is not None:
        mine = own_public_key(ctx, "", key) or ""
        seats = [p for p, k in joined.items() if same_hex(k, mine, KEY_HEX)]
        if not seats:
            return False, (f"no seat of this game was taken with your key {mine[:12]}… "
                           "(someone else plays your seat, or it is not your game)")
        return True, f"{seats[0]}'s seat played with your key {mine[:12]}…"
    notes = []
    for p in players:
        stored = own_public_key(ctx, p, None)
        if stored is None or p not in joined:
            continue
        if not same_hex(joined[p], stored, KEY_HEX):
            return False, (f"{p}'s seat was taken with key {joined[p][:12]}…, not with your key "
                           f"{stored[:12]}… (someone else plays your seat)")
        notes.append(f"{p}'s seat played with your key {stored[:12]}…")
    return True, "; ".join(notes)


def register(app: typer.Typer) -> None:
    app.command("explain")(guarded(reads_untrusted_logs(explain)))
    app.command("diff")(guarded(reads_untrusted_logs(diff)))
    app.command("verify")(guarded(verify))
