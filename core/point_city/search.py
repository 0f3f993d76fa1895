"""The search's model of Point City (:class:`core.engine.SearchModel`): a flat
search over greedy's best few takes and every flip, spent by sequential halving,
each option played on in the same sampled worlds by flip-less greedy for every
seat (common random numbers) and judged a few plies on by the greedy bot's
measure with the resource cards held fading out as the deck runs out
(:func:`core.point_city.bots.leaf_value`); the solo game is played out at random."""

from __future__ import annotations

from typing import ClassVar

from core.engine import SearchModel
from core.point_city import bots, rules
from core.point_city.commands import Command
from core.point_city.state import State, deck_size
from core.rng import Rng

TOP_TAKES = 8
"""The takes (the deck take among them) a flat search compares, by greedy's
measure, beside every flip; sequential halving spends the worlds on the better
ones (bench/RESULTS.md, issue 25, round 3: 4 before)."""


FLAT_PLIES = 4
"""Decisions of flip-less greedy play after an option before greedy's measure is
read (bench/RESULTS.md, issue 25)."""


class PointCitySearch(SearchModel[State, Command]):
    """Policy improvement over greedy: greedy's best takes, played on greedily."""

    flat: ClassVar[bool] = True
    halving: ClassVar[bool] = True
    """Sequential halving: every option a few worlds, the better half more, and so
    on, so that :data:`TOP_TAKES` takes cost no more than 4 did (bench/RESULTS.md,
    issue 25, round 3)."""
    playouts: ClassVar[int] = 200  # ~0.3 s of CPU a move (bench/RESULTS.md, issue 25, round 3)
    flat_leaf: ClassVar[bool] = True
    """Each option is judged by :meth:`leaf_estimate`: :data:`FLAT_PLIES` decisions
    of flip-less greedy for every seat, then the leaf's measure."""

    def random_command(self, state: State, seat: int, rng: Rng) -> Command:
        """A move uniformly, then one of its payments (:func:`core.point_city.rules.random_command`)."""
        return rules.random_command(state, seat, rng)

    def random_step(self, state: State, seat: int, rng: Rng) -> tuple[tuple[object, ...], State]:
        """:meth:`random_command` played, its event made without re-checking the drawn
        command (:func:`core.point_city.rules.random_step`)."""
        return rules.random_step(state, seat, rng, getattr(self.game, "can_take", None))

    def chance_step(self, state: State, rng: Rng) -> tuple[tuple[object, ...], State]:
        """The chance outcome drawn and played at once (:func:`core.point_city.rules.chance_step`)."""
        return rules.chance_step(state, rng, getattr(self.game, "can_take", None))

    def playout_command(self, state: State, seat: int, searcher: int, rng: Rng) -> Command:
        """Greedy over a few random commands (:func:`core.point_city.bots.sampled_greedy`):
        what the analysis's playouts play to the end, cheaply (a few times a random
        playout's cost), and closer to how a game of Point City goes on than random
        play; the solo game's playouts stay random."""
        if state.solo_level:
            return rules.random_command(state, seat, rng)
        return bots.sampled_greedy(state, seat, rng)

    def candidates(self, state: State, seat: int) -> list[Command] | None:
        """Greedy's best :data:`TOP_TAKES` takes and every flip; None (all) in the solo game."""
        if state.solo_level:
            return None
        return bots.candidates(self.game, state, seat, TOP_TAKES)

    def estimate(self, state: State) -> tuple[float, ...] | None:
        """Each seat's score now plus what its producers and resources promise (the
        greedy bot's measure); None in the solo game, which is played out."""
        if state.solo_level:
            return None
        deck = deck_size(state)
        return tuple(bots.seat_value(x, deck) for x in state.seats)

    def leaf_estimate(self, state: State, rng: Rng) -> tuple[float, ...] | None:
        """:func:`core.point_city.bots.leaf_value` after :data:`FLAT_PLIES` decisions
        of flip-less greedy play (two of each seat's: the reply to an option and the
        answer to it, twice): greedy's measure, but the resource cards held fade out
        as the deck runs out; None in the solo game, which is played out."""
        if state.solo_level:
            return None
        return bots.leaf_estimate(self.game, state, rng, FLAT_PLIES, bots.leaf_value)
