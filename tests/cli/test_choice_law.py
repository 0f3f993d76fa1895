"""The law of what a seat is offered (issue 26): **no command listed at the prompt or in
the TUI's play panel is ever refused when chosen.**

For every game, at random positions of random bot games and for every seat to act,
a player chooses from its view as the prompt on a received view lets it (several
commands into one move file, :func:`cli.choices.choices`, stopping where
:meth:`core.engine.Game.unseen` says the view no longer shows what the next
decision hangs on).  At every step each command offered — a listed entry, its
default, and its second step's variants — is

* accepted by ``decide`` on the true state after the same commands, and
* signed into a move file from the seat's view with the commands before it
  (:func:`cli.choices.signed_texts`, what ``send`` and ``move --out`` write);

a two-step entry's text is read by the game as its default; the prompt never
stops before a first command on a view the host sent; and where it does not stop,
the state it goes on from is the seat's true next view (so the view law, legal
from the view = legal from the true state, carries on to the next command).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.choices import choices, signed_texts
from core import registry
from core.autoplay import play_game
from core.engine import CHANCE, checked_decide
from tests.options import draw_options

GAMES = registry.available()
VARIANTS = 3
"""Variants of a two-step entry checked besides its default (every one under ``thorough``)."""
THOROUGH = settings.get_profile("thorough").max_examples == getattr(settings.default, "max_examples", 0)


def _positions(game: Any, n: int, seed: str, options: dict[str, str]) -> list[Any]:
    """The true states before every player's decision of a random bot game."""
    found: list[Any] = []

    def hook(before: Any, seat: int, command: Any, produced: Any) -> None:
        if seat != CHANCE:
            found.append(before)

    play_game(game, [f"p{i}" for i in range(n)], seed, ["random"] * n, options, keep_events=False, hook=hook)
    return found


def check_offers(game: Any, true: Any, seat: int, draw: st.DrawFn, every: bool) -> int:
    """Choose from ``seat``'s view of ``true`` as the prompt does; check every offer. Returns the steps."""
    start = view = game.view(true, seat)
    assert game.unseen(view, seat) is None, "the prompt would stop before the first command"
    chosen: list[str] = []
    steps = 0
    while seat in game.to_act(view) and not (chosen and game.unseen(view, seat)):
        offered = choices(game, view, seat)
        assert offered, "a seat to act is offered nothing"
        for choice in offered:
            picks = list(range(len(choice.commands)))
            if not every and len(picks) > 1 + VARIANTS:
                picks = [0, *draw(st.lists(st.sampled_from(picks[1:]), min_size=VARIANTS, max_size=VARIANTS,
                                           unique=True), label="variants")]
            for i in picks:
                command, text = choice.commands[i], choice.texts[i]
                checked_decide(game, true, seat, command)  # accepted on the true state
                assert signed_texts(game, start, seat, [*chosen, text]) == [*chosen, text]
            if choice.two_step:  # the entry's own text is read as its default
                assert game.format_command(game.parse_command(view, seat, choice.text)) == choice.texts[0]
        choice = offered[draw(st.integers(0, len(offered) - 1), label="entry")]
        command = choice.commands[draw(st.integers(0, len(choice.commands) - 1), label="variant")]
        chosen.append(game.format_command(command))
        for e in checked_decide(game, view, seat, command):
            view = game.view(game.apply(view, e), seat)
        for e in checked_decide(game, true, seat, command):
            true = game.apply(true, e)
        steps += 1
        if seat in game.to_act(view) and game.unseen(view, seat) is None:
            assert view == game.view(true, seat), f"after {chosen}: the view went on past what it shows"
    return steps


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=200 if THOROUGH else 6, deadline=None)
@given(data=st.data())
def test_no_offered_command_is_ever_refused(name: str, data: st.DataObject) -> None:
    game = registry.get(name)
    n = data.draw(st.integers(game.spec.min_players, game.spec.max_players), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=6), label="seed")
    positions = _positions(game, n, seed, draw_options(game, data.draw))
    for _ in range(3):
        true = positions[data.draw(st.integers(0, len(positions) - 1), label="position")]
        for seat in game.to_act(true):
            if seat != CHANCE:
                check_offers(game, true, seat, data.draw, THOROUGH)


def test_the_boundary_is_reached_in_card_city_and_point_city() -> None:
    """The law above is not vacuous: a take of a face-down card (Card City) and a flip
    (Point City) stop the prompt, with words for what comes next."""
    for name, text in (("card-city", "take rest"), ("point-city", "flip")):
        game = registry.get(name)
        stopped = []
        for true in _positions(game, 2, "b", {}):
            seat = game.to_act(true)[0]
            view = game.view(true, seat)
            for command in game.legal(view, seat):
                if game.format_command(command).startswith(text):
                    after = view
                    for e in checked_decide(game, view, seat, command):
                        after = game.view(game.apply(after, e), seat)
                    if seat in game.to_act(after):
                        stopped.append(game.unseen(after, seat))
            if stopped:
                break
        assert stopped and all(stopped), name
