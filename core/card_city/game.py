"""Card City behind the engine contract (``core.engine.Game``)."""

from __future__ import annotations

from core.scene import Scene

from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache

import msgspec

from core.card_city import events as ev
from core.card_city import forms, rules, text, view
from core.card_city.bots import greedy_bot
from core.card_city.cards import KINDS, START_COINS, pool_counts, reserve_counts
from core.card_city.commands import (
    Build,
    Buy,
    Command,
    Develop,
)
from core.card_city.fold import apply
from core.card_city.squares import relabel, square_label
from core.words import plurals
from core.card_city.scoring import final_score
from core.card_city.search import CardCitySearch
from core.card_city.state import State
from core.engine import (
    BoardScore,
    Breakdown,
    Game,
    GameSpec,
    OptionSpec,
    Result,
    check_players,
    normalize_options,
    random_bot,
)
from core.bots import BotRegistry
from core.rng import Rng
from core.chance import Reseeded
from core.upgrade import Upgraded
from core.seats import Joined, Revealed
from core.deadlines import Handed, TimedOut
from core.table_events import describe_table_event, passes_through

SPEC = GameSpec(
    name="card-city",
    title="Card City",
    min_players=1,
    max_players=4,
    rules_version="card-city/2",
    options=(
        OptionSpec("decentralization", "no", ("no", "yes"), "Variant 1: Decentralization [CC-13]"),
        OptionSpec("parking-meters", "no", ("no", "yes"), "Variant 2: Parking Meters [CC-14]"),
    ),
    tiebreak_rule="CC-11",
    tiebreaks=("coins left after the exchange",),
    solo_title="solo level {title} [CC-9]",
    timeouts=("bot", "forfeit"),
    no_timeouts=(("skip", "a seat's split, choice of group [CC-7], construction [CC-2] and development "
                           "[CC-6] must be made; only the Industrial purchase [CC-10] may be declined [CL-T3]"),),
)


