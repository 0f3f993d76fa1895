"""The search's model of Card City (:class:`core.engine.SearchModel`): random
playouts, drawn without listing every construction square, the tree search."""

from __future__ import annotations

from typing import ClassVar

from core.card_city import rules
from core.card_city.commands import Command
from core.card_city.state import State
from core.engine import SearchModel
from core.rng import Rng


class CardCitySearch(SearchModel[State, Command]):
    """Random playouts to the end; no estimate, every legal command expanded."""

    playouts: ClassVar[int] = 60  # 0.18 s of CPU a move on average (bench/RESULTS.md)

    def random_command(self, state: State, seat: int, rng: Rng) -> Command:
        """Uniform over the legal commands, a construction hand's squares counted,
        not listed (:func:`core.card_city.rules.random_command`: the same draws)."""
        return rules.random_command(state, seat, rng)
