"""Point City's fast paths against simple references, on the positions of
random and greedy games (true states and players' views): ``candidate_pairs``
(what ``random_command`` draws a pick from) against the sources' shortfall of
each pick's costs; ``takes`` (every payment of a pick, as ``legal`` lists
them) against the former listing; ``_random_take`` (a pick's takes counted,
not listed) against drawing from that listing, with the same draws;
``has_take`` (only candidate pairs looked at) against every pair's takes; and
the search's playout steps (a drawn command's event made unchecked) against
the referee's ``step`` of the same command."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from core.autoplay import play_game
from core.engine import CHANCE, checked_step
from core.point_city.cards import CARDS, face_of
from core.point_city.commands import PICKED, Pay, Take
from core.point_city.game import GAME, GAME_PC2
from core.point_city.payment import payments, shortfall
from core.point_city.rules import PAIRS, _random_take, _token_choices, candidate_pairs, has_take, takes
from core.point_city.state import State
from core.rng import Rng


def reference_pairs(s: State, seat: int, perms: tuple[int, ...]) -> list[tuple[int, int]]:
    """Two resource sides, or a pick whose building costs (added up) the seat's
    sources and the pick's resource side cover in symbols."""
    out = []
    for a, b in PAIRS:
        slots = (s.market[a], s.market[b])
        if not any(x.building for x in slots):
            out.append((a, b))
            continue
        cost: dict[str, int] = {}
        for x in slots:
            for t, n in CARDS[x.card].cost if x.building else ():
                cost[t] = cost.get(t, 0) + n
        faces = tuple(face_of(x.card) for x in slots if x.card and not x.building)
        if shortfall(tuple(cost.items()), s.seats[seat].resources + faces, perms)[0] == 0:
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
            for k, (a, b) in enumerate(candidate_pairs(state, seat, perms)):
                fast, slow = Rng(f"{seed}/{checked}/{k}".encode()), Rng(f"{seed}/{checked}/{k}".encode())
                options = reference_takes(state, seat, a, b)
                want = options[slow.below(len(options))] if options else None
                assert _random_take(state, seat, a, b, perms, fast) == want
                assert fast.below(1 << 30) == slow.below(1 << 30)  # the same draws were made
            checked += 1
    assert checked > 0


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.sampled_from(["random", "greedy"]))
def test_the_playout_steps_are_the_referees(seed: int, n: int, policy: str) -> None:
    """The search's playouts play Point City by ``PointCitySearch.random_step`` and
    ``chance_step`` (issue 25), which make the event of the command they draw
    without the referee's checks: every command drawn passes them (the
    referee's ``checked_step`` accepts it), and the events and the state are the
    referee's, with the same draws, in true states and views (a player's
    decision), for today's rules and pc-2's (PL-7's test)."""
    positions: list[tuple[State, int]] = []
    play_game(
        GAME, ["a", "b", "c", "d"][:n], f"trusted/{seed}", [policy] * n,
        hook=lambda before, seat, _c, _e: positions.append((before, seat)),
    )
    drawn = {"take": 0, "chance": 0}
    for k, (s, seat) in enumerate(positions):
        game = (GAME, GAME_PC2)[k % 2]
        model = game.search
        if seat == CHANCE:
            key = f"{seed}/{k}/chance".encode()
            fast, slow = Rng(key), Rng(key)
            assert model.chance_step(s, fast) == checked_step(game, s, CHANCE, game.chance(s, slow))
            assert fast.below(1 << 30) == slow.below(1 << 30)  # the same draws were made
            drawn["chance"] += 1
            continue
        for state in (s, game.view(s, seat)):
            for j in range(4):
                key = f"{seed}/{k}/{j}".encode()
                fast, slow = Rng(key), Rng(key)
                produced = model.random_step(state, seat, fast)
                cmd = model.random_command(state, seat, slow)
                assert produced == checked_step(game, state, seat, cmd)
                assert fast.below(1 << 30) == slow.below(1 << 30)
                drawn["take"] += isinstance(cmd, Take)
    assert drawn["take"] > 0 and drawn["chance"] > 0


def test_the_rules_keep_no_playout_state() -> None:
    """The referee's path holds no cache of the search's draws (issue 25: they were
    module globals of the rules, ``_TRUSTED`` and ``_REVEALED``, that ``step``
    trusted); the shortcut lives in the search's model alone."""
    from core.point_city import rules

    assert not hasattr(rules, "_TRUSTED") and not hasattr(rules, "_REVEALED")


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 4), st.sampled_from(["random", "greedy"]))
def test_a_random_take_is_legal_and_its_event_is_the_checked_one(seed: int, n: int, policy: str) -> None:
    """``random_step`` makes the event of ``random_command``'s own take without
    ``_check_take``'s checks (issue 25): every such take passes them, and the
    event made without them is the one they make, in true states and views."""
    from core.point_city import rules

    positions: list[tuple[State, int]] = []
    play_game(
        GAME, ["a", "b", "c", "d"][:n], f"trusted/{seed}", [policy] * n,
        hook=lambda before, seat, _c, _e: positions.append((before, seat)),
    )
    takes_seen = 0
    for s, seat in positions:
        if seat == CHANCE:
            continue
        for state in (s, GAME.view(s, seat)):
            for k in range(6):
                key = f"{seed}/{takes_seen}/{k}".encode()
                cmd = rules.random_command(state, seat, Rng(key))
                if not isinstance(cmd, Take):
                    continue
                assert rules._take_event(state, seat, cmd) == rules._check_take(state, seat, cmd)
                assert rules.random_step(state, seat, Rng(key)) == rules.step(state, seat, cmd)
                takes_seen += 1
    assert takes_seen > 0
