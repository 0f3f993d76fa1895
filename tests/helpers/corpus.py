"""Seeded bot games shared by the law tests: one corpus per game, played once a session.

Many laws take "a random game of every game" and check something along it
(conformance, view, re-decision, misplaced commands).  Under the ``ci``
profile they draw their games from :func:`corpus` — :data:`CI_GAMES` games per
game, with random player counts, seeds, random/greedy bots and every option
drawn, played once and shared (states and events are frozen structs) — instead
of each test playing 25 of its own.  Under ``thorough`` :func:`played_games`
plays a fresh game for every example, as before.  The corpus is played lazily,
by the first test that draws from it.
"""

from __future__ import annotations

import functools
import os
import random
from typing import Any, NamedTuple

from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from tests.options import FREE_OPTIONS, draw_options

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
CI_GAMES = 12
"""Games per game in the ``ci`` corpus."""


class Played(NamedTuple):
    players: tuple[str, ...]
    seed: str
    policies: tuple[str, ...]
    options: tuple[tuple[str, str], ...]
    state: Any
    events: tuple[Any, ...]


def _play(name: str, n: int, seed: str, policies: list[str], options: dict[str, str]) -> Played:
    game = registry.get(name)
    players = [f"p{i}" for i in range(n)]
    state, events = play_game(game, players, seed, policies, options)
    return Played(tuple(players), seed, tuple(policies), tuple(sorted(options.items())), state, tuple(events))


@functools.cache
def corpus(name: str) -> tuple[Played, ...]:
    """:data:`CI_GAMES` games of ``name``, drawn from a fixed seed (the same every run)."""
    game = registry.get(name)
    rnd = random.Random(f"corpus:{name}")
    out = []
    for i in range(CI_GAMES):
        n = rnd.randint(game.spec.min_players, game.spec.max_players)
        policies = [rnd.choice(["random", "greedy"]) for _ in range(n)]
        options = {}
        for o in game.spec.options:
            values = list(o.choices) or FREE_OPTIONS.get(o.key, [])
            if values:
                options[o.key] = rnd.choice(values)
        out.append(_play(name, n, f"{rnd.getrandbits(32):x}{i}", policies, options))
    return tuple(out)


def played_games(name: str) -> st.SearchStrategy[Played]:
    """A whole bot game of ``name``: from the shared corpus under ``ci``, a fresh
    one (players, seed, bots, options all drawn) under ``thorough``."""
    if not THOROUGH:
        return st.deferred(lambda: st.sampled_from(corpus(name)))
    game = registry.get(name)

    @st.composite
    def fresh(draw: st.DrawFn) -> Played:
        n = draw(st.integers(game.spec.min_players, game.spec.max_players), label="players")
        seed = draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
        policies = [draw(st.sampled_from(["random", "greedy"])) for _ in range(n)]
        return _play(name, n, seed, policies, draw_options(game, draw))

    return fresh()
