"""Many games at once: ``simulate``; and ``demo``, the README's first command."""

from __future__ import annotations

import statistics
from typing import Annotated, Any, Optional

import typer

from cli.context import service
from cli.errors import guarded
from cli.games import parse_players
from cli.output import emit_json, is_terminal, say, say_markup
from core.markup import escape
from events.service import GameService, ServiceError


def _policies(text: str, n: int) -> dict[int, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1:
        return dict.fromkeys(range(n), parts[0])
    if len(parts) != n:
        raise ServiceError(f"--bots: give one policy, or one per seat ({n})")
    return dict(enumerate(parts))


def _one(
    svc: GameService, game: str, names: list[str], seed: str, bots: dict[int, str], tag: str | None = None,
    keep: bool = True,
) -> dict[str, Any]:
    """One bot game and its result; ``keep`` False (``--no-store``): forgotten once
    scored, so a long run's memory does not grow with its games."""
    with svc.store.transaction():  # stored with its tag, or not at all
        gid = svc.create(game, names, seed=seed, bots=bots)
        if tag:
            svc.store.add_tags(gid, [tag])
    loaded = svc.load(gid)
    result = loaded.game.result(loaded.state)
    if result is None:
        raise ServiceError("a simulated game did not end")
    if not keep:
        svc.delete(gid)
    return {
        "game_id": gid,
        "seed": seed,
        "events": loaded.version,
        "scores": list(result.scores),
        "winners": [names[w] for w in result.winners],
        "winner_seats": list(result.winners),
    }


def simulate(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(metavar="KIND", help="card-city, 5x5-city or point-city")],
    players: Annotated[str, typer.Option(help="A count or names")],
    seed: Annotated[
        Optional[str], typer.Option(help="Game k gets seed SEED/k (default: a fresh one, printed to repeat the run)")
    ] = None,
    games: Annotated[int, typer.Option(min=1, help="How many games")] = 1,
    bots: Annotated[
        str, typer.Option(help="POLICY, or one per seat: greedy,random (default greedy, as autoplay)")
    ] = "greedy",
    tag: Annotated[
        str, typer.Option(help="Store the games under this tag ('': none); list hides tag sim unless asked")
    ] = "sim",
    store: Annotated[
        bool, typer.Option("--store/--no-store", help="Keep the games in the database, or in memory only")
    ] = True,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Many complete bot games, with a summary.

    Score spread and win rate by seat.  The games are stored tagged sim (so
    'citylog list' leaves them out: see them with --tag sim), or kept in
    memory only with --no-store.

    \b
    Example:
      citylog simulate 5x5-city --players 3 --games 100 --bots greedy,random,random
      citylog simulate card-city --players 2 --games 20 --seed x --no-store
    """
    import secrets

    from events.store import check_tag

    names = parse_players(players, game)
    policies = _policies(bots, len(names))
    if tag:
        check_tag(tag)
    if seed is None:
        seed = secrets.token_hex(4)
        if not json:
            say(f"seed {seed} (repeat this run with --seed {seed})")
    if store:
        svc = service(ctx)
    else:
        from events.sqlite_store import SqliteStore

        svc = GameService(SqliteStore(":memory:"))
    results = []
    seeds = [f"{seed}/{k}" for k in range(games)]
    if is_terminal() and not json:
        from rich.progress import Progress

        with Progress(transient=True) as progress:
            task = progress.add_task("simulating", total=games)
            for s in seeds:
                results.append(_one(svc, game, names, s, policies, tag, store))
                progress.advance(task)
    else:
        for s in seeds:
            results.append(_one(svc, game, names, s, policies, tag, store))
            if json:
                r = dict(results[-1])
                r.pop("winner_seats")
                emit_json(r)
    if json:
        return
    all_scores = [s for r in results for s in r["scores"]]
    say(f"{games} game(s) of {game}, {len(names)} players, bots {bots}")
    say(
        f"scores: min {min(all_scores)}, mean {statistics.fmean(all_scores):.1f}, "
        f"max {max(all_scores)}"
    )
    for seat, name in enumerate(names):
        wins = sum(1 for r in results if seat in r["winner_seats"])
        mean = statistics.fmean(r["scores"][seat] for r in results)
        say(f"  {name} ({policies[seat]}): mean {mean:.1f}, won {wins}/{games} ({100 * wins / games:.0f}%)")


def demo(
    ctx: typer.Context,
    seed: Annotated[str, typer.Option(help="The demo's seed")] = "demo",
    game: Annotated[str, typer.Option(metavar="KIND", help="card-city, 5x5-city or point-city")] = "card-city",
    players: Annotated[int, typer.Option(metavar="N", help="How many bots (1–4)")] = 3,
    quiet: Annotated[Optional[bool], typer.Option("--quiet", help="Only the scores")] = False,
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """A seeded bot game, recorded and printed as it plays.

    Then the scores, and how to replay it.

    \b
    Example:
      citylog demo --game point-city --players 2
    """
    svc = service(ctx)
    parse_players(str(players), game)  # "Card City takes 1–4 players", as new and simulate say
    names = ["ada", "ben", "cy", "dee"][:players]
    gid = svc.create(game, names, seed=seed, bots=dict.fromkeys(range(len(names)), "greedy"))
    loaded = svc.load(gid)
    g = loaded.game
    if json:
        done = g.result(loaded.state)
        emit_json({"game_id": gid, "seq": loaded.version, "players": list(names),
                   "scores": list(done.scores) if done else None,
                   "winners": [names[w] for w in done.winners] if done else None})
        return
    if not quiet:
        for r, e in zip(loaded.records, loaded.events, strict=True):
            say(f"{r.seq:>4}  {g.describe(e, loaded.players)}")
        say_markup(g.render(loaded.state, None))
    result = g.result(loaded.state)
    if result is not None:
        for b in result.breakdowns:
            say_markup(f"[bold]{escape(loaded.players[b.seat])}[/]: {b.total} points")
            for line in b.lines:
                say(f"    {line.points:>4}  {line.detail or line.label}")
    say(f"recorded as game {gid}; replay it with: citylog log {gid}   or   citylog tui {gid}")


def register(app: typer.Typer) -> None:
    app.command("simulate")(guarded(simulate))
    app.command("demo")(guarded(demo))
