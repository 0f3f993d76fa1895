"""The bot registry: a game's fixed policies plus the search policies every game has.

``game.bots`` maps a policy name to a bot.  Besides each game's own names
(``random``, ``greedy``), every game answers ``mcts`` (information-set MCTS,
:mod:`core.mcts`, the game's ``search.playouts`` a move: under 1 s of CPU on
average) and ``mcts:N`` (N playouts a move).
``mcts:N:Tms`` adds an explicit wall-clock limit of T ms a move — opt-in,
since it makes the choice depend on the machine.  Iterating lists the plain
names (``random``, ``greedy``, ``mcts``).

>>> reg = BotRegistry({})
>>> "mcts:200" in reg, "mcts:x" in reg, list(reg)
(True, False, ['mcts'])
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache

from typing import TYPE_CHECKING

from core.engine import Bot

if TYPE_CHECKING:  # the search loads when a search bot is asked for (start-up)
    from core.mcts import Budget

SEARCH = "mcts"


def parse_budget(spec: str) -> Budget | None:
    """``mcts`` / ``mcts:N`` / ``mcts:N:Tms`` as a budget, or None if it is not one."""
    name, _, rest = spec.partition(":")
    if name != SEARCH:
        return None
    from core.mcts import Budget

    if not rest:
        return Budget()
    playouts, _, limit = rest.partition(":")
    if not playouts.isdigit() or int(playouts) < 1:
        return None
    if limit and not (limit.endswith("ms") and limit[:-2].isdigit()):
        return None
    return Budget(int(playouts), int(limit[:-2]) if limit else 0)


@lru_cache(maxsize=64)
def _search_bot(budget: Budget) -> Bot:
    from core.mcts import mcts_bot

    return mcts_bot(budget)


class BotRegistry(Mapping[str, Bot]):
    """A game's bots by policy name, search policies resolved by name."""

    def __init__(self, fixed: Mapping[str, Bot]) -> None:
        self._fixed = dict(fixed)

    def __getitem__(self, name: str) -> Bot:
        bot = self._fixed.get(name)
        if bot is not None:
            return bot
        budget = parse_budget(name) if isinstance(name, str) else None
        if budget is None:
            raise KeyError(name)
        return _search_bot(budget)

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter([*self._fixed, SEARCH])

    def __len__(self) -> int:
        return len(self._fixed) + 1
