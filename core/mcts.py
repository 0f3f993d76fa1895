"""Information-set Monte Carlo tree search, for every game through the engine contract.

A bot that searches from what its seat sees, never the true state (docs/architecture.md,
property 5): each iteration samples a state consistent with the seat's view
(:meth:`core.engine.Game.determinize`), walks one shared tree of decisions
keyed by the commands played (single-observer ISMCTS, Cowling, Powley &
Whitehouse 2012: a child is selectable when its command is legal in this
sample, UCB1 counting its availability), plays the game out with random
commands (:meth:`core.engine.SearchModel.random_command`), and backs up each seat's reward at the nodes where that seat
decided.  Chance is not in the tree (open loop): the sample's chance outcomes
come from the search's own stream.  A game whose random playouts say little
gives an estimate of each seat's final score (:meth:`core.engine.SearchModel.estimate`,
5x5 City's and Point City's greedy measures); the simulation then stops at the
new leaf and scores the estimate instead of playing out (read through
:meth:`core.engine.SearchModel.leaf_estimate`, which is the estimate itself unless the
game plays a few cheap plies first: Point City, two of flip-less greedy).  A
game may also name the commands worth expanding (:meth:`core.engine.SearchModel.candidates`, 5x5 City:
greedy's placement), so the tree spends its playouts on the decisions its
estimate can tell apart.  A game whose informative playouts are costly
(:attr:`core.engine.SearchModel.flat`, 5x5 City) is searched flat instead:
every root option is played out to the end in the same sampled worlds, with
the same chance stream (common random numbers), the seats playing
:meth:`core.engine.SearchModel.playout_command` (5x5 City: greedy for the others, a
greedy with an outlook for the searcher; Card City: a quick greedy for every
seat), and the option with the best mean reward is played (the win share with a
little for the margin, unless the game says otherwise:
:meth:`core.engine.SearchModel.reward`, Card City's margin counting as much).
A game whose full playouts are too costly for enough worlds scores each option
by its leaf estimate instead (:attr:`core.engine.SearchModel.flat_leaf`; Point
City: four plies of flip-less greedy).

Deterministic: the only randomness is the ``Rng`` passed in, and the budget is
a number of playouts (an explicit time budget, ``ms``, is the one exception,
and is opt-in).  The answer depends on the view alone, so two true states with
the same view for the seat get the same command.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from typing import Any

import msgspec

from core.engine import CHANCE, Game, Result
from core.rng import Rng

EXPLORATION = 0.7
"""UCB1's exploration constant (rewards lie in [0, 1])."""
SOLO_SCALE = 100.0
"""The score scale of a solo game's estimated leaves."""


class Budget(msgspec.Struct, frozen=True):
    playouts: int = 0
    """Playouts a move; 0: the game's :attr:`~core.engine.SearchModel.playouts`."""
    ms: int = 0
    """A wall-clock limit in milliseconds (0: none).  Opt-in: it makes the choice
    depend on the machine's speed, so it is never the default."""


class Choice(msgspec.Struct, frozen=True):
    """A root command's search statistics (for hints)."""

    command: Any
    visits: int
    value: float
    """Mean reward for the searching seat, 0–1 (a win share with a score margin)."""


