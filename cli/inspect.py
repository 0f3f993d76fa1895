"""Settling disputes: ``explain``, ``diff``, ``verify``."""

from __future__ import annotations

from pathlib import Path

from typing import Annotated, Optional

import typer

from cli.context import service
from cli.errors import CHECK_FAILED, guarded, reads_untrusted_logs
from cli.output import emit_json, one_line, say
from events.service import ServiceError
from replay.diff import diff as diff_logs
from replay.explain import explain_at, try_at
from replay.sources import fold_log, open_log, view_seat
from replay.verify import Verdict
from replay.verify import verify as verify_log


def explain(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="GAME_ID|FILE")],
    at: Annotated[int, typer.Option(help="The event's seq")],
    try_: Annotated[Optional[str], typer.Option("--try", help="Would this command have been legal here?")] = None,
    as_: Annotated[
        Optional[str], typer.Option("--as", help="As this player: their view, and they try the command")
    ] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Who did what at SEQ and why it was legal; with --try, whether a command would have been.

    Without --as this is the referee's explanation (hidden cards shown)."""
    log = open_log(service(ctx, readonly=True), ref, as_)
    game, events, _ = fold_log(log, ref)
    players = log.header.definition.players
    viewer = view_seat(log)
    try:
        if try_ is None:
            seeded = log.header.seed is not None or not log.header.definition.table
            text = explain_at(game, events, players, at, seeded, viewer)
            emit_json({"seq": at, "explanation": text}) if json else say(text)
            return
        legal, text = try_at(game, events, players, at, None if viewer is not None else as_, try_, viewer)
    except ValueError as exc:
        raise ServiceError(str(exc)) from None
    if json:
        emit_json({"seq": at, "legal": legal, "explanation": text})
    else:
        say(text)
    if not legal:
        raise typer.Exit(CHECK_FAILED)


def diff(
    ctx: typer.Context,
    a: Annotated[str, typer.Argument(metavar="A", help="A game id or an exported file")],
    b: Annotated[str, typer.Argument(metavar="B")],
    as_: Annotated[Optional[str], typer.Option("--as", help="Compare this player's views")] = None,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Identical, or the first diverging seq, the two events and how the states differ."""
    svc = service(ctx, readonly=True)
    result = diff_logs(open_log(svc, a, as_), open_log(svc, b, as_))
    if json:
        emit_json(result)
        return
    if result["identical"]:
        say(f"identical: {result['events'][0]} events")
        return
    say(f"first divergence at seq {result['first_divergence']}")
    for side in ("a", "b"):
        ev = result.get(side)
        say(f"  {side}: {ev['event'] if ev else '(no event: the log ends here)'}")
    for d in result.get("state_differences", [])[:40]:
        say(f"  {d['path']}: {d['a']!r} → {d['b']!r}")
    if result.get("note"):
        say(f"  {result['note']}")


def verify(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(metavar="FILE|GAME_ID")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The hash chain, every event legal from the start, chance re-derived from the seed."""
    svc = service(ctx, readonly=True)
    # a file of a play-by-email game must carry the host's seal; the host's own store needs none
    verdict = verify_log(open_log(svc, ref), sealed=Path(ref).is_file())
    if not Path(ref).is_file():  # a stored game: the database file itself must be sound
        damaged = svc.store.integrity_problem()
        if damaged is not None:
            verdict = Verdict(False, f"the database file is damaged ({damaged}); nothing in it can be vouched for",
                              events=verdict.events)
    if json:
        emit_json(verdict)
    else:
        say(one_line(verdict.message(ref)))
    if not verdict.ok:
        raise typer.Exit(CHECK_FAILED)


def register(app: typer.Typer) -> None:
    app.command("explain")(guarded(reads_untrusted_logs(explain)))
    app.command("diff")(guarded(reads_untrusted_logs(diff)))
    app.command("verify")(guarded(verify))
