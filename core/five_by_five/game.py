"""The 5x5 City :class:`~core.engine.Game`: wires the pure modules together.  ``GAME`` is the instance."""

from __future__ import annotations

from core.scene import Scene

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from core.engine import (
    BadOptions,
    Bot,
    BoardScore,
    Breakdown,
    Game,
    GameSpec,
    OptionSpec,
    Result,
    ScoreLine,
    SearchModel,
    check_players,
    normalize_options,
)
from core.five_by_five import commands as cm
from core.five_by_five import events as ev
from core.five_by_five import forms, rules, text, view
from core.five_by_five.bots import BOTS
from core.five_by_five.cards import BUILDING_CARDS, PLANNING_CARDS, expand_sides
from core.five_by_five.fold import apply
from core.five_by_five.scoring import solo_title
from core.five_by_five.search import FiveByFiveSearch
from core.five_by_five.state import OVER, State
from core.bots import BotRegistry
from core.rng import Rng
from core.chance import Reseeded
from core.upgrade import Upgraded
from core.seats import Joined, Revealed
from core.deadlines import Handed, TimedOut
from core.table_events import describe_table_event, passes_through

SPEC = GameSpec(
    name="5x5-city",
    title="5x5 City",
    min_players=1,
    max_players=4,
    rules_version="fc-1",
    options=(
        OptionSpec("advanced", "no", ("no", "yes"), "advanced rules: one Planning card"),
        OptionSpec("sides", "A", (), "Building card sides: A, B, random, or 10 letters A/B (Factories…Park)"),
    ),
    tiebreak_rule="FC-9, FL-9",
    tiebreaks=tuple(f"{name} points" for name in (  # FC-9: the categories in tie-break order
        "Factories", "Houses", "Shops", "Offices", "Stations", "Warehouses", "Public Offices", "Schools",
        "Fountains", "Parks")),
    solo_title="solo title “{title}”",
    timeouts=("bot", "forfeit"),
    no_timeouts=(("skip", "a seat must take a set and place every tile of it (Tile Placement phase); "
                           "only a park action may be declined [CL-T3]"),),
)


class FiveByFive(Game[State, ev.Event, cm.Command]):
    spec: ClassVar[GameSpec] = SPEC
    event_type: ClassVar[Any] = ev.Event | Joined | Revealed | Reseeded | TimedOut | Handed | Upgraded
    command_type: ClassVar[Any] = cm.Command
    bots: ClassVar[Mapping[str, Bot]] = BotRegistry(BOTS)
    syntax = forms.SYNTAX
    search_model: ClassVar[type[SearchModel[Any, Any]]] = FiveByFiveSearch

    def create(self, players: Sequence[str], options: Mapping[str, str], table: bool = False) -> ev.Event:
        names = check_players(SPEC, players)
        opts = normalize_options(SPEC, options)
        try:
            sides = expand_sides(opts["sides"])
        except ValueError as exc:
            raise BadOptions(str(exc)) from None
        opts["sides"] = opts["sides"].lower() if not sides else opts["sides"].upper()
        return ev.GameCreated(names, tuple(sorted(opts.items())), table, sides)

    def apply(self, state: State | None, event: ev.Event) -> State:
        return state if passes_through(state, event) else apply(state, event)

    def to_act(self, state: State) -> tuple[int, ...]:
        return rules.to_act(state)

    def legal(self, state: State, seat: int) -> Iterator[cm.Command]:
        return rules.legal(state, seat)

    def decide(self, state: State, seat: int, command: cm.Command) -> tuple[ev.Event, ...]:
        return rules.decide(state, seat, command)

    def step(self, state: State, seat: int, command: cm.Command) -> tuple[tuple[ev.Event, ...], State]:
        return rules.step(state, seat, command)

    def chance(self, state: State, rng: Rng) -> cm.Command:
        return rules.chance(state, rng)

    def command_of(self, event: ev.Event) -> tuple[int, cm.Command] | None:
        return rules.command_of(event)

    def square_of(self, command: cm.Command) -> tuple[int, int] | None:
        """Place and Replace name a square 0–24 in reading order; a swap, its first square."""
        if isinstance(command, (cm.Place, cm.Replace)):
            return divmod(command.square, 5)
        if isinstance(command, cm.Swap):
            return divmod(command.a, 5)
        return None

    def result(self, state: State) -> Result | None:
        if state.phase != OVER:
            return None
        return Result(state.scores, state.winners, self.score_now(state))

    def score_now(self, state: State) -> tuple[Breakdown, ...]:
        """Every board scored as it stands (boards are public), category by category."""
        out = []
        for seat in range(state.n):
            sc = rules.board_score(state, seat)
            lines = [
                ScoreLine(c.key, sc.categories[c.key], f"{c.name} {state.sides[i]}: {sc.details[c.key]}")
                for i, c in enumerate(BUILDING_CARDS)
            ]
            if state.planning:
                lines.append(ScoreLine("planning", sc.planning_points, PLANNING_CARDS[state.planning]))
            title = solo_title(sc.total, state.advanced) if state.n == 1 else ""
            out.append(Breakdown(seat, tuple(lines), sc.total, sc.tiebreak(), title))
        return tuple(out)

    def determinize(self, view: State, seat: int, rng: Rng) -> State:
        from core.five_by_five.determinize import determinize  # search only: not at start-up

        return determinize(view, seat, rng)

    def unseen(self, state: State, seat: int) -> str | None:
        return forms.unseen(state, seat)

    def view(self, state: State, seat: int | None) -> State:
        return view.view(state, seat)

    def redact(self, event: ev.Event, seat: int | None) -> ev.Event:
        return view.redact(event, seat)

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def describe(self, event: ev.Event, players: Sequence[str]) -> str:
        return describe_table_event(event, players) or text.describe(event, players)

    def render(self, state: State, seat: int | None) -> str:
        """``state`` as given: callers pass the seat's view, and the referee sees all
        (the park draws its log prints, FL-5)."""
        return text.render(state, seat)

    def state_data(self, state: State) -> object:
        """The state as data; each board also as ``"squares": {"A1": TILE, …}`` (the
        built squares, named as commands name them) beside its reading-order
        ``tiles`` [GL-5]."""
        import msgspec

        from core.five_by_five.plans import square_name
        from core.five_by_five.state import EMPTY

        data = msgspec.to_builtins(state)
        for board, shown in zip(state.boards, data["boards"]):
            shown["squares"] = {square_name(i): t for i, t in enumerate(board.tiles) if t != EMPTY}
        return data

    def scene(self, state: State, seat: int | None) -> Scene:
        from core.five_by_five.scene import scene

        return scene(state, seat)

    def parse_command(self, state: State, seat: int, text_: str) -> cm.Command:
        return text.parse_command(state, seat, text_)

    def format_command(self, command: cm.Command) -> str:
        return text.format_command(command)

    def score_board(self, text_: str, source: str, params: Mapping[str, str]) -> BoardScore:
        from core.five_by_five.boardfile import score_text

        return score_text(text_, source, params)

    def explain(self, before: State, event: ev.Event, players: Sequence[str]) -> str:
        from core.five_by_five.explain import explain

        return explain(before, event, players)


GAME = FiveByFive()
