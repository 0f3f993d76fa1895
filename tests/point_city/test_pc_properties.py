"""Seeded random games (random and greedy bots, 1–4 players, solo levels) and their invariants."""

from __future__ import annotations

from itertools import islice
from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from core.engine import CHANCE, IllegalCommand, checked_decide
from core.point_city.cards import START_CARDS, TIER_CARDS
from core.point_city.commands import Flip, LayOut, Pay, Reveal, Take, TakeDeck
from core.point_city.game import GAME
from core.point_city.state import State, all_cards
from tests.helpers.point_city import play_point_city as play

ENC = msgspec.json.Encoder()
DEC = msgspec.json.Decoder(GAME.event_type)
STATE_DEC = msgspec.json.Decoder(State)

games = st.fixed_dictionaries({
    "seed": st.text("abcdef0123456789", min_size=1, max_size=6),
    "n": st.integers(1, 4),
    "bots": st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4),
    "level": st.sampled_from(["1", "2", "3"]),
})


def _play(g: dict[str, Any], hook: Any = None) -> tuple[State, list[Any]]:
    return play(g["seed"], g["n"], g["bots"][: g["n"]], {"solo-level": g["level"]}, hook)


@given(games)
def test_cards_are_conserved_at_every_event_and_every_game_ends(g: dict[str, Any]) -> None:
    n = g["n"]
    everything = sorted([c for t in (1, 2, 3) for c in TIER_CARDS[t]] + list(START_CARDS[:n]))

    def hook(before: State, seat: int, cmd: Any, evs: tuple[Any, ...]) -> None:
        s = before
        for e in evs:
            s = GAME.apply(s, e)
            found = all_cards(s)
            if s.step not in ("tokens", "remove", "start"):
                assert sorted(found) == everything
            assert len(found) == len(set(found))
            # removed cards stay a constant count (PL-1)
            if s.step not in ("tokens", "remove"):
                removed = [len(u) - h for u, h in zip(s.unseen, s.hidden)]
                assert removed == [{1: (25, 26, 27), 2: (25, 26, 27), 3: (13, 14, 17),
                                    4: (1, 2, 7)}[n][i] for i in range(3)]

    state, events = _play(g, hook)
    assert GAME.to_act(state) == () and state.step == "over"
    assert len(events) < 1000
    result = GAME.result(state)
    assert result is not None and len(result.scores) == n
    assert result.winners or (n == 1 and "lost to" in result.breakdowns[0].title)
    if n == 1:
        assert "opponent" in result.breakdowns[0].title


@given(games)
def test_fold_equals_incremental_state_and_events_round_trip(g: dict[str, Any]) -> None:
    state, events = _play(g)
    assert GAME.fold(events) == state
    for e in events:
        assert DEC.decode(ENC.encode(e)) == e
    assert STATE_DEC.decode(ENC.encode(state)) == state
    assert GAME.fold(DEC.decode(ENC.encode(e)) for e in events) == state


@given(games)
def test_command_of_re_decides_every_logged_decision(g: dict[str, Any]) -> None:
    decisions = 0

    def hook(before: State, seat: int, cmd: Any, evs: tuple[Any, ...]) -> None:
        nonlocal decisions
        assert GAME.command_of(evs[0]) == (seat, cmd)
        assert all(GAME.command_of(e) is None for e in evs[1:])
        assert checked_decide(GAME, before, *GAME.command_of(evs[0])) == evs
        decisions += 1

    _, events = _play(g, hook)
    # and replayed from the log alone
    s = GAME.apply(None, events[0])
    i = 1
    while i < len(events):
        seat, cmd = GAME.command_of(events[i])
        produced = checked_decide(GAME, s, seat, cmd)
        assert list(produced) == events[i: i + len(produced)]
        for e in produced:
            s = GAME.apply(s, e)
        i += len(produced)
    assert decisions > 10


def _random_command(data: st.DataObject, s: State) -> Any:
    cell = st.integers(-1, 17)
    card = st.integers(0, 170)
    pay = st.builds(Pay, cell, st.lists(card, max_size=5).map(tuple),
                    st.lists(card, max_size=3).map(tuple), st.integers(0, 27))
    ids = [c for seat in s.seats for c in seat.resources + seat.buildings]
    if ids:
        card = st.one_of(card, st.sampled_from(ids))
    return data.draw(st.one_of(
        st.builds(Take, st.tuples(cell, cell), st.lists(pay, max_size=2).map(tuple)),
        st.builds(Flip, cell),
        st.just(TakeDeck()),
        st.builds(Reveal, card),
        st.builds(LayOut, st.lists(st.integers(0, 27), max_size=15).map(tuple)),
    ))


@given(games, st.data())
def test_random_commands_are_refused_cleanly_and_change_nothing(g: dict[str, Any], data: st.DataObject) -> None:
    _, events = _play(g)
    for _ in range(3):
        stop = data.draw(st.integers(1, len(events) - 1), label="stop")
        s = GAME.fold(events[:stop])
        before = ENC.encode(s)
        legal_seats = [CHANCE, *range(g["n"])]
        for _ in range(15):
            seat = data.draw(st.sampled_from(legal_seats))
            cmd = _random_command(data, s)
            try:
                evs = checked_decide(GAME, s, seat, cmd)
            except IllegalCommand as exc:
                assert exc.rule and exc.reason
            else:
                assert seat in GAME.to_act(s) and evs
            assert ENC.encode(s) == before


@given(games)
def test_every_listed_legal_command_is_accepted(g: dict[str, Any]) -> None:
    seen = 0

    def hook(before: State, seat: int, cmd: Any, evs: tuple[Any, ...]) -> None:
        nonlocal seen
        if seat == CHANCE or seen > 400:
            return
        for c in islice(GAME.legal(before, seat), 40):
            assert checked_decide(GAME, before, seat, c)
            seen += 1
        assert cmd in set(GAME.legal(before, seat))

    _play(g, hook)
    assert seen > 0
