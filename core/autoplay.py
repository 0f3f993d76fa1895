"""Play decisions with bots and chance, in memory (pure: no store, no clock).

The service uses the same steps against the store; tests, benchmarks and
``citylog simulate`` use :func:`play_game` directly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.engine import CHANCE, Game, IllegalCommand, checked_decide
from core.rng import Rng


def next_command(
    game: Game[Any, Any, Any], state: Any, seed: str, seq: int, policies: Mapping[int, str]
) -> tuple[int, Any] | None:
    """The next (seat, command) chance or a bot seat would make, or None if a human must act.

    ``seq`` is the sequence number the first resulting event will get: chance
    and bot choices are derived from (seed, seq) so replays are exact.
    """
    actors = game.to_act(state)
    if not actors:
        return None
    if actors == (CHANCE,):
        return CHANCE, game.chance(state, Rng.derive(seed, seq))
    for seat in actors:
        policy = policies.get(seat)
        if policy is not None:
            bot = game.bots.get(policy)
            if bot is None:
                raise IllegalCommand("GL-1", f"no bot policy {policy!r} (bots: {', '.join(game.bots)})")
            # a bot decides from its seat's view: it never knows more than a player would
            seen = game.view(state, seat)
            return seat, bot(game, seen, seat, Rng.derive(seed, seq, f"bot/{policy}/{seat}"))
    return None


def play_game(
    game: Game[Any, Any, Any],
    players: Sequence[str],
    seed: str,
    policies: Sequence[str],
    options: Mapping[str, str] | None = None,
    keep_events: bool = True,
    hook: Callable[[Any, int, Any, tuple[Any, ...]], None] | None = None,
) -> tuple[Any, list[Any]]:
    """A whole bot game: (final state, events).  ``keep_events=False`` keeps none;
    ``hook(before, seat, command, events)`` sees every decision (tests use it)."""
    created = game.create(players, options or {})
    state = game.apply(None, created)
    events: list[Any] = [created]
    seq = 1
    seats = dict(enumerate(policies))
    while True:
        step = next_command(game, state, seed, seq + 1, seats)
        if step is None:
            if game.to_act(state):
                raise RuntimeError("a human seat must act; give every seat a policy")
            return state, events
        seat, command = step
        produced = checked_decide(game, state, seat, command)
        if hook is not None:
            hook(state, seat, command, produced)
        for event in produced:
            state = game.apply(state, event)
            seq += 1
            if keep_events:
                events.append(event)


def greedy_margins(
    game: Game[Any, Any, Any],
    games: int,
    seed_prefix: str = "margin",
    options: Sequence[Mapping[str, str]] = ({},),
) -> list[int]:
    """Greedy's score minus random's over ``games`` two-player games.

    Seats alternate (greedy first in even games); ``options`` cycle game by game.
    """
    out = []
    for k in range(games):
        policies = ["greedy", "random"] if k % 2 == 0 else ["random", "greedy"]
        state, _ = play_game(
            game, ["a", "b"], f"{seed_prefix}/{k}", policies, options[k % len(options)], keep_events=False
        )
        result = game.result(state)
        if result is None:
            raise RuntimeError("a bot game did not end")
        g = policies.index("greedy")
        out.append(result.scores[g] - result.scores[1 - g])
    return out
