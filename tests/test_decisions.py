"""``core.engine.decisions``: the decisions a log holds, found from the log alone.

Law, on random games of every game: the spans it yields are exactly the
decisions the game was played with (the seat, the command and its events, as
``play_game`` made them), in order, covering every event after the creation; a fork's reseed ends the decision
before it and :func:`core.engine.decision_cut` refuses exactly the cuts inside
a decision (``fork``'s check).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.chance import Reseeded
from core.engine import decision_cut, decisions
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
    reseeded_between_decisions(game, events, data)


def reseeded_between_decisions(game: Any, played: list[Any], data: st.DataObject) -> None:
    """A fork's reseed (CL-V7) stands between two decisions and belongs to neither;
    :func:`decision_cut` refuses exactly the cuts inside a span (a fork at ``at``
    keeps ``events[:at]``), naming the span that holds ``at``."""
    before = list(decisions(game, played))
    k = data.draw(st.sampled_from([d.start for d in before]), label="reseed before")
    events = played[:k] + [Reseeded(commitment="0" * 64)] + played[k:]
    found = list(decisions(game, events))
    shifted = [(d.start + (d.start >= k), d.end + (d.end > k), d.seat, d.command) for d in before]
    assert [(d.start, d.end, d.seat, d.command) for d in found] == shifted
    assert all(not d.start <= k < d.end for d in found)  # the reseed is in no decision
    bounds = {d.start for d in found} | {d.end for d in found} | {k}
    cuts = data.draw(st.lists(st.integers(found[0].start, len(events)), min_size=1, max_size=8), label="cuts")
    for at in [k, k + 1, *cuts]:
        cut = decision_cut(game, events, at)
        assert (cut is None) == (at in bounds), at
        if cut is not None:
            first, last = cut
            assert first <= at < last and any(d.start + 1 == first and d.end == last for d in found)