class Node:
    __slots__ = ("seat", "children", "visits", "avail", "total")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        """The seat that decided the command leading here (-1 at the root)."""
        self.children: dict[Hashable, Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0

    def ucb(self, c: float) -> float:
        return self.total / self.visits + c * math.sqrt(math.log(self.avail) / self.visits)


def rewards(result: Result, seats: int) -> list[float]:
    """Each seat's reward: a win share (0.8) plus where its score lies between the
    lowest and the highest (0.2), so the search also plays for points."""
    return _rewards(result.scores, result.winners, seats)


def _rewards(scores: tuple[float, ...], winners: tuple[int, ...], seats: int) -> list[float]:
    lo, hi = min(scores), max(scores)
    span = (hi - lo) or 1
    out = []
    for s in range(seats):
        win = 1 / len(winners) if s in winners else 0.0
        out.append(0.8 * win + 0.2 * (scores[s] - lo) / span)
    return out


def _estimated(estimate: tuple[float, ...], seats: int) -> list[float]:
    """Rewards from estimated scores, smooth in the margin: each seat's lead over the
    best of the others, squashed into (0, 1) on a scale of a tenth of the scores
    (a win share would call every move equal while one seat is ahead anyway)."""
    if seats == 1:  # solo: the score itself, on a fixed scale (larger is better)
        return [0.5 + 0.5 * math.tanh(estimate[0] / SOLO_SCALE)]
    scale = max(3.0, 0.1 * max(abs(v) for v in estimate))
    out = []
    for s in range(seats):
        lead = estimate[s] - max(v for i, v in enumerate(estimate) if i != s)
        out.append(0.5 + 0.5 * math.tanh(lead / scale))
    return out


def _actor(game: Game[Any, Any, Any], state: Any) -> int | None:
    actors = game.to_act(state)
    return actors[0] if actors else None


def _step(game: Game[Any, Any, Any], state: Any, seat: int, command: Any) -> Any:
    return game.step(state, seat, command)[1]


def _chance(game: Game[Any, Any, Any], state: Any, rng: Rng) -> tuple[Any, int | None]:
    """Play pending chance outcomes; the state and who decides next (None: over)."""
    seat = _actor(game, state)
    while seat == CHANCE:
        state = _step(game, state, CHANCE, game.chance(state, rng))
        seat = _actor(game, state)
    return state, seat


def playout(game: Game[Any, Any, Any], state: Any, rng: Rng, searcher: int | None = None) -> Any:
    """Random play to the end: every seat plays :meth:`SearchModel.random_command`
    (uniform over the legal commands unless the game samples otherwise), played by
    :meth:`SearchModel.random_step` and chance by :meth:`SearchModel.chance_step`
    (the rules' ``step`` unless the game makes its drawn events at once), or, for
    ``searcher``'s flat search, :meth:`SearchModel.playout_command`."""
    model = game.search
    # the methods looked up once (the hot loop of the search)
    to_act, step = game.to_act, game.step
    random_step, chance_step = model.random_step, model.chance_step
    while True:
        actors = to_act(state)
        while actors and actors[0] == CHANCE:
            state = chance_step(state, rng)[1]
            actors = to_act(state)
        if not actors:
            return state
        seat = actors[0]
        if searcher is None:
            state = random_step(state, seat, rng)[1]
        else:
            state = step(state, seat, model.playout_command(state, seat, searcher, rng))[1]


def search(
    game: Game[Any, Any, Any], view: Any, seat: int, rng: Rng, budget: Budget = Budget()
) -> list[Choice]:
    """The root commands of ``seat`` from its ``view``, with visits and values, best first."""
    options = list(game.legal(view, seat))
    if not options:
        raise ValueError(f"seat {seat} has no legal command")
    n = len(game.players(view))
    root = Node(-1)
    searched = _options(game, view, seat)
    playouts = budget.playouts or game.search.playouts
    if len(searched) > 1:
        deadline = time.perf_counter() + budget.ms / 1000 if budget.ms else None
        if game.search.flat:
            _flat(game, view, seat, rng, playouts, root, searched, n, deadline)
        else:
            for _ in range(playouts):
                _iterate(game, game.determinize(view, seat, rng), root, rng, n)
                if deadline is not None and time.perf_counter() > deadline:
                    break
    out = []
    for cmd in options:
        child = root.children.get(cmd)
        visits = child.visits if child else 0
        out.append(Choice(cmd, visits, child.total / visits if child and visits else 0.0))
    # the most visited first; unvisited, the game's candidates first (in its order)
    rank = {cmd: i for i, cmd in enumerate(searched)}
    order = sorted(
        range(len(out)),
        key=lambda i: (-out[i].visits, -out[i].value, rank.get(out[i].command, len(rank)), i),
    )
    return [out[i] for i in order]


def _flat(
    game: Game[Any, Any, Any],
    view: Any,
    seat: int,
    rng: Rng,
    playouts: int,
    root: Node,
    options: list[Any],
    n: int,
    deadline: float | None,
) -> None:
    """:attr:`SearchModel.flat`: ``playouts // len(options)`` sampled worlds (at
    least one), each played out once after every option with the same chance
    stream (common random numbers: the options are compared on the same
    futures), the seats playing :meth:`SearchModel.playout_command`; or, with
    :attr:`SearchModel.halving`, the same by rounds of sequential halving."""
    if not game.search.halving or len(options) <= 2:
        _worlds(game, view, seat, rng, max(1, playouts // len(options)), root, options, n, deadline)
        return
    rounds = math.ceil(math.log2(len(options)))
    alive = list(options)
    for r in range(rounds):
        _worlds(game, view, seat, rng, max(1, playouts // (rounds * len(alive))), root, alive, n, deadline)
        if r == rounds - 1 or (deadline is not None and time.perf_counter() > deadline):
            break
        # the better half stays in (ties: the earlier, i.e. the game's candidate order)
        ranked = sorted(range(len(alive)), key=lambda i: (-root.children[alive[i]].total, i))
        alive = [alive[i] for i in sorted(ranked[: (len(alive) + 1) // 2])]


def _worlds(
    game: Game[Any, Any, Any],
    view: Any,
    seat: int,
    rng: Rng,
    count: int,
    root: Node,
    options: list[Any],
    n: int,
    deadline: float | None,
) -> None:
    """``count`` sampled worlds, each played out once after every option in ``options``
    with one chance stream; every option's node gets one visit a world, valued by
    :func:`_option_value`."""
    for _ in range(count):
        world = game.determinize(view, seat, rng)
        key = b"citylog/flat/%d" % rng.bits(64)
        for command in options:
            value = _option_value(game, _step(game, world, seat, command), Rng(key), seat, n)
            child = root.children.get(command)
            if child is None:
                child = root.children[command] = Node(seat)
            child.visits += 1
            child.avail += 1
            child.total += value
        if deadline is not None and time.perf_counter() > deadline:
            break


def _option_value(game: Game[Any, Any, Any], state: Any, rng: Rng, seat: int, n: int) -> float:
    """A flat search's reward for ``seat`` from ``state``: played out to the end
    (:func:`_played`), or, when the game sets :attr:`SearchModel.flat_leaf`, its
    :meth:`SearchModel.leaf_estimate` scored (:func:`_estimated`; a game over is
    measured so too, so that every option is on one scale), unless it gives None."""
    guess = game.search.leaf_estimate(state, rng) if game.search.flat_leaf else None
    if guess is not None:
        return _estimated(guess, n)[seat]
    result = game.result(playout(game, state, rng, seat))
    if result is None:
        raise RuntimeError("a playout did not end the game")
    value = game.search.reward(result, seat)
    return _played(result, seat) if value is None else value


def _played(result: Result, seat: int) -> float:
    """A flat search's reward for ``seat``: its win share (0.9) plus a little for
    its lead over the best other score (0.1, squashed on a scale of 10 points),
    so options winning equally often are told apart by the margin."""
    win = 1 / len(result.winners) if seat in result.winners else 0.0
    others = [v for i, v in enumerate(result.scores) if i != seat]
    lead = result.scores[seat] - max(others) if others else result.scores[seat]
    return 0.9 * win + 0.1 * (0.5 + 0.5 * math.tanh(lead / 10))


def _options(game: Game[Any, Any, Any], state: Any, seat: int) -> list[Any]:
    """The commands the tree expands: the game's candidates, or every legal one."""
    chosen = game.search.candidates(state, seat)
    return list(game.legal(state, seat)) if chosen is None else chosen


def _iterate(game: Game[Any, Any, Any], state: Any, root: Node, rng: Rng, n: int) -> None:
    path = [root]
    node = root
    while True:
        state, seat = _chance(game, state, rng)
        if seat is None:
            break
        options = _options(game, state, seat)
        untried = [c for c in options if c not in node.children]
        for c in options:
            child = node.children.get(c)
            if child is not None:
                child.avail += 1
        if untried:
            command = untried[rng.below(len(untried))]
            child = node.children[command] = Node(seat)
            child.avail += 1
            path.append(child)
            state = _step(game, state, seat, command)
            guess = game.search.leaf_estimate(state, rng) if game.to_act(state) else None
            if guess is not None:
                _backup(path, _estimated(guess, n))
                return
            state = playout(game, state, rng)
            break
        command = max(options, key=lambda c: node.children[c].ucb(EXPLORATION))
        node = node.children[command]
        path.append(node)
        state = _step(game, state, seat, command)
    result = game.result(state)
    if result is None:
        raise RuntimeError("a playout did not end the game")
    _backup(path, rewards(result, n))


def _backup(path: list[Node], r: list[float]) -> None:
    for v in path:
        v.visits += 1
        if v.seat >= 0:
            v.total += r[v.seat]


def mcts_bot(budget: Budget) -> Any:
    """A bot (``core.engine.Bot``) searching with ``budget``."""

    def bot(game: Game[Any, Any, Any], view: Any, seat: int, rng: Rng) -> Any:
        return search(game, view, seat, rng, budget)[0].command

    bot.__name__ = f"mcts_{budget.playouts or 'default'}"
    return bot
