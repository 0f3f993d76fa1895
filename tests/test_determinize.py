"""Determinization law, for every registered game, seat and prefix of seeded games.

``determinize(view(s, seat), seat, rng)`` is a full state whose view for the seat
is exactly the given view (it invents only what the seat cannot see), it is
deterministic in the rng, and play can go on from it: the seat's legal
commands there are those of its view.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.engine import CHANCE
from core.rng import Rng

GAMES = registry.available()


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_a_sample_shows_the_seat_exactly_its_view(name: str, data: st.DataObject) -> None:
    game = registry.get(name)
    n = data.draw(st.integers(max(2, game.spec.min_players), game.spec.max_players), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
    policies = [data.draw(st.sampled_from(["random", "greedy"])) for _ in range(n)]
    options = {o.key: data.draw(st.sampled_from(o.choices)) for o in game.spec.options if o.choices}
    _, events = play_game(game, [f"p{i}" for i in range(n)], seed, policies, options)
    stride = data.draw(st.integers(1, 7), label="stride")
    real = None
    for i, e in enumerate(events):
        real = game.apply(real, e)
        if i % stride:
            continue
        for seat in range(n):
            seen = game.view(real, seat)
            sample = game.determinize(seen, seat, Rng.derive(seed, i, f"det/{seat}"))
            assert game.view(sample, seat) == seen
            assert sample == game.determinize(seen, seat, Rng.derive(seed, i, f"det/{seat}"))
            actors = game.to_act(sample)
            assert actors == game.to_act(real)
            if seat in actors and seat != CHANCE:
                fmt = game.format_command
                assert sorted(map(fmt, game.legal(sample, seat))) == sorted(map(fmt, game.legal(seen, seat)))
            if actors == (CHANCE,):
                outcome = game.chance(sample, Rng.derive(seed, i, "det/chance"))
                game.decide(sample, CHANCE, outcome)  # a possible outcome in the sample
