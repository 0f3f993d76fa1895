"""Many games at once: ``simulate``; and ``demo``, the README's first command."""

from __future__ import annotations

import math
import statistics
from typing import Annotated, Any, Optional

import typer

from cli.context import service
from cli.errors import guarded
from cli.games import parse_options, parse_players
from cli.output import emit_json, is_terminal, say, say_markup
from cli.results import result_lines
from cli.options import Json
from core import registry
from core.engine import normalize_options
from events.service import GameService, ServiceError


def _policies(text: str, n: int) -> dict[int, str]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) == 1:
        return dict.fromkeys(range(n), parts[0])
    if len(parts) != n:
        raise ServiceError(f"--bots: give one policy, or one per seat ({n})")
    return dict(enumerate(parts))


def _one(
    svc: GameService, game: str, names: list[str], seed: str, bots: dict[int, str], options: dict[str, str],
    tag: str | None = None, keep: bool = True,
) -> dict[str, Any]:
    """One bot game and its result; ``keep`` False (``--no-store``): forgotten once
    scored, so a long run's memory does not grow with its games."""
    with svc.store.transaction():  # stored with its tag, or not at all
        gid = svc.create(game, names, seed=seed, bots=bots, options=options)
        if tag:
            svc.tag(gid, [tag])
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


# t(0.975, df) for df = 1..30; beyond, the normal 1.96
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)
INTERVAL = "95% confidence interval of the mean: mean ± t(0.975, n−1) × sd / √n (Student's t; 1.96 beyond n = 31)"


def spread(values: list[float]) -> dict[str, Any]:
    """Mean, sample sd, median and the 95% interval of the mean (:data:`INTERVAL`).

    >>> spread([1, 2, 3])["ci95"]
    [-0.484, 4.484]
    """
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    half = (_T975[n - 2] if n - 1 <= len(_T975) else 1.96) * sd / math.sqrt(n) if n > 1 else 0.0
    return {
        "mean": round(mean, 3),
        "sd": round(sd, 3),
        "median": statistics.median(values),
        "ci95": [round(mean - half, 3), round(mean + half, 3)],
    }


def outcome(seat: int, winner_seats: list[int]) -> str:
    """``win`` (alone), ``tie`` (a shared win) or ``loss`` (also: a solo opponent won)."""
    if seat not in winner_seats:
        return "loss"
    return "win" if len(winner_seats) == 1 else "tie"


def summarize(
    game: str, names: list[str], policies: dict[int, str], options: dict[str, str], seed: str,
    results: list[dict[str, Any]],
) -> dict[str, Any]:
    """Per seat: wins, ties and losses (they sum to the games played), and the
    spread of its score and of its margin (its score − the best other score)."""
    k = len(results)
    seats = []
    for seat, name in enumerate(names):
        counts = {"win": 0, "tie": 0, "loss": 0}
        for r in results:
            counts[outcome(seat, r["winner_seats"])] += 1
        scores = [r["scores"][seat] for r in results]
        entry: dict[str, Any] = {
            "player": name,
            "bot": policies[seat],
            "wins": counts["win"],
            "ties": counts["tie"],
            "losses": counts["loss"],
            "win_pct": round(100 * counts["win"] / k, 2),
            "tie_pct": round(100 * counts["tie"] / k, 2),
            "loss_pct": round(100 * counts["loss"] / k, 2),
            "score": spread(scores),
        }
        if len(names) > 1:
            margins = [
                r["scores"][seat] - max(x for i, x in enumerate(r["scores"]) if i != seat) for r in results
            ]
            entry["margin"] = spread(margins)
        seats.append(entry)
    return {
        "game": game,
        "games": k,
        "seed": seed,
        "players": names,
        "options": options,
        "seats": seats,
        "interval": INTERVAL,
    }


def _table(summary: dict[str, Any], bots: str) -> list[str]:
    opts = ", ".join(f"{k}={v}" for k, v in summary["options"].items())
    k = summary["games"]
    out = [
        f"{k} game{'s' if k != 1 else ''} of {summary['game']}, {len(summary['players'])} "
        f"player{'s' if len(summary['players']) != 1 else ''}, bots {bots}" + (f"; options {opts}" if opts else ""),
    ]
    width = max(len("seat (bot)"), *(len(f"{s['player']} ({s['bot']})") for s in summary["seats"]))
    out.append(f"{'seat (bot)':<{width}}  {'win':>13}  {'tie':>13}  {'loss':>13}")

    def pct(n: int) -> str:
        return f"{n} ({100 * n / k:.1f}%)"

    def sp(x: dict[str, Any]) -> str:
        lo, hi = x["ci95"]
        return f"mean {x['mean']:.1f}, sd {x['sd']:.1f}, median {x['median']:g}, 95% CI [{lo:.1f}, {hi:.1f}]"

    for s in summary["seats"]:
        out.append(f"{s['player'] + ' (' + s['bot'] + ')':<{width}}  {pct(s['wins']):>13}  "
                   f"{pct(s['ties']):>13}  {pct(s['losses']):>13}")
        out.append(f"{'':<{width}}  score:  {sp(s['score'])}")
        if "margin" in s:
            out.append(f"{'':<{width}}  margin: {sp(s['margin'])}")
    out.append("a shared win counts as a tie; margin = the seat's score − the best other score")
    out.append(INTERVAL)
    return out