class CardCity(Game[State, ev.Event, Command]):
    spec = SPEC
    event_type = ev.Event | Joined | Revealed | Reseeded | TimedOut | Handed | Upgraded
    command_type = Command
    bots = BotRegistry({"random": random_bot, "greedy": greedy_bot})
    syntax = forms.SYNTAX
    search_model = CardCitySearch

    def create(
        self, players: Sequence[str], options: Mapping[str, str], table: bool = False
    ) -> ev.Event:
        names = check_players(SPEC, players)
        n = len(names)
        pool, reserve = pool_counts(n), reserve_counts(n)
        return ev.GameCreated(
            players=names,
            options=normalize_options(SPEC, options),
            rules_version=SPEC.rules_version,
            table=table,
            pool=tuple(pool[k] for k in KINDS),
            reserve=tuple(reserve[k] for k in KINDS),
            coins=START_COINS,
            first=0,
            draw=3 if n == 1 else 2 * n,
        )

    def apply(self, state: State | None, event: ev.Event) -> State:
        return state if passes_through(state, event) else apply(state, event)

    def to_act(self, state: State) -> tuple[int, ...]:
        return rules.to_act(state)

    def legal(self, state: State, seat: int) -> Iterator[Command]:
        return rules.legal(state, seat)

    def decide(self, state: State, seat: int, command: Command) -> tuple[ev.Event, ...]:
        return rules.decide(state, seat, command)

    def step(self, state: State, seat: int, command: Command) -> tuple[tuple[ev.Event, ...], State]:
        return rules.step(state, seat, command)

    def chance(self, state: State, rng: Rng) -> Command:
        return rules.chance(state, rng)

    def command_of(self, event: ev.Event) -> tuple[int, Command] | None:
        return rules.command_of(event)

    def decision_key(self, state: State, seat: int) -> bytes | None:
        """Construction (Phase 2) is simultaneous and each seat builds from its own
        hand into its own city: the decision depends on that seat alone."""
        if state.phase != "construction" or seat not in rules.to_act(state):
            return None
        return msgspec.json.encode((state.round, state.phase, state.players[seat]))

    def square_of(self, command: Command) -> tuple[int, int] | None:
        """Build, develop and buy name a square relative to City Hall (0,0); commands print it in
        the frame, ``E5`` City Hall [CL-10]."""
        if isinstance(command, (Build, Develop, Buy)):
            return (command.row, command.col)
        return None

    def result(self, state: State) -> Result | None:
        if state.phase != "over":
            return None
        return Result(
            scores=tuple(b.total for b in state.scores),
            winners=state.winners,
            breakdowns=tuple(_framed(b) for b in state.scores),
        )

    def score_now(self, state: State) -> tuple[Breakdown, ...]:
        """End of the Game's scoring of every city as it stands (cities and coins are public)."""
        if state.scores:
            return tuple(_framed(b) for b in state.scores)
        return tuple(
            _framed(final_score(i, {(r, c): k for r, c, k in p.city}, p.coins, state.options.decentralization, state.n == 1))
            for i, p in enumerate(state.players)
        )

    def determinize(self, view: State, seat: int, rng: Rng) -> State:
        from core.card_city.determinize import determinize  # search only: not at start-up

        return determinize(view, seat, rng)

    def unseen(self, state: State, seat: int) -> str | None:
        return forms.unseen(state, seat)

    def view(self, state: State, seat: int | None) -> State:
        return view.view(state, seat)

    def redact(self, event: ev.Event, seat: int | None) -> ev.Event:
        return view.redact(event, seat)

    def players(self, state: State) -> tuple[str, ...]:
        return tuple(p.name for p in state.players)

    def describe(self, event: ev.Event, players: Sequence[str]) -> str:
        return describe_table_event(event, players) or text.describe(event, players)

    def render(self, state: State, seat: int | None) -> str:
        return text.render(state, seat)

    def state_data(self, state: State) -> object:
        """The state as data with each city keyed by frame square [CL-10, GL-5]:
        ``"city": {"E5": "H", "E4": "I"}`` (events keep the City-Hall-relative
        ``row, col``; ``show --json`` speaks as commands and boards do)."""
        data = msgspec.to_builtins(state)
        for player, shown in zip(state.players, data["players"]):
            shown["city"] = {square_label(r, c): kind for r, c, kind in player.city}
        return data

    def scene(self, state: State, seat: int | None) -> Scene:
        from core.card_city.scene import scene

        return scene(state, seat)

    def parse_command(self, state: State, seat: int, text_: str) -> Command:
        return text.parse_command(state, seat, text_)

    def format_command(self, command: Command) -> str:
        return text.format_command(command)

    def score_board(self, text_: str, source: str, params: Mapping[str, str]) -> BoardScore:
        from core.card_city.boardfile import score_board

        return score_board(text_, source, params)

    def where_board(self, text_: str, source: str, card: str, params: Mapping[str, str]) -> BoardScore:
        from core.card_city.boardfile import where

        return where(text_, source, card, params)

    def explain(self, before: State, event: ev.Event, players: Sequence[str]) -> str:
        from core.card_city.explain import explain

        return explain(before, event, players)

    def witnesses(self, before: State, event: ev.Event) -> tuple[int, tuple[tuple[int, int], ...]] | None:
        from core.card_city.explain import witnesses

        return witnesses(before, event)


@lru_cache(maxsize=256)
def _framed(b: Breakdown) -> Breakdown:
    """A recorded breakdown with its squares named in the frame [CL-10] (``at -1,-2`` -> ``at C4``)
    and its counts said in words (``1 empty square(s)`` -> ``1 empty square``).

    The ``Scored`` events keep the words they were recorded with (their hashes
    depend on them); this is how they are read out."""
    lines = tuple(msgspec.structs.replace(s, detail=plurals(relabel(s.detail))) for s in b.lines)
    return msgspec.structs.replace(b, lines=lines)


GAME = CardCity()
