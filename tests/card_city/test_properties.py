"""Card City invariants over seeded random and greedy games (hypothesis).

At every event: card conservation (pool + reserve + hands + cities + the box =
the box's contents); no Residential touches an Industrial; the size limit
(CC-3) and the frame (CC-1) hold.  Every game lasts exactly 10 rounds.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.autoplay import play_game
from core.card_city import events as ev
from core.card_city.cards import BOX, KINDS, unused_counts
from core.card_city.city import fits_frame, neighbours, non_industrial, size_limit
from core.card_city.game import GAME
from core.card_city.state import State

games = st.fixed_dictionaries(
    {
        "n": st.integers(1, 4),
        "seed": st.integers(0, 10**9),
        "policy": st.sampled_from(["random", "greedy"]),
        "decentralization": st.sampled_from(["no", "yes"]),
        "parking-meters": st.sampled_from(["no", "yes"]),
    }
)


def census(s: State) -> Counter[str]:
    seen: Counter[str] = Counter()
    for kind, n in zip(KINDS, s.pool, strict=True):
        seen[kind] += n
    for kind, n in zip(KINDS, s.reserve, strict=True):
        seen[kind] += n
    seen.update(s.bottom)
    seen.update(s.holding.cards)
    seen.update(s.set_aside)
    if s.offer is not None:
        seen.update(s.offer.pair + s.offer.up + s.offer.down)
    for p in s.players:
        seen.update(p.hand.cards)
        seen.update(k for _, _, k in p.city)
    seen.update(unused_counts(s.n))
    return seen


def check_city(cells: tuple[tuple[int, int, str], ...]) -> None:
    grid = {(r, c): k for r, c, k in cells}
    assert len(grid) == len(cells), "two cards on one square"
    assert non_industrial(grid) <= size_limit(grid), "CC-3 size limit broken"
    rows = [r for r, _ in grid]
    cols = [c for _, c in grid]
    assert max(rows) - min(rows) < 5 and max(cols) - min(cols) < 5, "CC-1 frame broken"
    for sq, kind in grid.items():
        if kind == "R":
            assert all(grid.get(n) != "I" for n in neighbours(sq)), "Residential touches Industrial"
    assert fits_frame(grid, (0, 0))


@pytest.mark.slow  # many whole games (issue 27: -m 'not slow' leaves it out)
@given(games)
def test_invariants_hold_at_every_event(g: dict) -> None:
    n = g["n"]
    options = {"decentralization": g["decentralization"], "parking-meters": g["parking-meters"]}
    final, events = play_game(
        GAME, [f"p{i}" for i in range(n)], str(g["seed"]), [g["policy"]] * n, options
    )
    state = None
    for e in events:
        state = GAME.apply(state, e)
        assert census(state) == Counter(BOX), f"cards not conserved after {e!r}"
        assert state.pool_size == sum(state.pool) + len(state.bottom)
        assert min(state.reserve) >= 0 and min(state.pool) >= 0
        for p in state.players:
            check_city(p.city)
            assert p.coins >= 0
    assert state == final
    rounds = [e.round for e in events if isinstance(e, ev.RoundStarted)]
    assert rounds == list(range(2, 11)), "a game is exactly 10 rounds"
    assert sum(isinstance(e, ev.GameEnded) for e in events) == 1
    assert final.phase == "over" and final.pool_size == 0


@given(st.integers(0, 10**9))
def test_every_player_gets_two_cards_each_round(seed: int) -> None:
    final, events = play_game(GAME, ["a", "b", "c"], str(seed), ["random"] * 3)
    kept: Counter[tuple[int, int]] = Counter()
    round_ = 1
    for e in events:
        if isinstance(e, ev.RoundStarted):
            round_ = e.round
        if isinstance(e, ev.Kept):
            kept[(round_, e.seat)] += len(e.up) + len(e.down)
    assert kept == Counter({(r, s): 2 for r in range(1, 11) for s in range(3)})


@given(st.integers(0, 10**9))
def test_round_one_holds_no_leisure_after_replacement(seed: int) -> None:
    _, events = play_game(GAME, ["a", "b"], str(seed), ["random"] * 2)
    round_one = events[: next(i for i, e in enumerate(events) if isinstance(e, ev.RoundStarted))]
    splits = [e for e in round_one if isinstance(e, ev.Split)]
    assert splits and all("L" not in e.pair + e.up + e.down for e in splits)  # CC-8
    drawn = sum(len(e.cards) for e in round_one if isinstance(e, ev.CardsDrawn))
    aside = sum(e.count for e in round_one if isinstance(e, ev.LeisureSetAside))
    back = sum(e.count for e in round_one if isinstance(e, ev.LeisureReturned))
    assert drawn - aside == 4 and aside == back


def test_greedy_beats_random() -> None:
    """A small sample; the full measurement is bench/bench_bots.py."""
    from core.autoplay import greedy_margins

    m = greedy_margins(GAME, 24, "t")
    assert sum(m) / len(m) > 3
    assert sum(1 for x in m if x > 0) >= 16
