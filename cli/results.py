"""Final results as every command prints them (``play``, ``show``, ``autoplay``,
``demo``): each seat's breakdown line by line, then the verdict — the winner, or
the tie and the rule that broke it, or the solo title / the solo opponent's win.

The verdict is worked out from the recorded result (its scores and winners are
the truth, docs/architecture.md, property 1); the breakdowns' tie-break keys only say *why*.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.engine import Breakdown, Game, GameSpec, Result, ScoreLine
from core.markup import escape
from core.words import plural, plurals  # plural re-exported: the CLI's commands count with it


def points(n: int) -> str:
    return plural(n, "point")


def _line_text(line: ScoreLine) -> str:
    detail = plurals(line.detail)
    if not detail:
        return line.label
    if detail.lower().startswith(line.label.lower()[:4]):
        return detail
    return f"{line.label}: {detail}"


def breakdown_lines(players: Sequence[str], breakdowns: Sequence[Breakdown], totals: Sequence[int] | None = None
                    ) -> list[str]:
    """Every seat's score, line by line (rich markup)."""
    out: list[str] = []
    for b in breakdowns:
        total = totals[b.seat] if totals is not None else b.total
        name = players[b.seat] if 0 <= b.seat < len(players) else f"seat {b.seat}"
        out.append(f"[bold]{escape(name)}[/]: {points(total)}")
        for line in b.lines:
            out.append(f"  {line.points:>5}  {escape(_line_text(line))}")
    return out


def opponent_lines(game: Game[Any, Any, Any], state: Any) -> list[str]:
    """The solo opponent's score, line by line, where the game has one
    (:meth:`core.engine.Game.solo_opponent`; other games: none)."""
    bot = game.solo_opponent(state)
    if bot is None:
        return []
    out = [f"[bold]{escape(bot.title)}[/]: {points(bot.total)}"]
    return out + [f"  {x.points:>5}  {escape(_line_text(x))}" for x in bot.lines]


def _names(players: Sequence[str], seats: Sequence[int]) -> str:
    names = [players[s] for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _first_difference(spec: GameSpec, keys: Sequence[tuple[int, ...]]) -> tuple[str, int] | None:
    """The first tie-break key on which ``keys`` differ: (its name, its index)."""
    names = spec.tiebreaks
    width = min((len(k) for k in keys), default=0)
    for i in range(width):
        if len({k[i] for k in keys}) > 1:
            return (names[i] if i < len(names) else f"tie-break {i + 1}", i)
    return None


def verdict(game: Game[Any, Any, Any], players: Sequence[str], state: Any, result: Result) -> str:
    """One sentence: who won and why, the tie and how it was broken, or the solo outcome."""
    spec = game.spec
    scores = result.scores
    by_seat = {b.seat: b for b in result.breakdowns}
    if len(players) == 1:
        return _solo_verdict(game, players[0], state, result)
    winners = tuple(result.winners)
    if not winners:
        return "no winner"
    best = max(scores)
    level = [i for i, s in enumerate(scores) if s == best]
    rule = spec.tiebreak_rule
    cite = f" [{rule}]" if rule else ""
    if len(level) == 1:
        return f"{_names(players, winners)} wins with {points(best)}"
    keys = [by_seat[i].tiebreak if i in by_seat else () for i in level]
    if len(winners) == 1:
        diff = _first_difference(spec, keys)
        how = ""
        if diff is not None:
            what, i = diff
            values = " vs ".join(str(k[i]) for k in keys)
            how = f", broken by {what} ({values})"
        return (f"{_names(players, level)} tie on {points(best)}{how}{cite}: "
                f"{_names(players, winners)} wins")
    tied = [by_seat[i].tiebreak if i in by_seat else () for i in winners]
    still = ""
    names = spec.tiebreaks
    if names and tied and tied[0]:
        still = f", still tied on {names[0]} ({tied[0][0]} each)" if len(names) == 1 else (
            ", still tied on every category")
    return f"a tie: {_names(players, winners)} share the win with {points(best)} each{still}{cite}"


def _solo_verdict(game: Game[Any, Any, Any], player: str, state: Any, result: Result) -> str:
    """A solo game's outcome: against the opponent the rules play, or the title
    the score earns, as the game declares (:class:`core.engine.GameSpec`)."""
    spec = game.spec
    total = result.scores[0]
    mine = result.breakdowns[0] if result.breakdowns else None
    bot = game.solo_opponent(state)
    if bot is not None:
        cite = f" [{spec.opponent_rule}]" if spec.opponent_rule else ""
        shared = mine is not None and mine.total == bot.total and mine.tiebreak == bot.tiebreak
        how = ""
        if bot.total == total and not shared and mine is not None:
            diff = _first_difference(spec, [mine.tiebreak, bot.tiebreak])
            if diff is not None:
                what, i = diff
                how = f", on {what} ({mine.tiebreak[i]} vs {bot.tiebreak[i]})"
        if not result.winners:
            return f"the {bot.title} wins ({points(bot.total)} to {total}{how}){cite}"
        if shared:
            return f"{player} shares the win with the {bot.title} ({points(total)} each){cite}"
        return f"{player} beats the {bot.title} ({points(total)} to {bot.total}{how}){cite}"
    title = mine.title if mine is not None else ""
    if title and spec.solo_title:
        return f"{player} scores {points(total)}: {spec.solo_title.format(title=title)}"
    return f"{player} scores {points(total)}"


def result_lines(game: Game[Any, Any, Any], players: Sequence[str], state: Any, result: Result) -> list[str]:
    """The final results (rich markup): every breakdown, then the verdict."""
    lines = breakdown_lines(players, result.breakdowns, result.scores)
    lines += opponent_lines(game, state)
    lines.append(f"[bold]{escape(verdict(game, players, state, result))}[/]")
    return lines


