"""The search's model of Point City (:class:`core.engine.SearchModel`): random
playouts that sample a move then a payment, and a greedy measure read at each
new leaf after two plies of flip-less greedy play (not in the solo game)."""

from __future__ import annotations

from typing import ClassVar

from core.engine import SearchModel
from core.point_city import bots, rules
from core.point_city.commands import Command
from core.point_city.state import State, deck_size
from core.rng import Rng


class PointCitySearch(SearchModel[State, Command]):
    """The tree search, its leaves judged by the greedy bot's measure."""

    playouts: ClassVar[int] = 200  # 0.37-0.47 s of CPU a move (bench/RESULTS.md)

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

    def estimate(self, state: State) -> tuple[float, ...] | None:
        """Each seat's score now plus what its producers and resources promise (the
        greedy bot's measure); None in the solo game, which is played out."""
        if state.solo_level:
            return None
        deck = deck_size(state)
        return tuple(bots.seat_value(x, deck) for x in state.seats)

    def leaf_estimate(self, state: State, rng: Rng) -> tuple[float, ...] | None:
        """The measure after two plies of flip-less greedy play (the other seat's
        reply and the searcher's answer); None in the solo game."""
        if state.solo_level:
            return None
        return bots.leaf_estimate(self.game, state, rng)
