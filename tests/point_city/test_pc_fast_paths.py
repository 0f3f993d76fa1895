"""Point City's fast paths against the code they replaced, kept here as the
reference, on the positions of random and greedy games (true states and
players' views): ``candidate_pairs`` (what ``random_command`` draws a pick
from; each cell's ask, a building's cost or a resource side's face, added up
per pair), ``takes`` (every payment of a pick, as ``legal`` lists them) and
``random_command`` (a pick counted, not listed: the same command and the
same draws as listing its takes) and ``has_take`` (only candidate pairs
looked at)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.autoplay import play_game
from core.engine import CHANCE
from core.point_city.cards import CARDS, WILD, face_of
from core.point_city.game import GAME
from core.point_city.payment import supply
from core.point_city.commands import PICKED, Pay, Take
from core.point_city.payment import payments
from core.point_city.commands import Flip, TakeDeck
from msgspec.structs import replace

from core.point_city.rules import (
    PAIRS, _token_choices, candidate_pairs, flippable_cells, has_take, random_command, takes,
)
from core.point_city.state import deck_size
from core.rng import Rng
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


def reference_takes(s: State, seat: int, a: int, b: int) -> list[Take]:
    slots = (s.market[a], s.market[b])
    built = [c for c, x in zip((a, b), slots) if x.building]
    if not built:
        return [Take((a, b))]
    me = s.seats[seat]
    faces = tuple(face_of(x.card) for x in slots if not x.building)
    hand = me.resources + faces
    perms = tuple(x for x in me.buildings if CARDS[x].produces)

    def pays_for(cell, cards, pr, toks):  # type: ignore[no-untyped-def]
        card = CARDS[s.market[cell].card]
        for pc, pp in payments(card.cost, cards, pr):
            rest_c = tuple(c for c in cards if c not in pc)
            rest_p = tuple(p for p in pr if p not in pp)
            named = tuple(sorted(PICKED if c in faces else c for c in pc))
            if card.kind == "civic":
                for t in _token_choices(s.display, toks):
                    yield Pay(cell, named, pp, t), rest_c, rest_p
            else:
                yield Pay(cell, named, pp), rest_c, rest_p

    if len(built) == 1:
        return [Take((a, b), (pay,)) for pay, _, _ in pays_for(built[0], hand, perms, ())]
    return [
        Take((a, b), (p1, p2))
        for p1, rc, rp in pays_for(built[0], hand, perms, ())
        for p2, _, _ in pays_for(built[1], rc, rp, (p1.token,))
    ]


def reference_random_command(s: State, seat: int, rng: Rng) -> object:
    moves: list[object] = []
    if not s.flipped:
        moves += [Flip(cell) for cell in flippable_cells(s)]
    if deck_size(s) >= 2:
        moves.append(TakeDeck())
    perms = tuple(x for x in s.seats[seat].buildings if CARDS[x].produces)
    moves += reference_pairs(s, seat, perms)
    while True:
        i = rng.below(len(moves))
        move = moves[i]
        if type(move) is not tuple:
            return move
        options = reference_takes(s, seat, move[0], move[1])
        if options:
            return options[rng.below(len(options))]
        del moves[i]


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.sampled_from(["random", "greedy"]))
def test_fast_paths_equal_the_reference(seed: int, n: int, policy: str) -> None:
    positions: list[tuple[State, int]] = []
    play_game(
        GAME, ["a", "b", "c", "d"][:n], f"pairs/{seed}", [policy] * n,
        hook=lambda before, seat, _c, _e: positions.append((before, seat)),
    )
    checked = 0
    seen = {True: 0, False: 0}
    for s, seat in positions:
        if seat == CHANCE:
            continue
        for state in (s, GAME.view(s, seat)):
            perms = tuple(x for x in state.seats[seat].buildings if CARDS[x].produces)
            assert candidate_pairs(state, seat, perms) == reference_pairs(state, seat, perms)
            for a, b in PAIRS:
                assert list(takes(state, seat, a, b)) == reference_takes(state, seat, a, b)
            # with the deck empty has_take looks at the pairs: as every pair's takes say
            # (and with every market card turned to its building side, where it is the payments that say)
            empty = replace(state, hidden=(0, 0, 0), top=0)
            built = replace(empty, market=tuple(replace(x, building=bool(x.card)) for x in empty.market))
            for board in (empty, built):
                want = any(reference_takes(board, seat, a, b) for a, b in PAIRS)
                assert has_take(board, seat) == want
                seen[want] += 1
            for k in range(8):
                fast, slow = Rng(f"{seed}/{checked}/{k}".encode()), Rng(f"{seed}/{checked}/{k}".encode())
                assert random_command(state, seat, fast) == reference_random_command(state, seat, slow)
                assert fast.below(1 << 30) == slow.below(1 << 30)  # the same draws were made
            checked += 1
    assert checked > 0
