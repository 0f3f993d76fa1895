"""Game analysis, as lichess does it for chess, for games with hidden information
(issue 25): every decision judged from what its mover knew, luck told apart from skill.

Pure: no store, no clock, no I/O.  The CLI (``cli/analyse.py``) gives it one
seat's *view* of a game at a time (the events as that seat's exported file has
them, folded), never the referee log, so what it says of a seat's decisions is
computable from that seat's file alone and bad luck is never called a mistake.

Per decision of the seat (:func:`judge_decision`), at the view before it:

* the **best command found**: the game's search (:func:`core.mcts.search`) from
  the view, with ``budget`` playouts;
* then the played and the best command are compared on **common random
  numbers**: ``worlds(budget)`` worlds sampled from the view
  (:meth:`core.engine.Game.determinize`), each played out once after either
  command with the same playout stream (:func:`core.mcts.playout`, the seats
  playing :meth:`core.engine.SearchModel.playout_command`); a decision whose
  loss there reaches a mark's threshold is measured again on :data:`CONFIRM`
  times as many worlds before it is judged;
* every seat's **win chance** (its share of first place, a tie counting half)
  after the best command ("before": the position's value, as lichess reads the
  evaluation before a move as that of the best line) and after the played one
  ("after"), and every seat's expected **score margin** (its score minus the
  best other score; a solo seat's score);
* the **loss**: the mover's win chance after the best command minus after the
  played one, on the same worlds; if the played command does as well there, it
  *is* the best found (loss 0);
* a **mark** (inaccuracy, mistake, blunder) only when the loss reaches its
  threshold (:data:`THRESHOLDS`) *and* the lower confidence bound of the
  paired difference (mean − :data:`Z` × standard error) is above zero.

Across each run of chance events (draws, sets, refills) the seat's win chance
from its view before and after (:func:`judge_chance`, the same sampled worlds
and streams on both sides) changes: that change is **luck**; across its
decisions (after − before, never positive) it is **skill**.

**Accuracy** (:func:`accuracy`) is lichess's (lila ``AccuracyPercent``), from
win-chance losses in percentage points: a decision's accuracy is
``103.1668 · exp(−0.04354 · loss%) − 3.1669 + 1`` clamped to 0–100 (100 for no
loss); a seat's accuracy is the mean of the volatility-weighted mean and the
harmonic mean of its decisions' accuracies, each decision weighted by the
standard deviation (clamped to 0.5–12) of the seat's win chances over a window
of ``clamp(n / 10, 2, 8)`` decisions around it.

Deterministic: every stream is derived from (game id, seq, budget, seat) alone
(:func:`stream_key`), so the answer is the same whatever the order or the
process a decision is judged in (``--jobs``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import msgspec

from core.engine import CHANCE, Game, decisions
from core.mcts import Budget, _step, playout, search
from core.rng import Rng

ENGINE_VERSION = "an-3"
"""The analysis's own version: part of every stored result's key, bumped
whenever what a judgement computes changes (search, playouts, worlds)."""

THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.15), ("mistake", 0.10), ("inaccuracy", 0.05))
"""Win-chance losses (0–1) that earn a mark, the worst first: lichess's 0.3 / 0.2 /
0.1 on its −1..1 winning-chances scale, i.e. 15 / 10 / 5 points on 0–1.
Provisional: issue 25 asks for them to be calibrated on bot games."""

Z = 1.645
"""One-sided 95%: a mark needs ``loss − Z · se > 0`` on the paired worlds."""

CONFIRM = 4
"""A decision whose loss on the first ``worlds(budget)`` worlds reaches the
smallest mark's threshold is measured again on ``CONFIRM`` times as many (the
first ones kept, the new ones drawn from their own streams), and judged on all
of them: a mark is a claim, so the few decisions that may earn one get the
playouts to back it, while the many that cannot cost no more."""


def worlds(budget: int) -> int:
    """The sampled worlds the played and the best command are compared on (and a
    chance run is judged on): half the budget, at least 4."""
    return max(4, budget // 2)


def stream_key(game_id: str, seq: int, budget: int, player: str) -> str:
    """The root of every stream of one judgement (nothing the seat cannot see:
    the game id, the seq, the budget, the seat's name)."""
    return f"citylog/analyse/{game_id}/{seq}/{budget}/{player}"


class DecisionJudgement(msgspec.Struct, frozen=True, tag="decision"):
    seq: int
    """The seq of the decision's own (first) event."""
    seat: int
    played: str
    best: str
    """The best command found: the played one where it did as well on the common worlds."""
    search_best: str
    """What the search chose (before the comparison)."""
    forced: bool
    """The seat had one legal command."""
    before: tuple[float, ...]
    """Each seat's win chance after the best command (the position's value)."""
    after: tuple[float, ...]
    """Each seat's win chance after the played command."""
    margin_before: tuple[float, ...]
    margin_after: tuple[float, ...]
    loss: float
    """The mover's win chance lost, 0–1 (never negative)."""
    lcb: float
    """The lower confidence bound of the loss (mean − Z · se of the paired differences)."""
    mark: str | None
    worlds: int


class ChanceJudgement(msgspec.Struct, frozen=True, tag="chance"):
    first: int
    last: int
    """The seqs of the chance run (inclusive)."""
    seat: int
    """Whose view it is judged from."""
    before: tuple[float, ...]
    after: tuple[float, ...]
    luck: float
    """The seat's win chance after the run minus before it."""
    worlds: int


class Task(msgspec.Struct, frozen=True):
    """One judgement to make: a decision of ``seat`` (``played`` set) or a chance run."""

    kind: str
    seat: int
    first: int
    last: int
    key: str
    before: Any
    after: Any = None
    played: Any = None


def tasks(game: Game[Any, Any, Any], events: Sequence[Any], states: Sequence[Any], seat: int,
          game_id: str, budget: int, player: str) -> list[Task]:
    """What to judge in ``seat``'s view (``events``/``states`` its fold): each of its
    decisions and each run of chance events, in order."""
    out: list[Task] = []
    run: list[Any] = []

    def close_run() -> None:
        if run:
            a, b = run[0], run[-1]
            out.append(Task("chance", seat, a.start + 1, b.end, stream_key(game_id, a.start + 1, budget, player),
                            game.view(states[a.start - 1], seat), game.view(states[b.end - 1], seat)))
            run.clear()

    for d in decisions(game, events):
        if d.seat == CHANCE:
            if run and run[-1].end != d.start:
                close_run()
            run.append(d)
            continue
        close_run()
        if d.seat == seat:
            out.append(Task("decision", seat, d.start + 1, d.end, stream_key(game_id, d.start + 1, budget, player),
                            game.view(states[d.start - 1], seat), played=d.command))
    close_run()
    return out


def _outcome(game: Game[Any, Any, Any], end: Any, n: int) -> tuple[list[float], list[float]]:
    """Each seat's win share (first place; a two-way tie counts half, a k-way tie 1/k) and score margin."""
    result = game.result(end)
    if result is None:
        raise RuntimeError("a playout did not end the game")
    wins = [1 / len(result.winners) if s in result.winners else 0.0 for s in range(n)]
    margins = []
    for s in range(n):
        others = [v for i, v in enumerate(result.scores) if i != s]
        margins.append(float(result.scores[s] - max(others)) if others else float(result.scores[s]))
    return wins, margins


def _mean(rows: list[list[float]]) -> tuple[float, ...]:
    return tuple(sum(col) / len(rows) for col in zip(*rows))


def _played_out(game: Game[Any, Any, Any], world: Any, seat: int, command: Any, key: str, j: int, n: int) -> tuple[list[float], list[float]]:
    start = world if command is None else _step(game, world, seat, command)
    if not game.to_act(start):
        return _outcome(game, start, n)
    return _outcome(game, playout(game, start, Rng(f"{key}/playout/{j}".encode()), seat), n)


def judge_decision(game: Game[Any, Any, Any], task: Task, budget: int) -> DecisionJudgement:
    view, seat, played, key = task.before, task.seat, task.played, task.key
    n = len(game.players(view))
    k = worlds(budget)
    legal = list(game.legal(view, seat))
    forced = len(legal) <= 1
    if forced:
        best = played
    else:
        best = search(game, view, seat, Rng(f"{key}/search".encode()), Budget(budget))[0].command
    wins_b: list[list[float]] = []
    wins_p: list[list[float]] = []
    marg_b: list[list[float]] = []
    marg_p: list[list[float]] = []

    def measure(worlds_from: int, worlds_to: int) -> None:
        for j in range(worlds_from, worlds_to):
            world = game.determinize(view, seat, Rng(f"{key}/world/{j}".encode()))
            wp, mp = _played_out(game, world, seat, played, key, j, n)
            wb, mb = (wp, mp) if best == played else _played_out(game, world, seat, best, key, j, n)
            wins_b.append(wb)
            wins_p.append(wp)
            marg_b.append(mb)
            marg_p.append(mp)

    measure(0, k)
    if best != played and _loss(wins_b, wins_p, seat) >= THRESHOLDS[-1][1] - 1e-12:
        measure(k, CONFIRM * k)  # a loss that would earn a mark is measured again, on more worlds
        k = CONFIRM * k
    diffs = [b[seat] - p[seat] for b, p in zip(wins_b, wins_p)]
    loss = sum(diffs) / k
    found = best
    if loss <= 0:  # the played command did as well on the same worlds: it is the best found
        found, wins_b, marg_b, diffs, loss = played, wins_p, marg_p, [0.0] * k, 0.0
    var = sum((d - loss) ** 2 for d in diffs) / (k - 1) if k > 1 else 0.0
    lcb = loss - Z * math.sqrt(var / k)
    return DecisionJudgement(
        seq=task.first, seat=seat, played=game.format_command(played), best=game.format_command(found),
        search_best=game.format_command(best), forced=forced,
        before=_mean(wins_b), after=_mean(wins_p), margin_before=_mean(marg_b), margin_after=_mean(marg_p),
        loss=loss, lcb=lcb, mark=mark_of(loss, lcb), worlds=k,
    )


def _loss(wins_b: list[list[float]], wins_p: list[list[float]], seat: int) -> float:
    return sum(b[seat] - p[seat] for b, p in zip(wins_b, wins_p)) / len(wins_b)


def mark_of(loss: float, lcb: float) -> str | None:
    """The mark a loss earns: the worst threshold it reaches, if its lower bound is above zero."""
    if lcb <= 0:
        return None
    for name, threshold in THRESHOLDS:
        if loss >= threshold - 1e-12:
            return name
    return None


def judge_chance(game: Game[Any, Any, Any], task: Task, budget: int) -> ChanceJudgement:
    seat, key = task.seat, task.key
    k = worlds(budget)
    sides = []
    for view in (task.before, task.after):
        n = len(game.players(view))
        rows = []
        for j in range(k):
            world = game.determinize(view, seat, Rng(f"{key}/world/{j}".encode()))
            rows.append(_played_out(game, world, seat, None, key, j, n)[0])
        sides.append(_mean(rows))
    before, after = sides
    return ChanceJudgement(task.first, task.last, seat, before, after, after[seat] - before[seat], k)


def judge(game: Game[Any, Any, Any], task: Task, budget: int) -> DecisionJudgement | ChanceJudgement:
    return judge_decision(game, task, budget) if task.kind == "decision" else judge_chance(game, task, budget)


# -- accuracy (lichess's) ---------------------------------------------------------
def move_accuracy(before: float, after: float) -> float:
    """lila's ``AccuracyPercent.fromWinPercents`` on win chances 0–1."""
    if after >= before:
        return 100.0
    drop = 100 * (before - after)
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 3.166924740191411 + 1
    return min(100.0, max(0.0, raw))


def _stdev(xs: Sequence[float]) -> float:
    if len(xs) < 2:
        return 0.0
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def accuracy(pairs: Sequence[tuple[float, float]]) -> float | None:
    """A seat's accuracy, 0–100, from its decisions' (win chance before, after),
    as lila's ``gameAccuracy``: the mean of the volatility-weighted mean and the
    harmonic mean of the decisions' accuracies.  None: no decision."""
    if not pairs:
        return None
    accs = [move_accuracy(b, a) for b, a in pairs]
    series = [100 * pairs[0][0]] + [100 * a for _, a in pairs]
    size = min(8, max(2, len(pairs) // 10))
    windows = [series[:size]] * max(0, min(size, len(series)) - 2) + [
        series[i : i + size] for i in range(max(1, len(series) - size + 1))
    ]
    weights = [min(12.0, max(0.5, _stdev(w))) for w in windows][: len(accs)]
    weights += [0.5] * (len(accs) - len(weights))
    weighted = sum(x * w for x, w in zip(accs, weights)) / sum(weights)
    harmonic = len(accs) / sum(1 / max(x, 1e-9) for x in accs) if all(x > 0 for x in accs) else 0.0
    return (weighted + harmonic) / 2


class SeatSummary(msgspec.Struct, frozen=True):
    player: str
    decisions: int
    accuracy: float | None
    skill: float
    """Win chance gained across the seat's decisions (−(sum of losses))."""
    luck: float
    """Win chance gained across chance events, from the seat's view."""
    marks: dict[str, int]
    result: float | None
    """The seat's final win share, once the game is over."""
    adjusted: float | None
    """``result − luck``: the result with the seat's luck taken out."""


def summarize(player: str, judged: Sequence[DecisionJudgement | ChanceJudgement], result: float | None) -> SeatSummary:
    ds = [j for j in judged if isinstance(j, DecisionJudgement)]
    cs = [j for j in judged if isinstance(j, ChanceJudgement)]
    marks = {name: sum(1 for d in ds if d.mark == name) for name, _ in reversed(THRESHOLDS)}
    luck = sum(c.luck for c in cs)
    return SeatSummary(
        player=player, decisions=len(ds),
        accuracy=accuracy([(d.before[d.seat], d.after[d.seat]) for d in ds]),
        skill=-sum(d.loss for d in ds), luck=luck, marks=marks,
        result=result, adjusted=None if result is None else result - luck,
    )
