"""The search's model of 5x5 City (:class:`core.engine.SearchModel`): a flat
search over greedy's best few options, played out greedily."""

from __future__ import annotations

from typing import ClassVar

from core.engine import SearchModel
from core.five_by_five import commands as cm
from core.five_by_five import rules
from core.five_by_five.bots import candidates, playout_command
from core.five_by_five.state import State
from core.rng import Rng


class FiveByFiveSearch(SearchModel[State, cm.Command]):
    """Each set on offer is played out to the end in the same sampled worlds, by
    sequential halving: with three sets on offer, 32 worlds each, then 48 more
    for the better two (a set choice at 48 playouts, 16 worlds a set, picked
    the set a 480-playout search picks in half of the positions tried: the
    choices were noise; bench/RESULTS.md, issue 25)."""

    flat: ClassVar[bool] = True
    halving: ClassVar[bool] = True
    playouts: ClassVar[int] = 192  # about 0.8 s of CPU a move on average (bench/RESULTS.md)

    def random_command(self, state: State, seat: int, rng: Rng) -> cm.Command:
        """Uniform over the legal commands (:func:`core.five_by_five.rules.random_command`)."""
        return rules.random_command(state, seat, rng)

    def playout_command(self, state: State, seat: int, searcher: int, rng: Rng) -> cm.Command:
        """Greedy for the other seats, greedy on the outlook for the searcher: random
        placements say little, and the bots a seat meets play greedy."""
        return playout_command(state, seat, searcher, rng)

    def candidates(self, state: State, seat: int) -> list[cm.Command] | None:
        """Greedy's best few placements or park moves (search prunes to these)."""
        return candidates(state, seat)
