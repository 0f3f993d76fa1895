"""A fake fourth game, written against the engine contract alone (issue 27, item 2).

*Number Pick*, two seats: each round a die is rolled (a chance outcome, 1–6), then
seat 0 and seat 1 in turn pick a number from 1 to 3; a pick no higher than the
roll scores its value.  After the second pick an automatic step closes the
round.  After ``rounds`` rounds (an option, 1–3) the higher total wins; a tie
is broken by the number of picks equal to the roll, then shared.

It imports ``core.engine`` (the contract), ``core.bots`` (the search policies
every game has), ``core.rng`` and the two events the service writes into any
game's log (``core.seats.Joined``, ``core.chance.Reseeded``) — no other game's
code.  ``tests/cli/test_fake_game.py`` registers it under ``number-pick`` and
runs the CLI's generic paths on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

import msgspec

from core.bots import BotRegistry
from core.chance import Reseeded, describe_reseeded
from core.engine import (
    CHANCE,
    BadCommandSyntax,
    Bot,
    Breakdown,
    Game,
    GameSpec,
    IllegalCommand,
    OptionSpec,
    Result,
    ScoreLine,
    check_players,
    normalize_options,
    random_bot,
)
from core.rng import Rng
from core.seats import Joined, describe_joined

NAME = "number-pick"
SPEC = GameSpec(
    name=NAME,
    title="Number Pick",
    min_players=2,
    max_players=2,
    rules_version="np-1",
    options=(OptionSpec("rounds", "2", ("1", "2", "3"), "rounds to play"),),
    tiebreak_rule="NP-2",
    tiebreaks=("picks equal to the roll",),
)


# -- events ------------------------------------------------------------------
class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class Created(_Event, frozen=True, tag="np.created"):
    players: tuple[str, ...]
    options: dict[str, str]
    table: bool


class Rolled(_Event, frozen=True, tag="np.rolled"):
    value: int


class Picked(_Event, frozen=True, tag="np.picked"):
    seat: int
    number: int


class RoundEnded(_Event, frozen=True, tag="np.round_ended"):
    round: int


Event = Created | Rolled | Picked | RoundEnded


# -- commands ----------------------------------------------------------------
class _Command(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class Roll(_Command, frozen=True, tag="roll"):
    value: int


class Pick(_Command, frozen=True, tag="pick"):
    number: int


Command = Roll | Pick


class State(msgspec.Struct, frozen=True):
    players: tuple[str, ...]
    options: dict[str, str]
    table: bool
    rounds: int
    round: int = 1
    roll: int = 0
    """This round's roll; 0 while it is to be rolled."""
    picked: int = 0
    """Picks made this round (0, 1 or 2)."""
    scores: tuple[int, ...] = (0, 0)
    exact: tuple[int, ...] = (0, 0)


def _apply(state: State | None, event: Any) -> State:
    match event:
        case Created():
            return State(event.players, dict(event.options), event.table, int(event.options["rounds"]))
        case Rolled():
            assert state is not None
            return msgspec.structs.replace(state, roll=event.value)
        case Picked():
            assert state is not None
            gain = event.number if event.number <= state.roll else 0
            scores = list(state.scores)
            exact = list(state.exact)
            scores[event.seat] += gain
            exact[event.seat] += event.number == state.roll
            return msgspec.structs.replace(state, picked=state.picked + 1, scores=tuple(scores), exact=tuple(exact))
        case RoundEnded():
            assert state is not None
            return msgspec.structs.replace(state, round=state.round + 1, roll=0, picked=0)
    raise ValueError(f"not a {SPEC.title} event: {event!r}")


