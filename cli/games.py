"""Games: ``new``, ``list``, ``show``, ``log``."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import sys
from pathlib import Path

import msgspec
import typer

from cli.arguments import legal_commands, parse_bots, parse_options, parse_players, seat_names
from cli.context import game_or_file, service
from cli.keys import key_for
from cli.errors import CHECK_FAILED, fail, guarded, reads_untrusted_logs
from cli.output import clean, emit_json, plain, say, say_markup
from cli.results import plural, result_lines, verdict
from cli.options import GameOrFile, Json, ViewAs
from core import registry
from core.scene import scene_or_text
from core.scene_text import legend_line
from core.seats import joins, must_reveal
from events.service import GameService, ServiceError
from events.signing import public_hex
from replay.sources import fold_log, open_log, view_seat


def new(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(metavar="KIND", help=registry.kinds())],
    players: Annotated[str, typer.Option(help="A count (N) or names: alice,bob")],
    seed: Annotated[Optional[str], typer.Option(help="The seed all chance comes from")] = None,
    option: Annotated[list[str], typer.Option("--option", help="A game option, e.g. sides=B (repeatable)")] = [],  # noqa: B006
    bots: Annotated[Optional[str], typer.Option(help="POLICY for every seat, or SEAT=POLICY,…")] = None,
    table: Annotated[bool, typer.Option("--table", help="Played with real cards: enter chance by hand")] = False,
    pbem: Annotated[
        bool, typer.Option("--pbem", help="Play by email: players join with keys; the deal mixes in their entropy")
    ] = False,
    key: Annotated[Optional[Path], typer.Option(help="--pbem: the host's key (default: the key named 'host')")] = None,
    deadline: Annotated[
        Optional[str], typer.Option(help="--pbem: how long a seat may take to answer, e.g. 3d or 12h [CL-T1]")
    ] = None,
    on_timeout: Annotated[
        Optional[str], typer.Option("--on-timeout", help="--pbem: what a timeout does: bot or forfeit (what the game allows) [CL-T1]")
    ] = None,
    json: Json = False,
) -> None:
    """Create a game.

    Bot seats and chance play at once, up to the first human decision.  Prints
    the new game's id (any unique start of it, or 'last', names it later).

    \b
    Example:
      citylog new card-city --players alice,bob --bots bob=greedy
      citylog new 5x5-city --players 3 --option sides=B --seed s1
      citylog new point-city --players alice,bob --pbem --deadline 3d --on-timeout bot
    """
    from core.deadlines import parse_deadline

    names = parse_players(players, game)
    if (deadline is None) != (on_timeout is None):
        raise ServiceError("--deadline and --on-timeout go together (a deadline says when, the policy what happens)")
    if deadline is not None and not pbem:
        raise ServiceError("--deadline and --on-timeout are for games played by email (--pbem)")
    try:
        seconds = parse_deadline(deadline) if deadline is not None else 0
    except ValueError as exc:
        raise ServiceError(f"--deadline: {exc}") from None
    if on_timeout is not None:
        from core.deadlines import policy_problem

        refused = policy_problem(registry.get(game).spec, on_timeout) if game in registry.names() else None
        if refused is not None:  # before any key is read: a policy the game cannot honour
            raise ServiceError(refused)
    svc = service(ctx)
    host_key = public_hex(key_for(ctx, "host", key)) if pbem else ""
    gid = svc.create(
        game, names, seed=seed, options=parse_options(option), bots=parse_bots(bots, names), table=table,
        host_key=host_key, deadline=seconds, on_timeout=on_timeout or "",
    )
    if json:
        emit_json({"game_id": gid, "seq": svc.store.version(gid)})
    else:
        loaded = svc.load(gid)
        joining = svc.waiting_to_join(loaded)
        waiting = seat_names(loaded.players, loaded.game.to_act(loaded.state))
        status = "over" if not waiting else "waiting for " + ", ".join(waiting)
        if waiting == ["chance"]:  # a table game: the outcome is typed in
            status = f"waiting for the chance outcome at the table: citylog move {gid} --chance '…'"
        if joining:
            status = f"play by email: waiting for {', '.join(joining)} to join ('citylog outbox {gid} DIR')"
        # The id alone on stdout, so `G=$(citylog new …)` holds just the id; the
        # description goes to stderr, where a terminal still shows it.
        say(gid)
        sys.stderr.write(clean(f"{loaded.game.spec.title}, {plural(len(loaded.records), 'event')}, {status}") + "\n")


def list_games(
    ctx: typer.Context,
    game: Annotated[Optional[str], typer.Option("--game", metavar="KIND", help="Only this kind of game: " + registry.kinds())] = None,
    player: Annotated[Optional[str], typer.Option("--player", help="Only games this player is in")] = None,
    status: Annotated[Optional[str], typer.Option("--status", help="active or over")] = None,
    limit: Annotated[int, typer.Option("--limit", help="At most this many (a page)")] = 100,
    after: Annotated[Optional[str], typer.Option("--after", help="The page after this game")] = None,
    tag: Annotated[Optional[str], typer.Option("--tag", help="Only games with this tag (e.g. sim)")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Include simulated games (tagged sim) and games an undo left (tagged superseded), hidden by default")] = False,
    json: Json = False,
) -> None:
    """Games in the database, oldest first, a page at a time.

    Read from each game's row: the cost does not grow with the events stored.
    Games 'citylog simulate' stored (tag sim) are left out unless --all or
    --tag sim, and so are the games an 'undo' at the play prompt left for a
    fork (tag superseded) unless --all or --tag superseded.

    \b
    Example:
      citylog list --status active --player alice
      citylog list --tag sim --limit 20
    """
    from events.store import LIST_HIDDEN, SIM_TAG, GameFilter, check_tag

    if status is not None and status not in ("active", "over"):
        raise ServiceError(f"--status is 'active' or 'over', not {status!r}")
    if limit < 1:
        raise ServiceError(f"--limit must be at least 1, not {limit}")
    if tag is not None:
        check_tag(tag)
    svc = service(ctx, readonly=True)
    store = svc.store
    if after is not None:
        after = svc.resolve(after)  # a missing game is an error, not an empty page
    hidden = None if all_ or tag is not None else LIST_HIDDEN  # simulated games, games an undo left [GL-3]
    page = GameFilter(
        game=game, player=player, status=status, after=after, limit=limit + 1, tag=tag, hidden_tag=hidden  # type: ignore[arg-type]
    )
    rows = store.list_games_with_counts(page)
    more = len(rows) > limit
    rows = rows[:limit]
    tags = store.tags([rec.id for rec, _ in rows])
    for rec, count in rows:
        if json:
            emit_json(
                {
                    "game_id": rec.id,
                    "game": rec.game,
                    "players": rec.players,
                    "status": rec.status,
                    "winners": rec.winners,
                    "events": count,
                    "parent": rec.parent,
                    "fork_at": rec.fork_at,
                    "created_at": rec.created_at,
                    "tags": list(tags.get(rec.id, ())),
                }
            )
        else:
            parent = f"  fork of {rec.parent}@{rec.fork_at}" if rec.parent else ""
            won = f"  won by {' and '.join(rec.winners)}" if rec.winners and len(rec.players) > 1 else ""
            if len(rec.players) == 1 and rec.status == "over":  # solo: a score and a level, not a win [CC-9]
                won = f"  solo game (its score and verdict: citylog show {rec.id})"
            labels = f"  tags: {', '.join(tags[rec.id])}" if rec.id in tags else ""
            # plain: names are the users' text, never markup
            plain(
                f"{rec.id}  {rec.game:<10} {rec.status:<6} {count:>5} {'event ' if count == 1 else 'events'}  {', '.join(rec.players)}"
                f"{parent}{won}{labels}"
            )
    if more and not json:
        plain(f"… more: citylog list --after {rows[-1][0].id} (same filters)")
    damaged = service(ctx, readonly=True).store.damaged_games()
    sims_hidden = (
        hidden is not None and not json and not more
        and bool(store.list_games_with_counts(msgspec.structs.replace(page, tag=SIM_TAG, hidden_tag=None, limit=1)))
    )
    if not rows and not json and after is None and not (game or player or status or tag) and not damaged:
        if sims_hidden:
            say("no games but simulated ones (tag sim): citylog list --all, or --tag sim")
        else:
            say(f"no games yet — try: citylog new {registry.names()[0]} --players 3 --bots greedy")
    elif sims_hidden:
        say("(simulated games, tag sim, not shown: citylog list --all, or --tag sim)")
    if damaged:  # the other games are listed; each damaged row is named
        raise fail("; ".join(damaged), CHECK_FAILED)


def waiting_to_join(log: Any, events: list[Any], players: tuple[str, ...]) -> list[str]:
    """Players of a play-by-email game who have not joined (by this point of the log)."""
    if not log.header.definition.host_key:
        return []
    joined = joins(events)
    return [p for i, p in enumerate(players) if i not in joined]


def waiting_to_reveal(log: Any, events: list[Any], players: tuple[str, ...]) -> list[str]:
    """Players of a game of committed entropy who must reveal (by this point of the log) [CL-S7]."""
    d = log.header.definition
    if not d.host_key:
        return []
    return [players[s] for s in must_reveal(events, len(players), d.entropy)]


def load_view(svc: GameService, ref: str, at: int | None, player: str | None) -> dict[str, Any]:
    log = open_log(svc, ref, player)  # --as P: P's view, exactly as P's exported file
    game, events, states = fold_log(log, ref)
    players = log.header.definition.players
    seq = len(events) if at is None else at
    if not 1 <= seq <= len(events):
        raise ServiceError(f"--at must be between 1 and {len(events)}, not {seq}")
    state = states[seq - 1]
    seat = view_seat(log)
    shown = state if seat is None else game.view(state, seat)
    return {
        "game": game, "log": log, "events": events, "state": state, "shown": shown, "seat": seat, "seq": seq,
        "players": players,
    }


def _judged_at(ctx: typer.Context, ref: str, v: dict[str, Any]) -> list[Any]:
    """Each seat's latest judgement up to the shown seq (its own only with --as) [CL-X2]."""
    from replay import analyses
    from replay.sources import judgements

    svc = None if Path(ref).is_file() else service(ctx, readonly=True)
    items = judgements(svc, ref, v["log"])
    return analyses.latest(analyses.shown(items, v["log"].header.view), v["seq"]) if items else []


