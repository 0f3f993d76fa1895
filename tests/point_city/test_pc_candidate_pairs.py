"""``candidate_pairs`` (what ``random_command`` draws a pick from) against the
screening it replaced, kept here as the reference: each cell's ask (a
building's cost, a resource side's face) added up per pair, on the positions
of random and greedy games, true states and players' views."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.autoplay import play_game
from core.engine import CHANCE
from core.point_city.cards import CARDS, WILD, face_of
from core.point_city.game import GAME
from core.point_city.payment import supply
from core.point_city.rules import PAIRS, candidate_pairs
from core.point_city.state import State


def reference_pairs(s: State, seat: int, perms: tuple[int, ...]) -> list[tuple[int, int]]:
    typed, wild = supply(s.seats[seat].resources, perms)
    asks: list[tuple[tuple[tuple[str, int], ...], int]] = []
    for slot in s.market:
        if not slot.card:
            asks.append(((), 0))
        elif slot.building:
            asks.append((CARDS[slot.card].cost, 0))
        else:
            face = CARDS[face_of(slot.card)]
            if face.resource == WILD:
                asks.append(((), face.symbols))
            else:
                asks.append((((face.resource, -face.symbols),), 0))
    built = [x.building for x in s.market]
    out = []
    for a, b in PAIRS:
        if not built[a] and not built[b]:
            out.append((a, b))
            continue
        (need_a, extra_a), (need_b, extra_b) = asks[a], asks[b]
        need = dict(need_a)
        for t, n in need_b:
            need[t] = need.get(t, 0) + n
        short = 0
        for t, n in need.items():
            have = typed.get(t, 0)
            if n > have:
                short += n - have
        if short <= wild + extra_a + extra_b:
            out.append((a, b))
    return out


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.sampled_from(["random", "greedy"]))
def test_candidate_pairs_equal_the_reference(seed: int, n: int, policy: str) -> None:
    positions: list[tuple[State, int]] = []
    play_game(
        GAME, ["a", "b", "c", "d"][:n], f"pairs/{seed}", [policy] * n,
        hook=lambda before, seat, _c, _e: positions.append((before, seat)),
    )
    checked = 0
    for s, seat in positions:
        if seat == CHANCE:
            continue
        for state in (s, GAME.view(s, seat)):
            perms = tuple(x for x in state.seats[seat].buildings if CARDS[x].produces)
            assert candidate_pairs(state, seat, perms) == reference_pairs(state, seat, perms)
            checked += 1
    assert checked > 0
