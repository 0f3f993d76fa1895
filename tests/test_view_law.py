"""The view laws, for every registered game, seat and prefix of seeded games.

* A player's exported view always folds: ``fold(redact(events, seat))`` never
  raises, at any prefix.
* It folds to what the seat knows: ``view(fold(redact(events, seat)), seat) ==
  view(fold(events), seat)``.  (The fold of a redacted log may still hold a
  public count the view leaves out — a bag's or pool's make-up that counting
  would give — so both sides go through ``view``; every command that shows a
  player anything goes through ``view`` too.)
* The seat's legal commands are the same from its view as from the true state,
  so a player (or a bot) deciding from a view misses nothing and gains nothing.
* ``redact`` is a projection: redacting twice changes nothing, and the seat's
  own decisions are never redacted for it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.engine import CHANCE
from tests.helpers.corpus import played_games

GAMES = registry.available()




def check_view_laws(game: Any, events: list[Any], seats: range) -> int:
    """Check the laws at every prefix; returns how many (seat, prefix) pairs were checked."""
    checked = 0
    for seat in seats:
        real = None
        seen = None
        for e in events:
            real = game.apply(real, e)
            r = game.redact(e, seat)
            assert game.redact(r, seat) == r
            opened = game.command_of(e)
            if opened is not None and opened[0] == seat:
                assert r == e, f"seat {seat}'s own decision was redacted for it: {e!r}"
            seen = game.apply(seen, r)
            assert game.view(seen, seat) == game.view(real, seat), f"after {e!r}"
            if seat in game.to_act(real) and seat != CHANCE:
                mine = sorted(map(game.format_command, game.legal(game.view(real, seat), seat)))
                assert mine == sorted(map(game.format_command, game.legal(real, seat)))
            checked += 1
    return checked


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_view_laws_on_random_games(name: str, data: st.DataObject) -> None:
    game = registry.get(name)
    played = data.draw(played_games(name), label="game")
    events, n = list(played.events), len(played.players)
    assert check_view_laws(game, events, range(n)) == n * len(events)