class NumberPick(Game[State, Any, Any]):
    spec: ClassVar[GameSpec] = SPEC
    event_type: ClassVar[Any] = Event | Joined | Reseeded
    command_type: ClassVar[Any] = Command
    bots: ClassVar[Mapping[str, Bot]] = BotRegistry({"random": random_bot})

    def create(self, players: Sequence[str], options: Mapping[str, str], table: bool = False) -> Created:
        return Created(check_players(SPEC, players), normalize_options(SPEC, options), table)

    def apply(self, state: State | None, event: Any) -> State:
        if type(event) in (Joined, Reseeded) and state is not None:
            return state
        return _apply(state, event)

    def to_act(self, state: State) -> tuple[int, ...]:
        if state.round > state.rounds:
            return ()
        if not state.roll:
            return (CHANCE,)
        return (state.picked,)

    def legal(self, state: State, seat: int) -> Iterator[Any]:
        if seat == CHANCE:
            return iter([Roll(v) for v in range(1, 7)])
        return iter([Pick(n) for n in (1, 2, 3)])

    def decide(self, state: State, seat: int, command: Any) -> tuple[Any, ...]:
        if isinstance(command, Roll):
            if not 1 <= command.value <= 6:
                raise IllegalCommand("NP-1", f"a die shows 1 to 6, not {command.value}")
            return (Rolled(command.value),)
        if not isinstance(command, Pick) or seat == CHANCE:
            raise IllegalCommand("NP-1", "a player picks a number")
        if not 1 <= command.number <= 3:
            raise IllegalCommand("NP-1", f"pick 1, 2 or 3, not {command.number}")
        events: tuple[Any, ...] = (Picked(seat, command.number),)
        if state.picked == 1:
            events += (RoundEnded(state.round),)
        return events

    def chance(self, state: State, rng: Rng) -> Any:
        return Roll(1 + rng.below(6))

    def command_of(self, event: Any) -> tuple[int, Any] | None:
        if isinstance(event, Rolled):
            return CHANCE, Roll(event.value)
        if isinstance(event, Picked):
            return event.seat, Pick(event.number)
        return None

    def result(self, state: State) -> Result | None:
        if self.to_act(state):
            return None
        best = max(zip(state.scores, state.exact))
        winners = tuple(i for i in range(2) if (state.scores[i], state.exact[i]) == best)
        return Result(state.scores, winners, self.score_now(state))

    def score_now(self, state: State) -> tuple[Breakdown, ...]:
        return tuple(
            Breakdown(i, (ScoreLine("picks", state.scores[i], f"{state.exact[i]} equal to the roll"),),
                      state.scores[i], (state.exact[i],))
            for i in range(2)
        )

    def view(self, state: State, seat: int | None) -> State:
        return state

    def redact(self, event: Any, seat: int | None) -> Any:
        return event

    def players(self, state: State) -> tuple[str, ...]:
        return state.players

    def describe(self, event: Any, players: Sequence[str]) -> str:
        if type(event) is Joined:
            return describe_joined(event, players)
        if type(event) is Reseeded:
            return describe_reseeded(event)
        match event:
            case Created():
                return f"{' and '.join(event.players)} sit down to Number Pick"
            case Rolled():
                return f"the die shows {event.value}"
            case Picked():
                return f"{players[event.seat]} picks {event.number}"
            case RoundEnded():
                return f"round {event.round} ends"
        return repr(event)

    def render(self, state: State, seat: int | None) -> str:
        lines = [f"round {min(state.round, state.rounds)} of {state.rounds}, roll {state.roll or '-'}"]
        lines += [f"{name}: {state.scores[i]}" for i, name in enumerate(state.players)]
        return "\n".join(lines)

    def parse_command(self, state: State, seat: int, text: str) -> Any:
        verb, _, arg = text.strip().lower().partition(" ")
        if verb in ("pick", "roll") and arg.strip().isdigit():
            return (Pick if verb == "pick" else Roll)(int(arg))
        raise BadCommandSyntax(f"{text!r}: say 'pick N' (or 'roll N' for the die)")

    def format_command(self, command: Any) -> str:
        return f"pick {command.number}" if isinstance(command, Pick) else f"roll {command.value}"


GAME = NumberPick()
