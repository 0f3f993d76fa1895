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
from core.engine import CHANCE
from core.rng import Rng
from tests.helpers.corpus import played_games

GAMES = registry.available()


def _card_city_full(s) -> bool:
    from core.card_city.state import HIDDEN

    hands = [*(p.hand for p in s.players), s.holding]
    cards = [c for h in hands for c in h.cards] + list(s.offer.pair + s.offer.up + s.offer.down if s.offer else ())
    return HIDDEN not in cards and len(s.pool) == 5 and sum(s.pool) == s.pool_size - len(s.bottom)


def _five_by_five_full(s) -> bool:
    from core.five_by_five.state import HIDDEN, HIDDEN_PARK

    boards = [t for b in s.boards for t in b.tiles]
    return HIDDEN not in s.bag and HIDDEN not in s.park_drawn and HIDDEN_PARK not in boards


def _point_city_full(s) -> bool:
    ids = [x.card for x in s.market] + list(s.discard) + [s.top]
    ids += [c for seat in (*s.seats, s.opponent) for c in seat.resources]
    return min(ids, default=0) >= 0 and all(len(u) >= h for u, h in zip(s.unseen, s.hidden))


FULL = {"card-city": _card_city_full, "5x5-city": _five_by_five_full, "point-city": _point_city_full}
"""A state with nothing hidden in it: what a sample must be (the true state is)."""


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_a_sample_shows_the_seat_exactly_its_view(name: str, data: st.DataObject) -> None:
    game = registry.get(name)
    played = data.draw(played_games(name).filter(lambda p: len(p.players) >= 2), label="game")
    events, n, seed = list(played.events), len(played.players), played.seed
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
            if name in FULL:
                assert FULL[name](real) and FULL[name](sample)
            assert sample == game.determinize(seen, seat, Rng.derive(seed, i, f"det/{seat}"))
            actors = game.to_act(sample)
            assert actors == game.to_act(real)
            if seat in actors and seat != CHANCE:
                fmt = game.format_command
                assert sorted(map(fmt, game.legal(sample, seat))) == sorted(map(fmt, game.legal(seen, seat)))
            if actors == (CHANCE,):
                outcome = game.chance(sample, Rng.derive(seed, i, "det/chance"))
                game.decide(sample, CHANCE, outcome)  # a possible outcome in the sample
