"""Rulings name their evidence [GL-4] (issue 26, item 6), as laws on random Card City games.

* Every refusal of a build names its witness: the square tried or a neighbour
  that forbids it, or for a limit the figure that broke it (the size limit's
  count, the coins), never only the rule.
* Every explanation names the squares a picture outlines for it
  (``Game.witnesses``): what the picture shows is what the text says.
"""

from __future__ import annotations

import os
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.card_city.city import frontier, neighbours, non_industrial
from core.card_city.commands import Build
from core.card_city.squares import square_label
from core.engine import IllegalCommand, checked_decide

GAME = registry.get("card-city")
LABEL = re.compile(r"\b[A-I][1-9]\b|-?\d+,-?\d+")
"""A square as messages name it: in the frame (``E4``), else ``row,col`` [CL-10]."""
EXAMPLES = 200 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else int(os.environ.get("CITYLOG_WITNESS_EXAMPLES", "4"))


def refusals(before: Any, seat: int) -> list[tuple[tuple[int, int], IllegalCommand, Any]]:
    """Every illegal build of a card in ``seat``'s hand on a square touching its city."""
    out: list[tuple[tuple[int, int], IllegalCommand, Any]] = []
    p = before.players[seat]
    if before.phase != "construction":
        return out
    grid = p.grid()
    for card in sorted(set(p.hand.cards)):
        for sq in frontier(grid):
            try:
                checked_decide(GAME, before, seat, Build(card=card, row=sq[0], col=sq[1]))
            except IllegalCommand as exc:
                out.append((sq, exc, p))
    return out


@settings(max_examples=EXAMPLES)
@given(seed=st.text("abcdef0123456789", min_size=1, max_size=6), n=st.integers(1, 3))
def test_every_build_refusal_names_its_witness(seed: str, n: int) -> None:
    checked = 0

    def hook(before: Any, seat: int, command: Any, events: tuple[Any, ...]) -> None:
        nonlocal checked
        for sq, exc, p in refusals(before, seat):
            message = str(exc)
            near = {square_label(*x) for x in (sq, *neighbours(sq))}
            named = set(LABEL.findall(message))
            if exc.rule == "CC-3":  # the limit and the figure: the count that fills it
                assert str(non_industrial(p.grid())) in message, message
            elif exc.rule == "CC-2":  # Leisure's cost against the coins held
                assert str(p.coins) in message, message
            else:
                assert named & near, f"{exc.rule}: {message!r} names none of {sorted(near)}"
            checked += 1

    play_game(GAME, [f"p{i}" for i in range(n)], seed, ["random"] * n, hook=hook)
    assert checked > 0


@settings(max_examples=EXAMPLES)
@given(seed=st.text("abcdef0123456789", min_size=1, max_size=6), n=st.integers(1, 3))
def test_every_explanation_names_the_squares_its_picture_outlines(seed: str, n: int) -> None:
    players = [f"p{i}" for i in range(n)]
    _, events = play_game(GAME, players, seed, ["random"] * n)
    state = GAME.apply(None, events[0])
    outlined = 0
    for e in events[1:]:
        found = GAME.witnesses(state, e)
        if found is not None:
            text = GAME.explain(state, e, players)
            named = set(LABEL.findall(text))
            squares = {square_label(*sq) for sq in found[1]}
            assert squares <= named, (type(e).__name__, sorted(squares - named), text)
            outlined += len(squares)
        state = GAME.apply(state, e)
    assert outlined > 0