def show(
    ctx: typer.Context,
    ref: GameOrFile,
    at: Annotated[Optional[int], typer.Option(help="Show the state after this seq")] = None,
    as_: ViewAs = None,
    json: Json = False,
) -> None:
    """The table: boards, coins, hands and whose turn.

    Scores once the game has ended; --at SEQ shows an earlier point.

    \b
    Example:
      citylog show last --as alice
      citylog show 4e41 --at 12 --json
    """
    ref = game_or_file(ctx, ref, readonly=True)
    v = load_view(service(ctx, readonly=True), ref, at, as_)
    game, state, shown = v["game"], v["state"], v["shown"]
    result = game.result(state)
    judged = _judged_at(ctx, ref, v)
    to_act = seat_names(v["players"], game.to_act(state))
    joining = waiting_to_join(v["log"], v["events"][: v["seq"]], v["players"])
    revealing = waiting_to_reveal(v["log"], v["events"][: v["seq"]], v["players"])
    if joining or revealing:
        to_act = []
    if json:
        out: dict[str, Any] = {
            "game_id": v["log"].header.game_id,
            "game": game.spec.name,
            "seq": v["seq"],
            "players": v["players"],
            "to_act": to_act,
            "round": game.round_of(state),
            "state": game.state_data(shown),  # squares as commands name them [GL-5]
        }
        if joining:
            out["joining"] = joining
        if revealing:
            out["to_reveal"] = revealing
        if v["seat"] is not None and at is None:
            out["legal"] = legal_commands(game, shown, v["seat"])
        if result is not None:
            out["scores"] = result.scores
            out["winners"] = [v["players"][w] for w in result.winners]
            out["breakdowns"] = msgspec.to_builtins(result.breakdowns)
            out["verdict"] = verdict(game, v["players"], state, result)
        if judged:
            from replay.analyses import row

            out["analysis"] = [row(j, v["players"]) for j in judged]
        emit_json(out)
        return
    say_markup(game.render(shown, v["seat"]))
    say(legend_line(scene_or_text(game, shown, v["seat"])))
    if joining:
        say(f"seq {v['seq']}; waiting for {', '.join(joining)} to join (play by email)")
    elif revealing:
        say(f"seq {v['seq']}; waiting for {', '.join(revealing)} to reveal the entropy committed at the join "
            "('citylog reveal'; no chance is dealt before) [CL-S7]")
    elif result is None:
        doing = f"to act: {', '.join(to_act)}" if to_act else "an automatic step (nobody decides here)"
        say(f"seq {v['seq']}; {doing}")
    else:
        if len(v["players"]) == 1:  # solo: no winner in that sense, the score and the book's verdict [CC-9, PL-10]
            say(f"seq {v['seq']}; game over — {verdict(game, v['players'], state, result)}")
        else:
            winners = " and ".join(v["players"][w] for w in result.winners) or "none"
            say(f"seq {v['seq']}; game over — scores {', '.join(map(str, result.scores))}; winner: {winners}")
        for line in result_lines(game, v["players"], state, result):
            say_markup(line)
    if judged:
        from replay.analyses import note

        for j in judged:
            say(f"analysis at #{j.seq}: {note(j)}")