def simulate(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(metavar="KIND", help=registry.kinds())],
    players: Annotated[str, typer.Option(help="A count or names")],
    seed: Annotated[
        Optional[str], typer.Option(help="Game k gets seed SEED/k (default: a fresh one, printed to repeat the run)")
    ] = None,
    games: Annotated[int, typer.Option(min=1, help="How many games")] = 1,
    bots: Annotated[
        str, typer.Option(help="POLICY, or one per seat: greedy,random (default greedy, as autoplay)")
    ] = "greedy",
    option: Annotated[list[str], typer.Option("--option", metavar="KEY=VALUE", help="A game option, repeatable (as for 'new')")] = [],  # noqa: B006
    tag: Annotated[
        str, typer.Option(help="Store the games under this tag ('': none); list hides tag sim unless asked")
    ] = "sim",
    store: Annotated[
        bool, typer.Option("--store/--no-store", help="Keep the games in the database, or in memory only")
    ] = True,
    progress: Annotated[
        Optional[bool], typer.Option("--progress/--no-progress", help="A progress bar (default: on a terminal)")
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="One line per game, then one summary object")] = False,
) -> None:
    """Many complete bot games, with statistics per seat.

    Win/tie/loss (a shared win is a tie), and the mean, sd, median and 95%
    interval of score and margin.  The games are stored tagged sim (so
    'citylog list' leaves them out: see them with --tag sim), or kept in
    memory only with --no-store.

    \b
    Example:
      citylog simulate 5x5-city --players 3 --games 100 --bots greedy,random,random
      citylog simulate card-city --players 2 --games 20 --option parking-meters=yes --no-store
    """
    import secrets

    from events.store import check_tag

    names = parse_players(players, game)
    policies = _policies(bots, len(names))
    options = parse_options(option)
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
    show_progress = progress if progress is not None else (is_terminal() and not json)

    def each(s: str) -> None:
        results.append(_one(svc, game, names, s, policies, options, tag, store))
        if json:
            r = dict(results[-1])
            r.pop("winner_seats")
            if not store:  # an in-memory game's id names nothing afterwards
                r.pop("game_id", None)
            emit_json(r)

    if show_progress:
        from rich.console import Console
        from rich.progress import Progress

        on_stderr = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
        with Progress(transient=True, console=on_stderr) as bar:
            task = bar.add_task("simulating", total=games)
            for s in seeds:
                each(s)
                bar.advance(task)
    else:
        for s in seeds:
            each(s)
    spec = registry.get(game).spec
    summary = summarize(game, names, policies, normalize_options(spec, options), seed, results)
    if json:
        emit_json({"summary": summary})
        return
    for line in _table(summary, bots):
        say(line)


def demo(
    ctx: typer.Context,
    seed: Annotated[str, typer.Option(help="The demo's seed")] = "demo",
    game: Annotated[str, typer.Option(metavar="KIND", help=registry.kinds())] = registry.names()[0],
    players: Annotated[int, typer.Option(metavar="N", help="How many bots (1–4)")] = 3,
    quiet: Annotated[Optional[bool], typer.Option("--quiet", help="Only the scores")] = False,
    json: Json = False,
) -> None:
    """A seeded bot game, recorded and printed as it plays.

    Then the scores, and how to replay it.

    \b
    Example:
      citylog demo --game point-city --players 2
    """
    svc = service(ctx)
    parse_players(str(players), game)  # "<title> takes 1–4 players", as new and simulate say
    names = ["ada", "ben", "cy", "dee"][:players]
    policies = registry.get(game).bots  # greedy where the game has it, else its first policy
    policy = "greedy" if "greedy" in policies else next(iter(policies))
    gid = svc.create(game, names, seed=seed, bots=dict.fromkeys(range(len(names)), policy))
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
        for line in result_lines(g, loaded.players, loaded.state, result):
            say_markup(line)
    say(f"recorded as game {gid}; replay it with: citylog log {gid}   or   citylog tui {gid}")


def register(app: typer.Typer) -> None:
    app.command("simulate")(guarded(simulate))
    app.command("demo")(guarded(demo))
