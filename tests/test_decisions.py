"""``core.engine.decisions``: the decisions a log holds, found from the log alone.

Law, on random games of every game: the spans it yields are exactly the
decisions the game was played with (the seat, the command and its events, as
``play_game`` made them), in order, covering every event after the creation.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.engine import decisions
from tests.options import draw_options


@pytest.mark.parametrize("name", registry.available())
@given(data=st.data())
def test_decisions_are_the_decisions_played(name: str, data: st.DataObject) -> None:
    game = registry.get(name)
    n = data.draw(st.integers(game.spec.min_players, game.spec.max_players), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
    played: list[tuple[int, Any, int]] = []
    state, events = play_game(
        game, [f"p{i}" for i in range(n)], seed, ["random"] * n, draw_options(game, data.draw),
        hook=lambda before, seat, command, produced: played.append((seat, command, len(produced))),
    )
    found = list(decisions(game, events))
    assert [(d.seat, d.command, d.end - d.start) for d in found] == played
    assert found[0].start == 1 and found[-1].end == len(events)
    assert all(a.end == b.start for a, b in zip(found, found[1:]))
