"""The knowledge law for 5x5 City [GN-1] [FL-10].

A view hides an item only if two true games consistent with everything the
seat has seen differ in it, and shows it otherwise.  Items are tiles by face
(tiles of one face are alike): the bag's make-up, each Park-side front of
another board, each tile of another seat's Park-B draw.

* Shown is sound: the view is the fold of the seat's redacted log
  (tests/test_view_law.py), so every consistent game shows the same; here the
  true game must agree with what the view counts (the bag's surely-in tiles,
  each unknown tile's possible tiles).
* Hidden is really hidden: for each unknown tile and each face the view says
  it can have, a *consistent completion* is built independently of the view's
  counting: the true log with that tile exchanged, from its draw on, for a
  tile of that face; the new log must replay under the rules (every decision
  re-decided) and redact, event by event, to exactly the seat's log.  So every
  item hidden has at least two consistent completions that differ in it, and
  the bag (the unseen tiles less the unknown ones) is hidden exactly as far as
  they are.

``python -m tests.five_by_five.test_knowledge_law [VIEWS]`` measures it on
random games of every option (the closing-note count).
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.engine import RulesError
from core.five_by_five import events as ev
from core.five_by_five.state import HIDDEN
from core.five_by_five.tiles import tile_code
from core.five_by_five.view import knowledge
from tests.options import draw_options

GAME = registry.get("5x5-city")


def _swap_id(t: int, a: int, b: int) -> int:
    return b if t == a else a if t == b else t


def _swap(e: ev.Event, a: int, b: int) -> ev.Event:
    """``e`` with tiles ``a`` and ``b`` exchanged."""
    f = lambda t: _swap_id(t, a, b)  # noqa: E731
    r = msgspec.structs.replace
    match e:
        case ev.SetsDrawn(sets=sets):
            return r(e, sets=tuple(tuple(map(f, s)) for s in sets))
        case ev.TilePlaced(tile=t):
            return r(e, tile=f(t))
        case ev.ParkTilesDrawn(tiles=ts):
            return r(e, tiles=tuple(map(f, ts)))
        case ev.ParkReplaced(tile=t, removed=x):
            return r(e, tile=f(t), removed=f(x) if x >= 0 else x)
        case ev.ParkTilesReturned(unused=us, removed=x):
            return r(e, unused=tuple(map(f, us)), removed=f(x) if x >= 0 else x)
        case ev.SetReturned(tiles=ts):
            return r(e, tiles=tuple(map(f, ts)))
    return e


def replays(events: list[Any], start: int = 1) -> bool:
    """Every decision of ``events`` from ``start`` on re-decided gives exactly its events."""
    s = None
    for e in events[:start]:
        s = GAME.apply(s, e)
    i = start
    while i < len(events):
        opened = GAME.command_of(events[i])
        if opened is None:
            return False
        try:
            out = GAME.decide(s, *opened)
        except RulesError:  # the changed hidden card makes the command illegal
            return False
        if tuple(events[i : i + len(out)]) != tuple(out[: len(events) - i]):  # a prefix may end mid-decision
            return False
        for e in out:
            s = GAME.apply(s, e)
        i += len(out)
    return True


def consistent(events: list[Any], other: list[Any], seat: int, start: int) -> bool:
    """``other`` (``events`` up to ``start``, a decision) is a game the seat cannot tell
    from ``events``: legal, and redacted alike."""
    return len(events) == len(other) and all(
        GAME.redact(x, seat) == GAME.redact(y, seat) for x, y in zip(events, other)
    ) and replays(other, start)


def _draw_index(events: list[Any], owner: int) -> int:
    return next(i for i, e in enumerate(events) if isinstance(e, ev.ParkTilesDrawn) and e.seat == owner)


def _truth(state: Any, u: Any) -> int:
    return state.boards[u.owner].tiles[u.where] if u.where >= 0 else state.park_drawn[u.drawn]


def completion_with(events: list[Any], state: Any, seat: int, u: Any, code: str) -> list[Any] | None:
    """A consistent game in which unknown tile ``u`` has face ``code`` (None if none found)."""
    a = _truth(state, u)
    start = _draw_index(events, u.owner)
    for b in u.can_be:
        if tile_code(b) != code:
            continue
        if b == a:
            return events
        for s in sorted({start, *(_draw_index(events, o) for o in range(state.n) if any(
            isinstance(e, ev.ParkTilesDrawn) and e.seat == o and b in e.tiles for e in events
        ))}):
            other = events[:s] + [_swap(e, a, b) for e in events[s:]]
            if consistent(events, other, seat, s):
                return other
    return None


def check_position(events: list[Any], state: Any, seat: int) -> tuple[int, int]:
    """The law at one position; returns (unknown tiles hidden, faces shown by counting)."""
    v = GAME.view(state, seat)
    k = knowledge(v, seat)
    bag = list(state.bag)
    for t in k.in_bag:
        assert t in bag, f"[GN-1] {t} counted in the bag but is not"
    assert k.bag_size == len(state.bag) == len(v.bag)
    assert sorted(t for t in v.bag if t != HIDDEN) == list(k.in_bag)
    hidden = by_counting = 0
    for u in k.unknown:
        truth = _truth(state, u)
        assert truth in u.can_be, f"[GN-1] the true tile {truth} is not among {u.can_be}"
        codes = sorted({tile_code(t) for t in u.can_be})
        if len(codes) == 1:
            by_counting += 1
            continue
        hidden += 1
        for code in codes:
            other = completion_with(events, state, seat, u, code)
            assert other is not None, f"[GN-1] no consistent game gives {u} the face {code}"
            alt = None
            for e in other:
                alt = GAME.apply(alt, e)
            assert tile_code(_truth(alt, u)) == code
            assert GAME.view(alt, seat) == v
    return hidden, by_counting


def check_game(events: list[Any], n: int, stride: int) -> tuple[int, int, int, int]:
    """The law at every ``stride``-th position of a game, for every seat."""
    views = hidden = counted = derivable = 0
    state = None
    for i, e in enumerate(events):
        state = GAME.apply(state, e)
        if i % stride:
            continue
        for seat in range(n):
            h, c = check_position(events[: i + 1], state, seat)
            views += 1
            hidden += h
            counted += c
            derivable += HIDDEN not in GAME.view(state, seat).bag
    return views, hidden, counted, derivable


@settings(deadline=None)
@given(data=st.data())
def test_a_view_hides_only_what_two_consistent_games_differ_in(data: st.DataObject) -> None:
    n = data.draw(st.integers(2, 4), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
    options = draw_options(GAME, data.draw)
    options["sides"] = data.draw(st.sampled_from(["B", "random", "BABABABABA"]), label="sides")
    policies = [data.draw(st.sampled_from(["random", "greedy"])) for _ in range(n)]
    _, events = play_game(GAME, [f"p{i}" for i in range(n)], seed, policies, options)
    stride = data.draw(st.integers(25, 60), label="stride")
    views, *_ = check_game(events, n, stride)
    assert views > 0


def test_the_bag_is_shown_by_id_once_nothing_is_unknown() -> None:
    """With Park side A (no draws) every view shows the whole bag [GN-1]."""
    _, events = play_game(GAME, ["a", "b"], "kl", ["greedy", "random"], {"sides": "A"})
    state = None
    for e in events:
        state = GAME.apply(state, e)
        for seat in (0, 1, None):
            v = GAME.view(state, seat)
            assert v.bag == state.bag


def test_an_unknown_tile_no_other_tile_can_be_is_shown() -> None:
    """A front whose draw's pool holds one tile only is that tile [GN-1]."""
    from msgspec.structs import replace

    from core.five_by_five.state import HIDDEN_PARK

    owner = state = None
    for seed in (f"front{i}" for i in range(40)):  # a game where a front stays hidden
        _, events = play_game(GAME, ["a", "b", "c"], seed, ["random"] * 3, {"sides": "B"})
        state = None
        for e in events:
            state = GAME.apply(state, e)
            owner = next((i for i, b in enumerate(state.boards) if b.secret >= 0), None)
            if owner is not None and not state.park_drawn:
                break
        if owner is not None:
            break
    assert owner is not None
    b = state.boards[owner]
    front = b.tiles[b.secret]
    other = (owner + 1) % 3
    assert GAME.view(state, other).boards[owner].tiles[b.secret] == HIDDEN_PARK
    lone = replace(state, boards=tuple(replace(x, pool=(front,)) if i == owner else x for i, x in enumerate(state.boards)))
    assert GAME.view(lone, other).boards[owner].tiles[b.secret] == front


def measure(views_wanted: int) -> None:
    """Count views, unknown tiles hidden and bags shown whole, over random games."""
    import random

    rnd = random.Random(23)
    views = hidden = counted = derivable = games = 0
    sides = ["B", "random", "A", "BABABABABA"]
    while views < views_wanted:
        n = rnd.randint(2, 4)
        opts = {"sides": sides[games % len(sides)], "advanced": rnd.choice(["yes", "no"])}
        _, events = play_game(GAME, [f"p{i}" for i in range(n)], f"kl{games}", ["greedy", "random", "random", "greedy"][:n], opts)
        v, h, c, d = check_game(events, n, 7)
        views, hidden, counted, derivable, games = views + v, hidden + h, counted + c, derivable + d, games + 1
    print(f"5x5 City: {games} games, {views} views; bag shown whole in {derivable}; "
          f"{hidden} unknown tiles hidden, each with >=2 consistent completions of different faces; "
          f"{counted} unknown tiles whose face is known by counting")


if __name__ == "__main__":
    measure(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