def log(
    ctx: typer.Context,
    ref: GameOrFile,
    as_: ViewAs = None,
    analysis: Annotated[bool, typer.Option("--analysis", help="Each decision's stored judgement (citylog analyse)")] = False,
    json: Json = False,
) -> None:
    """The numbered events, readable.

    Without --as this is the host's (referee's) log: every hidden card shown.
    With --json, one object per line.  --analysis: the mover's win chance
    before and after each decision, the best command and the mark, as
    'citylog analyse' stored them or the file carries them (with --as, that
    player's own only).

    \b
    Example:
      citylog log last --as bob
    """
    ref = game_or_file(ctx, ref, readonly=True)
    svc = service(ctx, readonly=True)
    lg = open_log(svc, ref, as_)
    game, events, _ = fold_log(lg, ref)
    players = lg.header.definition.players
    judged: dict[int, str] = {}
    rows: dict[int, list[dict[str, Any]]] = {}
    if analysis:  # what 'citylog analyse' stored, or the file carries [CL-X1, CL-X2]
        from replay import analyses
        from replay.sources import judgements

        shown = analyses.shown(judgements(svc, ref, lg), as_)
        judged = analyses.by_seq(shown)
        for j in shown:  # --json: every field, as show --json and analyse --json give them
            rows.setdefault(j.seq, []).append(analyses.row(j, players))
    for line, e in zip(lg.lines, events, strict=True):
        text = game.describe(e, players)
        if json:
            row = {"game_id": lg.header.game_id, "seq": line.seq, "type": line.type, "text": text, "event": msgspec.to_builtins(e)}
            if line.seq in judged:
                row["analysis"] = rows[line.seq]
            emit_json(row)
        else:
            note = f"  {judged[line.seq]}" if line.seq in judged else ""
            say(f"{line.seq:>5}  {text}{note}")


def register(app: typer.Typer) -> None:
    app.command("new")(guarded(new))
    app.command("list")(guarded(list_games))
    app.command("show")(guarded(reads_untrusted_logs(show)))
    app.command("log")(guarded(reads_untrusted_logs(log)))
