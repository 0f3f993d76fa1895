"""Point City as a :class:`core.engine.Game`: ``GAME`` is what the registry loads."""

from __future__ import annotations

from core.scene import Scene

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import msgspec

from core.engine import (
    Breakdown, Game, GameSpec, OptionSpec, Result, SearchModel, check_players, normalize_options, random_bot,
)
from core.point_city import forms, rules, scoring, text, view
from core.point_city.bots import greedy_bot
from core.point_city.commands import Command, Flip, Take
from core.point_city.events import Created, Event
from core.point_city.fold import apply
from core.point_city.older import pc2_has_take
from core.point_city.search import PointCitySearch
from core.point_city.state import State
from core.bots import BotRegistry
from core.rng import Rng
from core.chance import Reseeded
from core.upgrade import Upgraded
from core.seats import Joined, Revealed
from core.deadlines import Handed, TimedOut
from core.table_events import describe_table_event, passes_through


SPEC = GameSpec(
    name="point-city",
    title="Point City",
    min_players=1,
    max_players=4,
    # pc-2: the card list repriced (PL-15); pc-3: a tier-2/3 Ingenuity face gives
    # one wild symbol, as its card does, so every take decide accepts is listed (PL-17)
    rules_version="pc-3",
    options=(
        OptionSpec("solo-level", "1", ("1", "2", "3"),
                   "solo opponent level [PC-7] (used with 1 player)"),
    ),
    tiebreak_rule="PC-6",
    tiebreaks=("unspent resource cards",),
    opponent_rule="PL-10",
    timeouts=("bot", "forfeit"),
    no_timeouts=(("skip", "every turn must take two cards, from the market or the deck; a turn cannot be "
                           "passed [CL-T3]"),),
)


class PointCity(Game[State, Any, Any]):
    spec: ClassVar[GameSpec] = SPEC
    event_type: ClassVar[Any] = Event | Joined | Revealed | Reseeded | TimedOut | Handed | Upgraded
    command_type: ClassVar[Any] = Command
    bots: ClassVar[Mapping[str, Any]] = BotRegistry({"random": random_bot, "greedy": greedy_bot})
    syntax = forms.SYNTAX
    search_model: ClassVar[type[SearchModel[Any, Any]]] = PointCitySearch
    can_take: ClassVar[rules.CanTake | None] = None
    """PL-7's test these rules step with (None: today's, :func:`rules.has_take`); the
    search's playouts read it (:meth:`PointCitySearch.random_step`)."""

    def create(self, players: Sequence[str], options: Mapping[str, str], table: bool = False) -> Created:
        names = check_players(self.spec, players)
        opts = normalize_options(self.spec, options)
        return Created(names, tuple(sorted(opts.items())), table)

    def apply(self, state: State | None, event: Any) -> State:
        return state if passes_through(state, event) else apply(state, event)

    def to_act(self, state: State) -> tuple[int, ...]:
        return rules.to_act(state)

    def legal(self, state: State, seat: int) -> Iterator[Command]:
        return rules.legal(state, seat)

    def for_rules(self, version: str) -> PointCity | None:
        """pc-3 (today's rules) and pc-2, whose logs are re-decided with pc-2's PL-7 test
        (:mod:`core.point_city.older`, PL-17); pc-1 (another card list) only replays."""
        return {"pc-3": GAME, "pc-2": GAME_PC2}.get(version)

    def decide(self, state: State, seat: int, command: Command) -> tuple[Any, ...]:
        return rules.decide(state, seat, command)

    def step(self, state: State, seat: int, command: Command) -> tuple[tuple[Any, ...], State]:
        return rules.step(state, seat, command)

    def chance(self, state: State, rng: Rng) -> Command:
        return rules.chance(state, rng)

    def command_of(self, event: Any) -> tuple[int, Command] | None:
        return rules.command_of(event)

    def square_of(self, command: Command) -> tuple[int, int] | None:
        """The market cell (4×4, reading order) a flip names, or a take's first cell."""
        if isinstance(command, Flip):
            return divmod(command.cell, 4)
        if isinstance(command, Take):
            return divmod(command.cells[0], 4)
        return None

    def result(self, state: State) -> Result | None:
        return scoring.result(state)

    def solo_opponent(self, state: State) -> Breakdown | None:
        """The solo opponent's score at the game's level [PC-7], its unspent
        resource cards the tie-break [PL-10]; None with two or more players."""
        if not state.solo_level:
            return None
        lines = scoring.opponent_lines(state)
        return Breakdown(-1, lines, sum(x.points for x in lines), (len(state.opponent.resources),),
                         f"solo opponent (level {state.solo_level})")

    def score_now(self, state: State) -> tuple[Breakdown, ...]:
        """Every tableau scored as it stands (PC-6); the final breakdowns once over."""
        result = scoring.result(state)
        if result is not None:
            return result.breakdowns
        return tuple(
            Breakdown(i, lines, sum(x.points for x in lines), (len(who.resources),))
            for i, who in enumerate(state.seats)
            for lines in (scoring.seat_lines(who),)
        )

    def determinize(self, view: State, seat: int, rng: Rng) -> State:
        from core.point_city.determinize import determinize  # search only: not at start-up

        return determinize(view, seat, rng)

    def first_step(self, command: Command) -> str | None:
        return forms.first_step(command)

    def unseen(self, state: State, seat: int) -> str | None:
        return forms.unseen(state, seat)

    def view(self, state: State, seat: int | None) -> State:
        return view.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> Any:
        return view.redact(event, seat)

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def describe(self, event: Any, players: Sequence[str]) -> str:
        return describe_table_event(event, players) or text.describe(event, players)

    def render(self, state: State, seat: int | None) -> str:
        return text.render(state, seat)

    def scene(self, state: State, seat: int | None) -> Scene:
        from core.point_city.scene import scene

        return scene(state, seat)

    def parse_command(self, state: State, seat: int, txt: str) -> Command:
        return text.parse_command(state, seat, txt)

    def format_command(self, command: Command) -> str:
        return text.format_command(command)

    def explain(self, before: State, event: Any, players: Sequence[str]) -> str:
        from core.point_city.explain import explain

        return explain(before, event, players)


GAME = PointCity()


class PointCityPc2(PointCity):
    """Rules pc-2, kept to verify the games recorded under them [PL-17]: today's
    rules but for PL-7's test, pc-2's :func:`core.point_city.older.pc2_has_take`
    (its ``decide`` judged every command as today's does)."""

    spec: ClassVar[GameSpec] = msgspec.structs.replace(PointCity.spec, rules_version="pc-2")
    can_take: ClassVar[rules.CanTake | None] = staticmethod(pc2_has_take)

    def decide(self, state: State, seat: int, command: Command) -> tuple[Any, ...]:
        return rules.decide(state, seat, command, pc2_has_take)

    def step(self, state: State, seat: int, command: Command) -> tuple[tuple[Any, ...], State]:
        return rules.step(state, seat, command, pc2_has_take)


GAME_PC2 = PointCityPc2()
