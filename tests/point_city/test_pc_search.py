"""Point City's search leaf (``PointCitySearch.leaf_estimate``): plies of flip-less
greedy play, then greedy's seat measure with the cards held fading out late
(``leaf_value``).

* The rollout policy plays only legal commands (it never flips) and is seeded by
  its ``Rng`` alone.
* The leaf measure is deterministic, reads the measure at once with 0 plies, and
  once the plies end the game it is the measure of the final tableaux.
* The fast rollout policy chooses as flip-less greedy; the flat search compares
  greedy's best takes and every flip, by sequential halving.
* It depends on the search's sample only: a seat's view gives the same leaf as
  any true state behind it when the plies see nothing hidden (a determinized
  state is a true state, so the search never reads the hidden cards).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.engine import CHANCE
from core.point_city import bots
from core.point_city.commands import Flip
from core.point_city.game import GAME
from core.point_city.search import TOP_TAKES
from core.point_city.state import State, deck_size
from core.rng import Rng
from tests.helpers.point_city import play_point_city as play

games = st.fixed_dictionaries({
    "seed": st.text("abcdef0123456789", min_size=1, max_size=6),
    "bots": st.lists(st.sampled_from(["random", "greedy"]), min_size=2, max_size=2),
})


def _positions(g: dict[str, Any]) -> list[tuple[State, int]]:
    out: list[tuple[State, int]] = []

    def keep(before: State, seat: int, cmd: Any, evs: Any) -> None:
        if seat != CHANCE:
            out.append((before, seat))

    play(g["seed"], 2, g["bots"], hook=keep)
    return out


@settings(max_examples=15, deadline=None)
@given(games, st.data())
def test_the_rollout_policy_plays_legal_takes(g: dict[str, Any], data: st.DataObject) -> None:
    state, seat = data.draw(st.sampled_from(_positions(g)), label="position")
    cmd = bots.rollout_move(GAME, state, seat, Rng.derive(g["seed"], 1))
    assert GAME.is_legal(state, seat, cmd)
    assert not isinstance(cmd, Flip)
    assert bots.rollout_move(GAME, state, seat, Rng.derive(g["seed"], 1)) == cmd


@settings(max_examples=15, deadline=None)
@given(games, st.data())
def test_the_leaf_measure_is_seeded_and_reads_the_position(g: dict[str, Any], data: st.DataObject) -> None:
    state, seat = data.draw(st.sampled_from(_positions(g)), label="position")
    leaf = GAME.search.leaf_estimate(state, Rng.derive(g["seed"], 2))
    assert leaf is not None and len(leaf) == 2
    assert GAME.search.leaf_estimate(state, Rng.derive(g["seed"], 2)) == leaf
    # no plies: greedy's measure of the position itself (the plain estimate)
    assert bots.leaf_estimate(GAME, state, Rng.derive(g["seed"], 2), plies=0) == GAME.search.estimate(state)


def test_the_leaf_plays_two_plies_and_stops_at_the_end() -> None:
    positions = _positions({"seed": "leaf", "bots": ["greedy", "greedy"]})
    state, seat = positions[0]
    # two plies by hand: the seat's take, then the other seat's
    rng = Rng.derive("leaf", 1)
    s = state
    for _ in range(2):
        while GAME.to_act(s) == (CHANCE,):
            s = GAME.step(s, CHANCE, GAME.chance(s, rng))[1]
        who = GAME.to_act(s)[0]
        s = GAME.step(s, who, bots.rollout_move(GAME, s, who, rng))[1]
    assert bots.leaf_estimate(GAME, state, Rng.derive("leaf", 1)) == GAME.search.estimate(s)
    assert s.mover == 1 - seat  # the second ply was the other seat's take
    # from the last decision, the plies end the game: the final tableaux are measured
    last, _ = positions[-1]
    leaf = bots.leaf_estimate(GAME, last, Rng.derive("leaf", 3), plies=40)
    final = last
    rng = Rng.derive("leaf", 3)
    while GAME.to_act(final):
        who = GAME.to_act(final)[0]
        cmd = GAME.chance(final, rng) if who == CHANCE else bots.rollout_move(GAME, final, who, rng)
        final = GAME.step(final, who, cmd)[1]
    assert GAME.result(final) is not None
    assert leaf == tuple(bots.seat_value(x, deck_size(final)) for x in final.seats)


def test_the_solo_game_is_played_out() -> None:
    state, _ = play("solo-leaf", 1, ["random"], {"solo-level": "2"})
    assert GAME.search.leaf_estimate(state, Rng(b"x")) is None


@settings(max_examples=15, deadline=None)
@given(games, st.data())
def test_the_fast_rollout_policy_is_flipless_greedy(g: dict[str, Any], data: st.DataObject) -> None:
    """``rollout_move`` (payments weighed without a command each) chooses as greedy's
    own one-ply search without flips, tie for tie and draw for draw."""
    state, seat = data.draw(st.sampled_from(_positions(g)), label="position")
    slow = bots._one_ply(GAME, state, seat, Rng.derive(g["seed"], 4), flips=False)
    assert bots.rollout_move(GAME, state, seat, Rng.derive(g["seed"], 4)) == slow
    _, listed = bots._best(GAME, state, seat, deck_size(state), None)
    fast, _ = bots._fast_best(state, seat, deck_size(state))
    assert [bots._command(state, o) for o in fast] == listed


@settings(max_examples=15, deadline=None)
@given(games, st.data())
def test_the_flat_search_compares_greedys_best_takes_and_every_flip(
    g: dict[str, Any], data: st.DataObject
) -> None:
    state, seat = data.draw(st.sampled_from(_positions(g)), label="position")
    chosen = GAME.search.candidates(state, seat)
    legal = list(GAME.legal(state, seat))
    assert chosen and all(c in legal for c in chosen)
    flips = [c for c in legal if isinstance(c, Flip)]
    assert [c for c in chosen if isinstance(c, Flip)] == flips
    takes = [c for c in chosen if not isinstance(c, Flip)]
    assert 1 <= len(takes) <= min(TOP_TAKES, len(legal) - len(flips))
    # greedy's own choice (without flips) is among them
    _, best = bots._best(GAME, state, seat, deck_size(state), None)
    assert any(c in takes for c in best)


def test_the_flat_search_spends_its_worlds_by_sequential_halving() -> None:
    """Every candidate gets the first round's worlds, the better half the next
    round's too, and so on (``SearchModel.halving``): the visits follow the schedule,
    and the most visited option is the one played."""
    from core.mcts import Budget, search

    budget = 60
    checked = 0
    for state, seat in _positions({"seed": "halving", "bots": ["greedy", "greedy"]})[:12]:
        searched = GAME.search.candidates(state, seat)
        assert searched is not None
        view = GAME.view(state, seat)
        choices = search(GAME, view, seat, Rng(b"halving"), Budget(budget))
        if len(searched) < 3:
            continue
        rounds = math.ceil(math.log2(len(searched)))
        alive, spent, expected = len(searched), 0, []
        for r in range(rounds):
            spent += max(1, budget // (rounds * alive))
            kept = (alive + 1) // 2 if r < rounds - 1 else 0
            expected += [spent] * (alive - kept)
            alive = kept
        assert sorted(c.visits for c in choices if c.visits) == sorted(expected)
        assert choices[0].visits == max(expected)
        checked += 1
    assert checked


def test_the_leaf_measure_fades_the_cards_held_as_the_deck_runs_out() -> None:
    """``leaf_value`` is greedy's measure while the deck holds ``HELD_FADE`` cards or
    more, then gives the resource cards held less and less, nothing at the end
    (unspent cards score nothing); the search's leaf reads it, greedy does not."""
    positions = _positions({"seed": "fade", "bots": ["greedy", "greedy"]})
    faded = 0
    for state, _ in positions:
        deck = deck_size(state)
        for x in state.seats:
            held = bots._held(x.resources)[0]
            value = bots.leaf_value(x, deck)
            if deck >= bots.HELD_FADE:
                assert value == bots.seat_value(x, deck)
            else:
                expected = bots.seat_value(x, deck) - (1 - deck / bots.HELD_FADE) * held
                assert math.isclose(value, expected)
                assert value <= bots.seat_value(x, deck)
                faded += value < bots.seat_value(x, deck)
            assert bots.leaf_value(x, 0) == bots.seat_value(x, 0) - held
    assert faded
    # the search's leaf: four plies of flip-less greedy, then leaf_value, not seat_value
    late = [(s, seat) for s, seat in positions if deck_size(s) < bots.HELD_FADE]
    differ = 0
    for state, _ in late:
        leaf = GAME.search.leaf_estimate(state, Rng(b"fade"))
        assert leaf == bots.leaf_estimate(GAME, state, Rng(b"fade"), 4, bots.leaf_value)
        differ += leaf != bots.leaf_estimate(GAME, state, Rng(b"fade"), 4)
    assert differ
